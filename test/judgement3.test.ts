/**
 * Judgement III: loops in which one action per cycle is new as a string but brings nothing
 * new, and their healthy twins. The fixed sample (test/fixtures/judgement3, answers in
 * expect.json), then fresh sessions of the seeded generator (test/support/judgement3/gen.mjs)
 * for a spread of seeds; `npm run judgement3` scores hundreds.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { firstDenyOf, KINDS, scoreSeed, type Expected, type Exported } from "./support/judgement3/score.js";

const DIR = new URL("./fixtures/judgement3/", import.meta.url);
const expected = JSON.parse(readFileSync(new URL("expect.json", DIR), "utf8")) as Record<string, Expected>;

describe("the fixed sample (test/fixtures/judgement3, answers in expect.json)", () => {
  it("holds three sessions of each of the fifteen kinds", () => {
    expect(Object.keys(expected)).toHaveLength(45);
    expect(new Set(Object.values(expected).map((e) => e.kind))).toEqual(new Set(KINDS));
  });

  it.each(Object.keys(expected))("%s", (name) => {
    const want = expected[name]!;
    const session = JSON.parse(readFileSync(new URL(`${name}.json`, DIR), "utf8")) as Exported;
    expect(want.accept ?? [want.firstDeny]).toContain(firstDenyOf(session, want.flags ?? []));
  });
});

describe("fresh sessions of the generator, every kind", () => {
  // Seeds beyond the sample's (seed 1); every case of each must be right.
  const SEEDS = Array.from({ length: 24 }, (_, i) => 1001 + i * 37);

  it.each(SEEDS)("seed %i: every session decided right, no false denial", (seed) => {
    const { byKind, wrong } = scoreSeed(seed, 1);
    expect([...byKind.keys()].sort()).toEqual([...KINDS].sort());
    expect(wrong).toEqual([]);
  });
});

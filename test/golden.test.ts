/**
 * The judgement's bytes do not move by accident: `replay --json` of every fixture and of the
 * generator's sessions of 20 seeds hashes to what test/golden/replay.json holds
 * (test/support/golden.ts). A deliberate change is recorded with `npm run golden -- --write`
 * and its moved cases are named in the commit.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GOLDEN_SEEDS, goldenRecord, RECORD } from "./support/golden.js";

describe("the golden record of replay --json", () => {
  it("every case prints the bytes recorded, and no case is missing or new", { timeout: 120_000 }, async () => {
    const kept = JSON.parse(readFileSync(RECORD, "utf8")) as Record<string, string>;
    const record = await goldenRecord();
    const moved = Object.keys({ ...kept, ...record }).filter((name) => kept[name] !== record[name]);
    expect(moved).toEqual([]);
    expect(Object.keys(record).filter((name) => name.startsWith("seed-")).length).toBe(GOLDEN_SEEDS.length * 15);
    expect(Object.keys(record).length).toBeGreaterThan(500);
  });
});

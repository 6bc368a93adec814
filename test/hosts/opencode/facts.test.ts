import { describe, expect, it } from "vitest";
import { usableContext } from "../../../src/hosts/opencode/facts.js";

describe("usableContext (opencode session/overflow.ts)", () => {
  it.each([
    ["65,536 / 16,384 (opencode#48827's model)", { context: 65_536, output: 16_384 }, 49_152],
    ["8,000 / 2,000 (the e2e model)", { context: 8_000, output: 2_000 }, 6_000],
    ["output over the 32,000 cap", { context: 200_000, output: 64_000 }, 168_000],
    ["output unknown counts as 32,000", { context: 200_000, output: 0 }, 168_000],
    ["an input limit wins, minus min(20,000, maxOut)", { context: 400_000, output: 128_000, input: 272_000 }, 252_000],
    ["input limit with a small output", { context: 400_000, output: 8_000, input: 100_000 }, 92_000],
    ["never below zero", { context: 1_000, output: 4_000 }, 0],
  ])("%s", (_, limits, usable) => {
    expect(usableContext(limits)).toBe(usable);
  });

  it("is unknown without a context limit", () => {
    expect(usableContext(undefined)).toBeNull();
    expect(usableContext({ context: 0, output: 4_000 })).toBeNull();
    expect(usableContext({ context: Number.NaN, output: 4_000 })).toBeNull();
  });
});

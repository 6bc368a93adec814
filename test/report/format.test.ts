import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fmt, num, plural } from "../../src/report/format.js";

describe("fmt and num", () => {
  it("write every whole number as toLocaleString('en-US') does", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.integer({ min: -999_999, max: 999_999 }), fc.constant(-0)), (n) => {
        expect(fmt(n)).toBe(n.toLocaleString("en-US"));
        expect(num(n)).toBe(n.toLocaleString("en-US"));
      }),
      { numRuns: 5000 },
    );
  });

  it("group thousands, round counts, and leave the rest to toLocaleString", () => {
    expect([fmt(0), fmt(999), fmt(1000), fmt(-1234567), fmt(null)]).toEqual(["0", "999", "1,000", "-1,234,567", "-"]);
    expect([num(44_099.6), plural(1, "step"), plural(1200, "step")]).toEqual(["44,100", "1 step", "1,200 steps"]);
    expect([fmt(1e21), fmt(1234.5678), fmt(-0)]).toEqual([(1e21).toLocaleString("en-US"), "1,234.568", "-0"]);
  });
});

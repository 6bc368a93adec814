/** An answer's content lines, read through the hosts' layouts (src/hosts/answers.ts). */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { contentLines, mayHold } from "../../src/hosts/answers.js";
import { FILE, plain, readOutput } from "../support/answers.js";

describe("contentLines: the same lines however they were shown", () => {
  it("the read tool's numbered lines and wrapper, sed's plain lines: the same content", () => {
    expect(contentLines(readOutput(3, 5))).toEqual(FILE.slice(2, 5));
    expect(contentLines(plain(3, 5))).toEqual(FILE.slice(2, 5));
  });

  it("a search hit by its file's name and text, as grep -n, git grep and opencode's grep tool write it", () => {
    const expected = ["job.ts\u0000const size = legacyTimeout(req)"];
    expect(contentLines("src/ingest/job.ts:33:  const size = legacyTimeout(req)\n")).toEqual(expected);
    expect(contentLines("./src/ingest/job.ts:33:const size = legacyTimeout(req)")).toEqual(expected);
    expect(contentLines("Found 1 matches\n/home/dev/p/src/ingest/job.ts:\n  Line 33:   const size = legacyTimeout(req)")).toEqual(expected);
  });

  it("a JSON result moved to the end of its list reads the same (no trailing comma)", () => {
    expect(contentLines('{\n  "url": "https://a",\n  "title": "A"\n}')).toEqual(["{", '"url": "https://a"', '"title": "A"', "}"]);
  });
});

describe("mayHold: could an answer hold a line given as this text", () => {
  it("holds every line forEachContentLine gives of it", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({
            unit: fc.constantFrom(
              ...["a", "b", " ", ",", ":", "1", "|", "\t", "\r", "\u00a0", "\u1680", "\u2028", "\ufeff", "\u0000", "/", "."],
              ...["Line 1:", "a.ts:", "x.ts:2:", "<content>", "Found 2 matches"],
            ),
          }),
          {
            maxLength: 6,
          },
        ),
        (lines) => {
          const answer = lines.join("\n");
          for (const text of contentLines(answer)) expect(mayHold(answer, text)).toBe(true);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

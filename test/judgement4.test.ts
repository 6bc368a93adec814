/**
 * Judgement IV's patterns, each as a loop that must be denied by the threshold and the
 * healthy session closest to it that must not be: time inside an otherwise identical answer
 * is noise, and a read brings only the lines it shows that were not seen, whatever its
 * window, also while compactions keep shifting the windows.
 */
import { describe, expect, it } from "vitest";
import { replayMessages } from "../src/core.js";
import { DEFAULT_SETTINGS } from "../src/config/settings.js";
import { bash, SessionBuilder, type ToolSpec } from "./support/session.js";

/** The first denied compaction's index and its rule, or null when none is denied. */
function firstDenial(cycles: readonly (readonly ToolSpec[][])[], prompt = "fix the build"): [number, string | null] | null {
  const s = new SessionBuilder().user(prompt);
  for (const steps of cycles) {
    steps.forEach((specs, j) => s.step(specs, 40_000 + j * 20_000));
    s.compact();
  }
  const deny = replayMessages(s.messages, DEFAULT_SETTINGS).find((row) => row.decision === "deny");
  return deny ? [deny.compaction.index, deny.rule] : null;
}

const THRESHOLD = DEFAULT_SETTINGS.threshold;
const cycles = <T>(n: number, each: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => each(i));

/** msbuild's failure summary; only the clock and the elapsed time differ from run to run. */
const msbuild = (errors: number, i: number) =>
  `Build started ${String(10 + i).padStart(2, "0")}:0${i}:1${i}.\n` +
  `src/Orders/OrderService.cs(41,17): error CS0103: The name 'total' does not exist in the current context\n` +
  `\nBuild FAILED.\n    0 Warning(s)\n    ${errors} Error(s)\n\nTime Elapsed 00:00:0${7 + (i % 3)}.${21 + i * 13}`;

describe("time is noise", () => {
  it("the same failing build after each compaction, only its clock and elapsed time moving: denied by the threshold", () => {
    const denial = firstDenial(
      cycles(THRESHOLD + 1, (i) => [
        [{ tool: "read", input: { filePath: "/p/src/Orders/OrderService.cs" }, output: FILE_OUTPUT }],
        [bash("dotnet build", msbuild(1, i))],
      ]),
    );
    // The first cycle reads and builds; the second brings nothing new.
    expect(denial).toEqual([2, "no-new-work"]);
  });

  it("the same check with a download's ETA and a test run's duration moving: denied by the threshold", () => {
    const out = (i: number) => `Fetching toolchain 45% ETA ${12 - i}s\nRan 14 tests in 0.0${31 + i}s\n\nFAILED (failures=2)`;
    const denial = firstDenial(
      cycles(THRESHOLD + 1, (i) => [
        [bash("python -m pytest -q tests/test_orders.py", out(i))],
        [bash("git status --short", " M src/orders.py\n")],
      ]),
    );
    // The first cycle reads and builds; the second brings nothing new.
    expect(denial).toEqual([2, "no-new-work"]);
  });

  it("a different edit before each build, the error count falling: never denied", () => {
    const denial = firstDenial(
      cycles(THRESHOLD + 1, (i) => [
        [
          {
            tool: "edit",
            input: { filePath: `/p/src/Orders/Part${i}.cs`, oldString: "total", newString: "sum" },
            output: "Edit applied successfully.",
          },
        ],
        [bash("dotnet build", msbuild(THRESHOLD + 1 - i, i))],
      ]),
    );
    expect(denial).toBeNull();
  });
});

const LINES = Array.from({ length: 200 }, (_, i) => `export const rate${i} = lookup("${i * 7}");`);
/** opencode's read tool answer for lines [from, to] (1-based) of a 200-line file. */
const readWindow = (from: number, to: number) =>
  `<path>/p/src/rates.ts</path>\n<type>file</type>\n<content>\n${LINES.slice(from - 1, to)
    .map((line, i) => `${from + i}: ${line}`)
    .join("\n")}\n\n(Showing lines ${from}-${to} of 200. Use offset=${to + 1} to continue.)\n</content>`;
const read = (offset: number, limit: number): ToolSpec => ({
  tool: "read",
  input: { filePath: "/p/src/rates.ts", offset, limit },
  output: readWindow(offset, offset + limit - 1),
});
const FILE_OUTPUT = readWindow(1, 40);

describe("overlapping windows", () => {
  it("the first 120 lines read, then after each compaction windows shifted inside them: denied by the threshold", () => {
    const denial = firstDenial([
      [[read(1, 60)], [read(61, 60)]],
      ...cycles(THRESHOLD, (i) => [
        [read(10 + i * 7, 50)],
        [read(55 + i * 9, 40)],
        [bash(`sed -n '${20 + i},${70 + i}p' src/rates.ts`, LINES.slice(19 + i, 70 + i).join("\n"))],
      ]),
    ]);
    // Compaction 1 follows the first reading; the windows after it show no line unseen.
    expect(denial).toEqual([2, "no-new-work"]);
  });

  it("windows that overlap the lines seen but each show new ones: never denied", () => {
    const denial = firstDenial(cycles(THRESHOLD + 1, (i) => [[read(1 + i * 40, 50)], [bash("wc -l src/rates.ts", "200 src/rates.ts")]]));
    expect(denial).toBeNull();
  });
});

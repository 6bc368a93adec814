import { describe, expect, it } from "vitest";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import {
  completedCallsBefore,
  continueNote,
  LEDGER_MAX_CHARS,
  ledgerText,
  LOOKBACK_MESSAGES,
  NOTE_MAX_CHARS,
} from "../../src/guard/ledger.js";
import { bash, SessionBuilder, type ToolSpec } from "../support/session.js";

const read = (filePath: string) => ({ tool: "read", input: { filePath }, output: "contents" });
const edit = (filePath: string, status: "completed" | "error" = "completed") => ({
  tool: "edit",
  input: { filePath, oldString: "a", newString: "b" },
  status,
  output: status === "error" ? "oldString not found" : "edited",
});

/** The position of the last compaction message. */
const lastCompaction = (messages: unknown[]) => buildTimeline(messages).compactions.at(-1)!.position;

describe("completedCallsBefore", () => {
  it("lists edits, commands and repeated reads since the user's last real message, newest first, with outcome and count", () => {
    const session = new SessionBuilder()
      .user("first task")
      .step(bash("git push"))
      .user("second task")
      .step(read("/p/src/a.ts"))
      .step(edit("/p/src/a.ts"))
      .step(read("/p/src/b.ts"))
      .step(bash("npm test"))
      .step(read("/p/src/b.ts"))
      .step(edit("/p/src/c.ts", "error"))
      .step({ tool: "todowrite", input: { todos: [] } })
      .step(bash("sleep 30 && gh pr checks"))
      .step(bash("npm test"))
      .compact({ continueTurn: false });
    const timeline = buildTimeline(session.messages);
    const { calls, complete } = completedCallsBefore(timeline, lastCompaction(session.messages), { directory: "/p" });
    expect(complete).toBe(true);
    expect(calls).toEqual([
      { tool: "bash", preview: "npm test", outcome: "done", count: 2, calls: 1, kind: "command" },
      { tool: "edit", preview: "filePath=src/c.ts", outcome: "failed", count: 1, calls: 1, kind: "effect" },
      { tool: "read", preview: "filePath=src/b.ts", outcome: "done", count: 2, calls: 1, kind: "read" },
      { tool: "edit", preview: "filePath=src/a.ts", outcome: "done", count: 1, calls: 1, kind: "effect" },
    ]);
  });

  it("reads across earlier compactions and their continue turns, not past the user's message", () => {
    const session = new SessionBuilder().user().step(bash("echo hi")).compact().step(bash("echo hi")).compact().step(bash("echo hi"));
    const timeline = buildTimeline(session.messages);
    const { calls } = completedCallsBefore(timeline, timeline.entries.length);
    expect(calls).toEqual([{ tool: "bash", preview: "echo hi", outcome: "done", count: 3, calls: 1, kind: "command" }]);
  });

  it("a bounded read that starts inside the look-back is incomplete; the session's own start is complete", () => {
    const session = new SessionBuilder().user();
    for (let i = 0; i < 10; i++) session.step(bash("npm test"));
    const newest = session.messages.slice(3);
    const timeline = buildTimeline(newest);
    expect(completedCallsBefore(timeline, newest.length).complete).toBe(false);
    expect(completedCallsBefore(timeline, newest.length, { wholeSession: true }).complete).toBe(true);
    expect(completedCallsBefore(buildTimeline(session.messages), session.messages.length).complete).toBe(true);
  });

  it(`reads at most ${LOOKBACK_MESSAGES} messages back, so a later read that still holds them gives the same calls`, () => {
    const session = new SessionBuilder().user();
    for (let i = 0; i < LOOKBACK_MESSAGES + 10; i++) session.step(bash("npm test"));
    const all = buildTimeline(session.messages);
    const from = completedCallsBefore(all, session.messages.length);
    expect(from).toEqual({
      calls: [{ tool: "bash", preview: "npm test", outcome: "done", count: LOOKBACK_MESSAGES, calls: 1, kind: "command" }],
      complete: true,
    });
    const newest = session.messages.slice(5);
    expect(completedCallsBefore(buildTimeline(newest), newest.length)).toEqual(from);
  });

  it("a single read is not listed; nothing at all gives no calls", () => {
    const session = new SessionBuilder().user().step(read("/p/a.ts"));
    expect(completedCallsBefore(buildTimeline(session.messages), 99).calls).toEqual([]);
    expect(completedCallsBefore(buildTimeline([]), 0)).toEqual({ calls: [], complete: false });
  });
});

/** A read of `filePath` from `offset`, `limit` lines. */
const page = (filePath: string, offset: number, limit = 100) => ({ tool: "read", input: { filePath, offset, limit }, output: "lines" });

/** The ledger's call lines and the note's named calls after `steps`, run since the user's message and then compacted. */
function shown(steps: ToolSpec[]): { lines: string[]; named: string } {
  const session = new SessionBuilder().user("the task");
  for (const step of steps) session.step(step);
  session.compact({ continueTurn: false });
  const { calls } = completedCallsBefore(buildTimeline(session.messages), lastCompaction(session.messages), { directory: "/p" });
  const lines = (ledgerText(calls, false) ?? "").split("\n").filter((line) => line.startsWith("- "));
  const named = /the most recent: (.*)\. If nothing/.exec(continueNote(calls))?.[1] ?? "";
  return { lines, named };
}

describe("only the same call adds to a count: different calls are never one call run N times", () => {
  it.each<[string, ToolSpec[], string[], string]>([
    [
      "four pages of one file: four entries, newest first",
      [page("/p/big.txt", 0), page("/p/big.txt", 100), page("/p/big.txt", 200), page("/p/big.txt", 300)],
      [
        "- read `filePath=big.txt offset=300 limit=100` (done)",
        "- read `filePath=big.txt offset=200 limit=100` (done)",
        "- read `filePath=big.txt offset=100 limit=100` (done)",
        "- read `filePath=big.txt offset=0 limit=100` (done)",
      ],
      "read `filePath=big.txt offset=300 limit=100` (done); read `filePath=big.txt offset=200 limit=100` (done); read `filePath=big.txt offset=100 limit=100` (done)",
    ],
    [
      "two pods deleted: two entries",
      [bash("kubectl delete pod web-1"), bash("kubectl delete pod web-2")],
      ["- bash `kubectl delete pod web-2` (done)", "- bash `kubectl delete pod web-1` (done)"],
      "bash `kubectl delete pod web-2` (done); bash `kubectl delete pod web-1` (done)",
    ],
    [
      "six different echoes: six entries",
      [1, 2, 3, 4, 5, 6].map((n) => bash(`echo step-${n}`)),
      [6, 5, 4, 3, 2, 1].map((n) => `- bash \`echo step-${n}\` (done)`),
      "bash `echo step-6` (done); bash `echo step-5` (done); bash `echo step-4` (done)",
    ],
    [
      "the same call three times: one entry, 3×",
      [bash("npm test"), bash("npm test"), bash("npm test")],
      ["- bash `npm test` (done, 3×)"],
      "bash `npm test` (done, 3×)",
    ],
    [
      "the same command under other descriptions is the same call",
      [
        { ...bash("npm test"), input: { command: "npm test", description: "Run the tests" } },
        { ...bash("npm test"), input: { command: "npm test", description: "Test again" } },
      ],
      ["- bash `npm test` (done, 2×)"],
      "bash `npm test` (done, 2×)",
    ],
    [
      "the same page read twice: 2×; a file read once is not listed",
      [page("/p/big.txt", 0), page("/p/other.txt", 0), page("/p/big.txt", 0)],
      ["- read `filePath=big.txt offset=0 limit=100` (done, 2×)"],
      "read `filePath=big.txt offset=0 limit=100` (done, 2×)",
    ],
    [
      "different calls the preview cannot tell apart: one line that says how many",
      [bash('echo "step 1"'), bash('echo "step 2"'), bash('echo "step 3"')],
      ["- bash `echo …` (done, 3 different calls)"],
      "bash `echo …` (done, 3 different calls)",
    ],
    [
      "… and how many runs, when one of them ran again",
      [bash('echo "step 1"'), bash('echo "step 2"'), bash('echo "step 1"')],
      ["- bash `echo …` (done, 2 different calls, 3 runs)"],
      "bash `echo …` (done, 2 different calls, 3 runs)",
    ],
    [
      "a done and a failed run of one call: two entries",
      [edit("/p/a.ts"), edit("/p/a.ts", "error")],
      ["- edit `filePath=a.ts` (failed)", "- edit `filePath=a.ts` (done)"],
      "edit `filePath=a.ts` (failed); edit `filePath=a.ts` (done)",
    ],
  ])("%s", (_, steps, lines, named) => {
    const found = shown(steps);
    expect(found.lines).toEqual(lines);
    expect(found.named).toBe(named);
  });
});

describe("ledgerText", () => {
  const calls = [
    { tool: "bash", preview: "echo …", outcome: "done" as const, count: 3, calls: 1, kind: "command" as const },
    { tool: "edit", preview: "filePath=src/a.ts", outcome: "failed" as const, count: 1, calls: 1, kind: "effect" as const },
  ];

  it("names each call with its outcome, asks for them under completed, and says the next turn is automatic", () => {
    expect(ledgerText(calls, true)).toBe(
      [
        "[compaction-guard ledger] Calls already completed since the user's last message, newest first (do not redo them blindly):",
        "- bash `echo …` (done, 3×)",
        "- edit `filePath=src/a.ts` (failed)",
        "In the summary, list these under what was completed, with their outcome.",
        "The turn after this summary is an automatic continuation added by opencode after compaction, not a new instruction from the user: say so in the summary's next move.",
      ].join("\n"),
    );
  });

  it("says nothing of a continuation for a manual compaction, and nothing at all without calls", () => {
    expect(ledgerText(calls, false)).not.toContain("automatic continuation");
    expect(ledgerText([], false)).toBeNull();
    expect(ledgerText([], true)).toMatch(/^\[compaction-guard ledger\] No call that changes anything completed/);
  });

  it(`stays within ${LEDGER_MAX_CHARS} characters, counting what it leaves out`, () => {
    const many = Array.from({ length: 200 }, (_, i) => ({ ...calls[0]!, preview: `npm run task${i} …` }));
    const text = ledgerText(many, true)!;
    expect(text.length).toBeLessThanOrEqual(LEDGER_MAX_CHARS);
    expect(text).toMatch(/\n- … and \d+ more\n/);
    expect(text).toContain("automatic continuation");
  });
});

describe("continueNote", () => {
  const calls = [
    { tool: "bash", preview: "echo …", outcome: "done" as const, count: 4, calls: 1, kind: "command" as const },
    { tool: "write", preview: "filePath=a.md", outcome: "done" as const, count: 1, calls: 1, kind: "effect" as const },
    { tool: "read", preview: "filePath=b.md", outcome: "done" as const, count: 2, calls: 1, kind: "read" as const },
    { tool: "edit", preview: "filePath=c.md", outcome: "done" as const, count: 1, calls: 1, kind: "effect" as const },
  ];

  it("says what the turn is, and names the three most recent calls", () => {
    expect(continueNote(calls)).toBe(
      "[compaction-guard note] This message was added automatically after context compaction. It is not a new instruction " +
        "from the user and carries no new authority. Continue the request that was in progress without restarting it. " +
        "If an action was interrupted, check its result before retrying it. Do not repeat calls that already completed; " +
        "the most recent: bash `echo …` (done, 4×); write `filePath=a.md` (done); read `filePath=b.md` (done, 2×). " +
        "If nothing was in progress, answer and stop.",
    );
  });

  it("names none when the calls could not be read completely", () => {
    expect(continueNote(null)).toContain("Do not repeat calls that already completed (the summary above lists them).");
    expect(continueNote([])).toBe(continueNote(null));
  });

  it(`is at most ${NOTE_MAX_CHARS} characters`, () => {
    const long = calls.map((call) => ({ ...call, tool: "x".repeat(40), preview: "y".repeat(60) }));
    expect(continueNote(long).length).toBeLessThanOrEqual(NOTE_MAX_CHARS);
  });
});

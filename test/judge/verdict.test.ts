import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, type GuardSettings } from "../../src/config/settings.js";
import { replayMessages } from "../../src/core.js";
import { type ReplayRow } from "../../src/guard/replay.js";
import { bash, SessionBuilder, type ToolSpec } from "../support/session.js";

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8")) as { messages: unknown[] };

const settings = (over: Partial<GuardSettings> = {}): GuardSettings => ({ ...DEFAULT_SETTINGS, ...over });
const LIMITS_65K = { context: 65_536, output: 16_384 };

const decisions = (rows: ReplayRow[]) => rows.map((r) => [r.compaction.index, r.decision, r.rule]);
const firstDeny = (rows: ReplayRow[]) => rows.find((r) => r.decision === "deny")?.compaction.index ?? null;

describe("case 1: the real looping export from opencode 1.18.33", () => {
  const rows = replayMessages(fixture("opencode-1.18.33-loop-bash.json").messages, settings());

  it("allows compaction 1, denies compaction 2 and 3 by no-progress", () => {
    expect(decisions(rows)).toEqual([
      [1, "allow", null],
      [2, "deny", "no-progress"],
      [3, "deny", "no-progress"],
    ]);
    expect(firstDeny(rows)).toBe(2);
  });

  it("carries the measured evidence", () => {
    const second = rows[1]!;
    expect(second.evidence["no-progress"]).toMatchObject({
      status: "measured",
      triggerTokens: 7020,
      afterTokens: 7000,
      reduction: expect.closeTo(20 / 7020, 12),
      stalled: "reduction-below-minimum",
      previousMessageID: "msg_22b7cb6d0001bzMcMOyhULTJKu",
      triggerMessageID: "msg_22b7cb101001mJn299jTF6obfO",
      afterMessageID: "msg_22b7cb7e5001E1wPUtYr0HCEti",
    });
    // The echo ran before compaction 1 and after compactions 1 and 2, the same each time.
    expect(rows[2]!.evidence["repeated-tool-call"]).toMatchObject({
      tool: "bash",
      count: 3,
      acrossCompaction: true,
      preview: "echo hi",
      messagesRead: 3,
    });
    expect(rows[1]!.evidence["no-new-work"]).toMatchObject({ status: "measured", steps: 1, actions: 1, firstNew: null });
  });
});

describe("case 2: the reported fixed point (65,536 context / 16,384 output)", () => {
  const session = new SessionBuilder().user("fix the build");
  const sizes = Array.from({ length: 26 }, (_, i) => Math.round(49_417 + ((50_835 - 49_417) * i) / 25));
  for (const size of sizes) session.step(bash("npm run build", "error TS2304\n"), size).compact();
  const rows = replayMessages(session.messages, settings(), { limits: LIMITS_65K });

  it("replays 26 automatic compactions with trigger sizes 49,417 → 50,835", () => {
    expect(rows).toHaveLength(26);
    expect(rows[0]!.triggerTokens).toBe(49_417);
    expect(rows[25]!.triggerTokens).toBe(50_835);
  });

  it("denies at compaction 2 by no-progress: compaction 1 cut nothing (the context grew)", () => {
    expect(firstDeny(rows)).toBe(2);
    expect(rows[1]!.rule).toBe("no-progress");
    expect(rows[1]!.evidence["no-progress"]).toMatchObject({
      usableTokens: 49_152,
      afterTokens: sizes[1],
      stalled: "reduction-below-minimum",
    });
    expect(rows.slice(1).every((r) => r.rule === "no-progress")).toBe(true);
    // Later compactions: still no-progress, the most telling rule, checked first.
    expect(rows.slice(1).every((r) => r.rule === "no-progress")).toBe(true);
    expect(rows[2]!.evidence["repeated-tool-call"]).toMatchObject({ count: 3, acrossCompaction: true });
  });
});

describe("case 3: compactions that reduce the context", () => {
  // Four cycles: 52K triggers, the first step after each compaction is at 14K and the
  // context grows back to 52K over six steps, each a different tool call.
  const session = new SessionBuilder().user("refactor the parser");
  const cycle = [14_000, 21_600, 29_200, 36_800, 44_400, 52_000];
  let n = 0;
  session.step({ tool: "read", input: { filePath: `src/file${n++}.ts` } }, 52_000).compact();
  for (let c = 0; c < 4; c++) {
    for (const size of cycle) session.step({ tool: "read", input: { filePath: `src/file${n++}.ts` } }, size);
    session.compact();
  }

  it.each([
    ["with known limits", { limits: LIMITS_65K }],
    ["without limits", {}],
  ])("never denies, %s", (_, options) => {
    const rows = replayMessages(session.messages, settings(), options);
    expect(rows.map((r) => r.decision)).toEqual(["allow", "allow", "allow", "allow", "allow"]);
    expect(rows[1]!.evidence["no-progress"]).toMatchObject({ triggerTokens: 52_000, afterTokens: 14_000, stalled: null });
  });
});

describe("case 4: a real user message resets repeated-tool-call", () => {
  // Token sizes stay out of it (null): only repeated-tool-call can decide.
  const npmTest = bash("npm test", "3 passed\n");

  it("does not deny when the third identical call follows a real user message", () => {
    const session = new SessionBuilder().user("run the tests");
    session.step(npmTest, null).compact().step(npmTest, null).compact();
    session.user("run them once more please").step(npmTest, null).compact();
    const row = replayMessages(session.messages, settings())[2]!;
    expect(row.decision).toBe("allow");
    expect(row.evidence["repeated-tool-call"]).toMatchObject({ count: 1, messagesRead: 1 });
    expect(row.evidence["no-new-work"]).toEqual({ status: "abstain", reason: "a real user message came after the previous compaction" });
  });

  it("denies the same history without the real user message", () => {
    const session = new SessionBuilder().user("run the tests");
    session.step(npmTest, null).compact().step(npmTest, null).compact().step(npmTest, null).compact();
    const row = replayMessages(session.messages, settings())[2]!;
    expect(row.rule).toBe("repeated-tool-call");
    expect(row.evidence["repeated-tool-call"]).toMatchObject({ count: 3, messagesRead: 3 });
  });

  it("synthetic continue turns do not reset the count", () => {
    const session = new SessionBuilder().user("go");
    for (let i = 0; i < 3; i++) session.step(bash("npm test", "3 passed\n"), null).compact();
    const rows = replayMessages(session.messages, settings());
    // Compaction 2: the cycle after compaction 1 only redid the test run (no-new-work);
    // compaction 3: the third identical run (repeated-tool-call, checked before no-new-work).
    expect(decisions(rows)).toEqual([
      [1, "allow", null],
      [2, "deny", "no-new-work"],
      [3, "deny", "repeated-tool-call"],
    ]);
  });
});

/** One compaction cycle per step: the shape of the loop this guard exists for. */
function cycles(steps: ToolSpec[], tokens: number | null = null) {
  const session = new SessionBuilder().user();
  for (const step of steps) session.step(step, tokens).compact();
  return replayMessages(session.messages, settings()).at(-1)!;
}

describe("case 5: key order of tool inputs", () => {
  it("counts inputs whose keys come in another order as identical", () => {
    const row = cycles([
      { tool: "grep", input: { pattern: "TODO", path: "src", opts: { a: 1, b: [1, 2] } } },
      { tool: "grep", input: { opts: { b: [1, 2], a: 1 }, path: "src", pattern: "TODO" } },
      { tool: "grep", input: { path: "src", opts: { a: 1, b: [1, 2] }, pattern: "TODO" } },
    ]);
    expect(row.rule).toBe("repeated-tool-call");
    expect(row.evidence["repeated-tool-call"]).toMatchObject({ tool: "grep", count: 3 });
  });

  it("keeps array order significant", () => {
    const session = new SessionBuilder().user();
    session.step({ tool: "grep", input: { paths: ["a", "b"] } }, null).compact();
    session.step({ tool: "grep", input: { paths: ["b", "a"] } }, null).compact();
    const row = replayMessages(session.messages, settings()).at(-1)!;
    expect(row.decision).toBe("allow");
    expect(row.evidence["no-new-work"]).toMatchObject({ actions: 1, firstNew: 0 });
  });
});

describe("case 6: matchOutput", () => {
  const session = new SessionBuilder().user();
  for (const passed of [1, 2, 3]) session.step(bash("npm test", `${passed} of 3 passed\n`), null).compact();

  it("does not deny the same call with different outputs when on", () => {
    const row = replayMessages(session.messages, settings({ matchOutput: true }))[2];
    expect(row!.decision).toBe("allow");
    expect(row!.evidence["repeated-tool-call"].count).toBe(1);
  });

  it("denies it when off", () => {
    const row = replayMessages(session.messages, settings({ matchOutput: false }))[2];
    expect(row!.rule).toBe("repeated-tool-call");
    expect(row!.evidence["repeated-tool-call"].count).toBe(3);
  });
});

describe("case 7: missing token data", () => {
  const zero = { total: 0, input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };

  it.each([
    ["absent", null],
    ["all zero", zero],
  ])("no-progress abstains when token counts are %s", (_, tokens) => {
    const session = new SessionBuilder().user();
    for (let i = 0; i < 4; i++) session.step({ tool: "read", input: { filePath: `f${i}` } }, tokens).compact();
    const rows = replayMessages(session.messages, settings(), { limits: LIMITS_65K });
    expect(rows.map((r) => r.decision)).toEqual(["allow", "allow", "allow", "allow"]);
    expect(rows[3]!.evidence["no-progress"]).toEqual({
      status: "abstain",
      reason: "token sizes around the previous compaction are missing",
    });
  });

  it("the repeat rules still decide", () => {
    const session = new SessionBuilder().user();
    for (let i = 0; i < 3; i++) session.step(bash("ls"), zero).compact();
    expect(decisions(replayMessages(session.messages, settings()))).toEqual([
      [1, "allow", null],
      [2, "deny", "no-new-work"],
      [3, "deny", "repeated-tool-call"],
    ]);
  });
});

describe("case 8: a slow decline (Kilo-Org/kilocode#12769)", () => {
  it("denies at compaction 2 for 308,977 → 305,845 → 305,832 tokens", () => {
    const session = new SessionBuilder().user();
    [308_977, 305_845, 305_832, 305_841].forEach((size, i) => session.step({ tool: "read", input: { filePath: `f${i}` } }, size).compact());
    const rows = replayMessages(session.messages, settings());
    expect(decisions(rows)).toEqual([
      [1, "allow", null],
      [2, "deny", "no-progress"],
      [3, "deny", "no-progress"],
      [4, "deny", "no-progress"],
    ]);
    expect(rows[1]!.evidence["no-progress"]).toMatchObject({ triggerTokens: 308_977, afterTokens: 305_845 });
  });
});

describe("case 9: manual compactions", () => {
  const session = new SessionBuilder()
    .user()
    .step(bash("make"), 50_000)
    .compact({ auto: false })
    .step(bash("make"), 49_000)
    .step(bash("make"), 49_500)
    .compact();
  const rows = replayMessages(session.messages, settings());

  it("is never a decision point", () => {
    expect(rows).toHaveLength(1);
    expect(rows[0]!.compaction.index).toBe(1);
  });

  it("keeps its messages in the history the rules read", () => {
    // The three `make` calls straddle the manual compaction and still count.
    expect(rows[0]!.rule).toBe("repeated-tool-call");
    expect(rows[0]!.evidence["repeated-tool-call"].count).toBe(3);
    // And it is not the "previous automatic compaction" of no-progress.
    expect(rows[0]!.evidence["no-progress"]).toEqual({ status: "abstain", reason: "no earlier automatic compaction" });
  });
});

describe("replay's decision points", () => {
  it("a compaction whose summary failed is not a decision point", () => {
    const session = new SessionBuilder().user().step(bash("ls"), 9_000).compact({ failed: true });
    expect(replayMessages(session.messages, settings())).toEqual([]);
  });
});

describe("exports of the real opencode 1.18.33 driven by the e2e scenarios", () => {
  // Recorded by e2e/record-fixtures.ts; the model's limits there are 8,000 / 2,000.
  const replay = (name: string) =>
    replayMessages(fixture(`e2e-${name}.json`).messages, settings(), { limits: { context: 8_000, output: 2_000 } });

  it.each([
    [
      "fixed-point",
      [
        [1, "deny", "cannot-make-room"],
        [2, "deny", "no-progress"],
      ],
    ],
    [
      "alternating",
      [
        [1, "deny", "cannot-make-room"],
        [2, "deny", "no-progress"],
      ],
    ],
    [
      "reread",
      [
        [1, "deny", "cannot-make-room"],
        [2, "deny", "no-progress"],
      ],
    ],
    // Compaction cuts the context; the same call ran 4 times before compaction 1, which is
    // not enough (evidence on one side of a compaction), and again after it.
    [
      "repeat-with-progress",
      [
        [1, "allow", null],
        [2, "deny", "repeated-tool-call"],
      ],
    ],
    [
      "healthy",
      [
        [1, "allow", null],
        [2, "allow", null],
      ],
    ],
  ])("%s", (name, expected) => {
    expect(decisions(replay(name))).toEqual(expected);
  });

  it("the unguarded fixed point: stopped at 1 by cannot-make-room, at every later one by no-progress, the repeats firing as well", () => {
    const rows = replay("fixed-point-unguarded");
    expect(rows).toHaveLength(8);
    expect(firstDeny(rows)).toBe(1);
    expect(rows[0]!.rule).toBe("cannot-make-room");
    expect(rows.slice(1).every((r) => r.rule === "no-progress")).toBe(true);
    expect(rows[1]!.fired).toEqual(["no-progress", "no-new-work"]);
    expect(rows.slice(2).every((r) => r.fired.includes("repeated-tool-call"))).toBe(true);
  });

  it("healthy: each compaction cut the context from 6,520 tokens to a 2,000-token prompt", () => {
    expect(replay("healthy")[1]!.evidence["no-progress"]).toMatchObject({ triggerTokens: 6_520, afterTokens: 2_000, stalled: null });
  });

  it.each(["provider-overflow", "provider-overflow-replay"])(
    "%s: the provider refused every step, no size was ever recorded, and compaction 2 is denied",
    (name) => {
      const rows = replay(name);
      expect(rows.every((r) => r.triggerTokens === null && r.afterTokens === null)).toBe(true);
      expect(decisions(rows).slice(0, 2)).toEqual([
        [1, "allow", null],
        [2, "deny", "no-progress"],
      ]);
      expect(rows[1]!.evidence["no-progress"]).toMatchObject({ status: "measured", stalled: "provider-overflow-again", reduction: null });
    },
  );

  it("an overflow compaction after steps that did record sizes is judged on those sizes", () => {
    const session = new SessionBuilder().user();
    session.step({ tool: "read", input: { filePath: "a" } }, 50_000).compact();
    session.step({ tool: "read", input: { filePath: "b" } }, 20_000).step({ tool: "read", input: { filePath: "c" } }, null);
    session.compact({ overflow: true });
    const rows = replayMessages(session.messages, settings());
    expect(rows[1]!.evidence["no-progress"]).toMatchObject({ stalled: null, afterTokens: 20_000 });
  });
});

/**
 * The judgement cases in the real opencode 1.18.33: loops the guard must stop (and by which
 * rule, after which compaction), finished turns it must leave finished, and healthy work it
 * must let run to its final answer. Each case first checks that opencode produced the
 * planned shape (compactions, tool parts, finishes), then what the guard decided, live and
 * in the replay. The scripts are in scenarios.ts; what opencode did that surprised us is in
 * e2e/FINDINGS.md.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { expectFinishedTurnKept, expectHealthyRun, expectLoopStopped, LOOP_RULES } from "./expect-run.js";
import { runScenario, type RunOptions, type ScenarioRun } from "./harness.js";
import { e2eConcurrency, mapLimit } from "./pool.js";
import { replayExport } from "./replay.js";
import {
  BIG_OUTPUT_COMMAND,
  CYCLE_FILES,
  DEPLOY_COMMAND,
  EMPTY_STEP_COMPLETION_TOKENS,
  EMPTY_STEP_PROMPT_TOKENS,
  FINAL_TEXT,
  PID_COMMAND,
  POLL_COMMAND,
  REASONING_CYCLE,
  REPEATED_TEXT,
  RESERVED_CYCLE,
  RESERVED_LIMITS,
  RESERVED_TOKENS,
  STATUS_COMMAND,
  TEST_COMMAND,
  USABLE_TOKENS,
  type ScenarioName,
} from "./scenarios.js";
import type { ExportMessage, ExportPart } from "./session-export.js";
import { TOOL_LOOP_NOTICE_MARK } from "../src/model/entry.js";

const JOBS: Array<[ScenarioName, Partial<RunOptions>?]> = [
  ["four-read-cycle"],
  ["back-to-back-compactions"],
  ["double-compaction"],
  ["summary-over-line"],
  ["pid-in-output"],
  ["truncated-big-output"],
  ["poll-with-eta"],
  ["errored-repeat"],
  ["same-text-stop"],
  ["same-text-no-finish"],
  ["finished-then-restarted"],
  ["overflow-resend", { priorTurn: true }],
  ["tdd-same-failure-between-edits"],
  ["unchanged-poll-one-cycle"],
  ["reasoning-heavy-first-step"],
  ["compaction-reserved"],
];

const runs = new Map<ScenarioName, ScenarioRun>();
const run = (scenario: ScenarioName): ScenarioRun => runs.get(scenario)!;

beforeAll(async () => {
  const results = await mapLimit(JOBS, e2eConcurrency(), ([scenario, options]) =>
    runScenario({ scenario, guard: true, maxRequests: 16, ...options }),
  );
  JOBS.forEach(([scenario], i) => runs.set(scenario, results[i]!));
}, 400_000);

/** The model's steps (non-summary assistant messages) of a run's export, in order. */
const steps = (r: ScenarioRun): ExportMessage[] => r.export!.messages.filter((m) => m.info.role === "assistant" && !m.info.summary);
/** Tool parts of a run's steps, in order. */
const toolParts = (r: ScenarioRun): ExportPart[] => steps(r).flatMap((m) => m.parts.filter((p) => p.type === "tool"));
/** The steps between automatic compaction `k`'s summary and compaction k+1 (or the end). */
function cycleSteps(r: ScenarioRun, k: number): ExportMessage[] {
  const msgs = r.export!.messages;
  const compactions = r.figures!.compactions;
  const from = msgs.findIndex((m) => m.info.id === compactions[k - 1]!.messageID);
  const next = compactions[k] ? msgs.findIndex((m) => m.info.id === compactions[k]!.messageID) : msgs.length;
  return msgs.slice(from + 1, next).filter((m) => m.info.role === "assistant" && !m.info.summary);
}
const modelParts = (m: ExportMessage): ExportPart[] =>
  m.parts.filter((p) => !["step-start", "step-finish", "snapshot", "patch"].includes(p.type));
const tokensOf = (m: ExportMessage) => m.info.tokens as { total?: number; input: number; output: number; reasoning?: number };

describe("loops the guard must stop", () => {
  it("four-read-cycle: the same four reads after every compaction → no-new-work at 2", () => {
    const r = run("four-read-cycle");
    // Shape: a, b, c, d read twice, each compaction after the 4th read (6,520 tokens).
    const reads = toolParts(r).map((p) => (p.state!.input as { filePath: string }).filePath.split("/").at(-1));
    expect(reads).toEqual([...CYCLE_FILES, ...CYCLE_FILES]);
    expect(toolParts(r).every((p) => p.state!.status === "completed")).toBe(true);
    expect(expectLoopStopped(r, { rules: ["no-new-work"], deniedAt: 2 })).toBe(2);
    expect(r.figures!.continueTurns).toBe(1);
  });

  it("back-to-back-compactions: three compactions with only empty steps between → back-to-back-compactions at 3", () => {
    const r = run("back-to-back-compactions");
    // Shape: one bash step over the line, then after each summary one empty step (no text,
    // reasoning or tool part) whose hidden reasoning filled the output: finish "length",
    // 4,200 prompt + 2,000 reasoning = 6,200 ≥ 6,000, so opencode compacts again.
    expect(r.figures!.compactions.slice(0, 2).every((c) => c.next === "continue")).toBe(true);
    for (const k of [1, 2]) {
      const between = cycleSteps(r, k);
      expect(between).toHaveLength(1);
      expect(modelParts(between[0]!)).toEqual([]);
      expect(between[0]!.info.finish).toBe("length");
      expect(tokensOf(between[0]!)).toMatchObject({ input: EMPTY_STEP_PROMPT_TOKENS, reasoning: EMPTY_STEP_COMPLETION_TOKENS });
    }
    expect(expectLoopStopped(r, { rules: ["back-to-back-compactions"], deniedAt: 3 })).toBe(3);
    expect(r.figures!.continueTurns).toBe(2);
  });

  it("pid-in-output: the same failing command whose output differs only in a pid and a mktemp path → denied at 2", () => {
    const r = run("pid-in-output");
    const parts = toolParts(r);
    expect(parts).toHaveLength(8);
    expect(parts.every((p) => (p.state!.input as { command: string }).command === PID_COMMAND)).toBe(true);
    // The guard's tool-loop notice (toolLoop "warn") follows the output from the third run on;
    // the rules read the output without it (model/entry.ts `withoutToolLoopNotice`).
    const outputs = parts.map((p) => String(p.state!.output).split(TOOL_LOOP_NOTICE_MARK)[0]!);
    expect(parts.filter((p) => String(p.state!.output).includes(TOOL_LOOP_NOTICE_MARK)).length).toBeGreaterThan(0);
    // Every output is different (the shell's pid, a random temp name) …
    expect(new Set(outputs).size).toBe(8);
    // … and the same once those are masked.
    expect(new Set(outputs.map((o) => o.replace(/^\[\d+\]/, "[pid]").replace(/\/tmp\/tmp\.\w+/, "/tmp/X"))).size).toBe(1);
    expect(outputs[0]).toMatch(/^\[\d+\] FATAL: lock file exists: \/tmp\/tmp\.\w+\n$/);
    expectLoopStopped(r, { rules: ["repeated-tool-call", "no-new-work"], deniedAt: 2 });
  });

  it("truncated-big-output: the same command printing 3,000 lines, each output saved under a new tool_<id> → denied at 2", () => {
    const r = run("truncated-big-output");
    const parts = toolParts(r);
    expect(parts).toHaveLength(8);
    expect(parts.every((p) => (p.state!.input as { command: string }).command === BIG_OUTPUT_COMMAND)).toBe(true);
    const saved = parts.map((p) => /Full output saved to: (\S+)/.exec(String(p.state!.output))?.[1]);
    expect(saved.every((path) => path !== undefined && /\/tool-output\/tool_\w+$/.test(path))).toBe(true);
    expect(new Set(saved).size).toBe(8);
    expect(parts.every((p) => String(p.state!.output).startsWith("...output truncated..."))).toBe(true);
    expectLoopStopped(r, { rules: LOOP_RULES, deniedAt: 2 });
  });

  it("errored-repeat: the same call refused by a permission rule every step → denied at 2", () => {
    const r = run("errored-repeat");
    const parts = toolParts(r);
    expect(parts).toHaveLength(8);
    expect(parts.every((p) => (p.state!.input as { command: string }).command === DEPLOY_COMMAND && p.state!.status === "error")).toBe(
      true,
    );
    expect(new Set(parts.map((p) => String((p.state as { error?: unknown }).error))).size).toBe(1);
    expect(String((parts[0]!.state as { error?: unknown }).error)).toContain(
      "The user has specified a rule which prevents you from using this specific tool call",
    );
    expectLoopStopped(r, { rules: LOOP_RULES, deniedAt: 2 });
  });

  it("same-text-no-finish: text-only steps without a finish reason go on (finish unknown) and repeat → no-new-work at 2", () => {
    const r = run("same-text-no-finish");
    const all = steps(r);
    expect(all).toHaveLength(8);
    expect(all.every((m) => m.info.finish === "unknown" && m.parts.some((p) => p.type === "text" && p.text === REPEATED_TEXT))).toBe(true);
    expect(toolParts(r)).toEqual([]);
    expectLoopStopped(r, { rules: ["no-new-work"], deniedAt: 2 });
  });

  it("overflow-resend: one call, then the provider refuses the next request, every cycle (--session) → denied at 2 or 3", () => {
    const r = run("overflow-resend");
    const f = r.figures!;
    // Shape: every compaction is an overflow one; the first re-sends the user's message
    // (the hook is not asked), the later ones call the hook.
    expect(f.overflowCompactions).toBe(f.compactionCycles);
    expect(f.compactions[0]).toMatchObject({ index: 1, next: "replay", hookCalled: false });
    expect(f.compactions.slice(1).every((c) => c.hookCalled)).toBe(true);
    // Each cycle: a completed call, then the refused request (an empty message, no tokens).
    for (let k = 0; k < f.compactionCycles; k++) {
      const cycle = k === 0 ? steps(r).slice(1, 3) : cycleSteps(r, k);
      expect(cycle.map((m) => m.parts.filter((p) => p.type === "tool").length)).toEqual([1, 0]);
      expect(cycle[1]!.parts).toEqual([]);
    }
    // opencode run exits 1: its last request ended in the provider's error.
    expectLoopStopped(r, { rules: LOOP_RULES, deniedAt: [2, 3], exitCode: 1 });
    expect(r.decisions.map((d) => d.messageID)).not.toContain(f.compactions[0]!.messageID);
  });
});

describe("finished turns the guard must leave finished (turn-finished, info level)", () => {
  it("finished-then-restarted: the final answer is over the line; opencode compacts; the guard skips the continue turn", () => {
    const r = run("finished-then-restarted");
    expect(toolParts(r).map((p) => [p.tool, p.state!.status])).toEqual([
      ["read", "completed"],
      ["edit", "completed"],
    ]);
    expect(steps(r).at(-1)!.info.tokens).toMatchObject({ input: 6500 });
    expectFinishedTurnKept(r, FINAL_TEXT["finished-then-restarted"]);
  });

  it("same-text-stop: a text answer (finish stop) over the line ends the turn; a repeat would need the continue turn", () => {
    const r = run("same-text-stop");
    expect(steps(r)).toHaveLength(1);
    expectFinishedTurnKept(r, REPEATED_TEXT);
  });
});

describe("healthy work the guard must not stop", () => {
  it("double-compaction: two compactions in a row (an empty step between), then normal work to the answer", () => {
    const r = run("double-compaction");
    const between = cycleSteps(r, 1);
    expect(between).toHaveLength(1);
    expect(modelParts(between[0]!)).toEqual([]);
    expect(between[0]!.info.finish).toBe("length");
    expectHealthyRun(r, FINAL_TEXT["double-compaction"], 2);
    expect(r.figures!.compactionCycles).toBe(2);
  });

  it("poll-with-eta: the same status poll counting down to live, across a compaction", () => {
    const r = run("poll-with-eta");
    const parts = toolParts(r);
    expect(parts.every((p) => (p.state!.input as { command: string }).command === STATUS_COMMAND)).toBe(true);
    expect(parts.map((p) => String(p.state!.output).trim())).toEqual([
      ...[5, 4, 3, 2, 1].map((n) => `deploy web-1: rolling, about ${n} minutes remaining`),
      "deploy web-1: live",
    ]);
    expect(cycleSteps(r, 1).length).toBeGreaterThan(0);
    expectHealthyRun(r, FINAL_TEXT["poll-with-eta"], 1);
  });

  it("tdd-same-failure-between-edits: a new file each time, then the same failing test", () => {
    const r = run("tdd-same-failure-between-edits");
    const parts = toolParts(r);
    const writes = parts.filter((p) => p.tool === "write");
    const tests = parts.filter((p) => p.tool === "bash");
    expect(new Set(writes.map((p) => (p.state!.input as { filePath: string }).filePath)).size).toBe(writes.length);
    expect(writes.length).toBe(5);
    expect(tests.every((p) => (p.state!.input as { command: string }).command === TEST_COMMAND)).toBe(true);
    expect(new Set(tests.map((p) => p.state!.output)).size).toBe(1);
    expect(tests).toHaveLength(4);
    expectHealthyRun(r, FINAL_TEXT["tdd-same-failure-between-edits"], 2);
  });

  it("unchanged-poll-one-cycle: the same poll with the same output three times, one compaction, then the answer", () => {
    const r = run("unchanged-poll-one-cycle");
    const parts = toolParts(r);
    expect(parts).toHaveLength(3);
    expect(parts.every((p) => (p.state!.input as { command: string }).command === POLL_COMMAND)).toBe(true);
    expect(new Set(parts.map((p) => p.state!.output)).size).toBe(1);
    expectHealthyRun(r, FINAL_TEXT["unchanged-poll-one-cycle"], 1);
    expect(r.figures!.compactionCycles).toBe(1);
  });

  it("reasoning-heavy-first-step: the first step after each compaction spends ~3,900 output tokens (total under the line)", () => {
    const r = run("reasoning-heavy-first-step");
    for (const k of [1, 2]) {
      const first = cycleSteps(r, k)[0]!;
      const t = tokensOf(first);
      expect(t.input).toBe(REASONING_CYCLE[0]!.prompt);
      expect(t.total).toBe(REASONING_CYCLE[0]!.prompt + REASONING_CYCLE[0]!.completion);
      expect(t.total!).toBeLessThan(USABLE_TOKENS);
      expect(t.reasoning).toBeGreaterThan(3000);
    }
    expectHealthyRun(r, FINAL_TEXT["reasoning-heavy-first-step"], 2);
  });

  it("compaction-reserved: input limit 6,500 and compaction.reserved 500 put the line at 6,000; steps after each compaction stay at 5,000", async () => {
    const r = run("compaction-reserved");
    // opencode honoured reserved: with its default (2,000) the line would be 4,500 and the
    // first 5,000-token step would already have compacted.
    expect(
      r.requests
        .filter((q) => q.kind !== "title")
        .slice(0, 4)
        .map((q) => [q.kind, q.promptTokens]),
    ).toEqual([
      ["chat", RESERVED_CYCLE[0]],
      ["chat", RESERVED_CYCLE[1]],
      ["chat", RESERVED_CYCLE[2]],
      ["compaction", 300],
    ]);
    for (const k of [1, 2]) expect(tokensOf(cycleSteps(r, k)[0]!).input).toBe(RESERVED_CYCLE[0]);
    expectHealthyRun(r, FINAL_TEXT["compaction-reserved"], 2);
    // The live guard read reserved from opencode's config: without it (replay with the
    // limits only) the usable line is 4,500, under the first step's 5,000: compaction 1 is
    // denied (cannot-make-room) and compaction 2 would be (no-progress).
    const dir = await mkdtemp(join(tmpdir(), "ocg-e2e-reserved-"));
    try {
      const path = join(dir, "export.json");
      await writeFile(path, JSON.stringify(r.export));
      const withoutReserved = await replayExport(path, { limits: RESERVED_LIMITS });
      expect(withoutReserved.firstDeny).toBe(1);
      expect(withoutReserved.compactions[0]).toMatchObject({ decision: "deny", rule: "cannot-make-room" });
      expect(withoutReserved.compactions[1]).toMatchObject({ decision: "deny", rule: "no-progress" });
      const withReserved = await replayExport(path, { limits: RESERVED_LIMITS, reserved: RESERVED_TOKENS });
      expect(withReserved.firstDeny).toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("what opencode 1.18.33 does not do (e2e/FINDINGS.md)", () => {
  it("a summary whose own request reports a prompt over the line does not set off another compaction", () => {
    const r = run("summary-over-line");
    const summaries = r.export!.messages.filter((m) => m.info.role === "assistant" && m.info.summary === true);
    expect(summaries).toHaveLength(1);
    expect(tokensOf(summaries[0]!).input).toBeGreaterThan(USABLE_TOKENS);
    // The next thing after the summary is the continue turn and a normal step, not a compaction.
    expect(r.figures!.compactions).toMatchObject([{ index: 1, next: "continue" }]);
    expect(cycleSteps(r, 1).length).toBeGreaterThan(0);
    expectHealthyRun(r, "done", 1);
  });
});

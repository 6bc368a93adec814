/**
 * Assertions shared by the e2e test files.
 */
import { expect } from "vitest";
import type { ScenarioRun } from "./harness.js";
import { TITLE_TEXT } from "./scenarios.js";

/** A decision as [compaction index, decision, rule]. */
export type DecisionTriple = [number | null, "allow" | "deny", string | null];

/**
 * The live hook's decisions must equal the replay CLI's at every compaction where opencode
 * called the hook (the export tells which: the summary finished and no user message was
 * replayed instead). Compared as [index, decision, rule] lists, and by message id.
 */
export function expectLiveMatchesReplay(run: ScenarioRun): void {
  expect(run.replay, "guarded runs are replayed").not.toBeNull();
  expect(run.figures).not.toBeNull();
  const called = new Set(run.figures!.compactions.filter((c) => c.hookCalled).map((c) => c.messageID));
  const replayed = run.replay!.compactions.filter((r) => called.has(r.messageID));
  const live: DecisionTriple[] = run.decisions.map((d) => [d.index, d.decision, d.rule]);
  const expected: DecisionTriple[] = replayed.map((r) => [r.index, r.decision, r.rule]);
  expect(live).toEqual(expected);
  expect(run.decisions.map((d) => d.messageID)).toEqual(replayed.map((r) => r.messageID));
  // The replay's index is the compaction's place among the session's automatic compactions.
  const exportIndex = new Map(run.figures!.compactions.map((c) => [c.messageID, c.index]));
  for (const r of run.replay!.compactions) expect(r.index).toBe(exportIndex.get(r.messageID));
}

/** Every decision line carries the hook's own time, a non-negative number of ms. */
export function expectHookTimes(run: ScenarioRun): void {
  expect(run.metrics.hookMs.length).toBe(run.decisions.length);
  for (const ms of run.metrics.hookMs) expect(ms).toBeGreaterThanOrEqual(0);
}

/** The message every loop-stopping (warn) decision line starts with. */
export const STOPPED_PREFIX = "compaction-guard stopped auto-continue";
/** The message a housekeeping (info) deny line starts with: the turn had ended already. */
export const SKIPPED_PREFIX = "compaction-guard skipped auto-continue";
/** The rules that stop a loop (deny at warn level, with a toast). */
export const LOOP_RULES = ["no-progress", "back-to-back-compactions", "repeated-tool-call", "no-new-work"] as const;

/**
 * A loop the guard stopped: at compaction `deniedAt` (one of `deniedAt` when a list), by one of
 * `rules`, in one warn line, every earlier compaction allowed at info level; nothing follows
 * the denied compaction's summary; live and replay agree.
 * @returns the compaction it was denied at.
 */
export function expectLoopStopped(
  run: ScenarioRun,
  expected: { rules: readonly string[]; deniedAt: number | readonly number[]; exitCode?: number },
): number {
  expect(run.timedOut).toBe(false);
  expect(run.exitCode).toBe(expected.exitCode ?? 0);
  expect(
    run.requests.some((r) => r.reply === "cap"),
    "the guard, not the server's cap, ended the run",
  ).toBe(false);
  expect(run.metrics.ended.kind).toBe("guard-stop");
  const denials = run.decisions.filter((d) => d.decision === "deny");
  expect(denials).toHaveLength(1);
  const deny = denials[0]!;
  expect(deny.level).toBe("WARN");
  expect(expected.rules).toContain(deny.rule);
  // The session is named by its title (the scripted model's) and its id.
  expect(deny.message.startsWith(`${STOPPED_PREFIX} in session "${TITLE_TEXT}" (${run.sessionID})`)).toBe(true);
  expect(run.metrics.guardReason).toBe(deny.message);
  const accept = typeof expected.deniedAt === "number" ? [expected.deniedAt] : expected.deniedAt;
  expect(accept).toContain(deny.index);
  const at = deny.index!;
  expect(run.decisions.at(-1)).toBe(deny);
  expect(run.decisions.slice(0, -1).every((d) => d.decision === "allow" && d.level === "INFO")).toBe(true);
  const f = run.figures!;
  expect(f.compactionCycles).toBe(at);
  expect(f.compactions.at(-1)).toMatchObject({ index: at, summaryOk: true, next: "none" });
  expectLiveMatchesReplay(run);
  expect(run.replay!.firstDeny).toBe(at);
  expectHookTimes(run);
  return at;
}

/**
 * A finished turn that opencode compacted anyway: the guard skips the continue turn at
 * compaction 1 with rule turn-finished, at info level, with no warn line; `opencode run`
 * exits 0 and the final answer is the last assistant text.
 */
export function expectFinishedTurnKept(run: ScenarioRun, finalText: string): void {
  expect(run.timedOut).toBe(false);
  expect(run.exitCode).toBe(0);
  expect(run.metrics.ended.kind).toBe("guard-skip");
  expect(run.decisions.map((d) => [d.index, d.decision, d.rule, d.level])).toEqual([[1, "deny", "turn-finished", "INFO"]]);
  expect(run.decisions[0]!.message.startsWith(`${SKIPPED_PREFIX} in session "${TITLE_TEXT}" (${run.sessionID})`)).toBe(true);
  expect(run.guardLines.some((l) => l.level === "WARN")).toBe(false);
  expect(run.metrics.guardReason).toBeNull();
  const f = run.figures!;
  expect(f.compactionCycles).toBe(1);
  expect(f.continueTurns).toBe(0);
  expect(f.compactions[0]).toMatchObject({ summaryOk: true, next: "none", hookCalled: true });
  expect(f.finalAssistantText).toBe(finalText);
  expect(f.finalAssistantFinish).toBe("stop");
  expectLiveMatchesReplay(run);
  expect(run.replay!.firstDeny).toBe(1);
  expectHookTimes(run);
}

/**
 * Healthy work: the session reaches its scripted final answer and exits 0; at least
 * `minCompactions` compactions, each followed by a continue turn; every decision allow (info).
 */
export function expectHealthyRun(run: ScenarioRun, finalText: string, minCompactions: number): void {
  expect(run.timedOut).toBe(false);
  expect(run.exitCode).toBe(0);
  expect(run.metrics.ended.kind).toBe("final-answer");
  expect(run.figures!.finalAssistantText).toBe(finalText);
  expect(run.figures!.finalAssistantFinish).toBe("stop");
  expect(run.figures!.compactionCycles).toBeGreaterThanOrEqual(minCompactions);
  expect(run.figures!.continueTurns).toBe(run.figures!.compactionCycles);
  expect(run.decisions).toHaveLength(run.figures!.compactionCycles);
  expect(run.decisions.every((d) => d.decision === "allow" && d.rule === null && d.level === "INFO")).toBe(true);
  expect(run.guardLines.some((l) => l.level === "WARN")).toBe(false);
  expect(run.metrics.guardReason).toBeNull();
  expectLiveMatchesReplay(run);
  expect(run.replay!.firstDeny).toBeNull();
  expectHookTimes(run);
}

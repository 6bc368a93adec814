/**
 * Assertions shared by the e2e test files.
 */
import { expect } from "vitest";
import type { ScenarioRun } from "./harness.js";

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

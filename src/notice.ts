/**
 * What the user is told when the guard denies the synthetic continue turn. opencode shows
 * nothing when a plugin sets `enabled = false`, so this text is the user's only clue.
 * It names the session, the rule, the evidence and what to do next; tool inputs appear
 * only as a redacted preview, outputs never.
 */
import type { Verdict } from "./verdict.js";

const tokens = (n: number | null): string => (n === null ? "?" : `${n.toLocaleString("en-US")} tokens`);
const percent = (fraction: number | null): string => (fraction === null ? "?" : `${Math.round(fraction * 100)}%`);

/** One sentence of evidence for a denial, e.g. "the same bash call (command=\"echo hi\") …". */
export function describeEvidence(verdict: Verdict): string {
  const { repeatedToolCall: repeated, noProgress } = verdict.evidence;
  if (verdict.rule === "repeated-tool-call") {
    return (
      `the same ${repeated.tool} call (${repeated.preview}) completed ${repeated.count} times ` +
      `across the last ${repeated.messagesRead} assistant messages since your last message`
    );
  }
  if (verdict.rule === "no-progress" && noProgress.status === "measured") {
    if (noProgress.stalled === "provider-overflow-again") {
      return "the provider refused the request after the previous compaction as over its context limit again, so that compaction made no room";
    }
    const grew = (noProgress.reduction ?? 0) < 0;
    const change = grew
      ? `up from ${tokens(noProgress.triggerTokens)} (${percent(-(noProgress.reduction ?? 0))} larger)`
      : `down from ${tokens(noProgress.triggerTokens)} (${percent(noProgress.reduction)} smaller)`;
    const cut = `the previous compaction left ${tokens(noProgress.afterTokens)} of context, ${change}`;
    return noProgress.stalled === "still-over-usable-context"
      ? `${cut}, still over opencode's usable context of ${tokens(noProgress.usableTokens)}, so every step compacts again`
      : `${cut}, less than the ${percent(noProgress.minReduction)} needed to make progress`;
  }
  return "no rule fired";
}

/** What the user can do next, by rule. */
export function nextSteps(verdict: Verdict): string {
  return verdict.rule === "no-progress"
    ? "Reply to continue, start a new session, or free context (compaction.prune, a model with a larger context) in opencode.json."
    : "Reply to continue, start a new session, or raise the guard's threshold if this call repeats on purpose.";
}

/**
 * "compaction 2 (msg_…)", or "compaction msg_…" when its index in the session is unknown
 * (the hook read only the newest messages of a long session).
 */
function compactionName(verdict: Verdict, index: number | null): string {
  const id = verdict.compaction.messageID;
  return index === null ? `compaction ${id}` : `compaction ${index} (${id})`;
}

/** The warn log line: session, compaction, rule, evidence, next steps. */
export function denialLogMessage(sessionID: string, verdict: Verdict, index: number | null): string {
  return (
    `compaction-guard stopped auto-continue in session ${sessionID} after ${compactionName(verdict, index)}: ` +
    `${verdict.rule}: ${describeEvidence(verdict)}. ${nextSteps(verdict)}`
  );
}

/** The info log line for an allowed continue turn. */
export function allowLogMessage(sessionID: string, verdict: Verdict, index: number | null): string {
  const repeated = verdict.evidence.repeatedToolCall;
  const noProgress = verdict.evidence.noProgress;
  const progress =
    noProgress.status === "measured"
      ? `previous compaction cut the context by ${percent(noProgress.reduction)}`
      : `no-progress abstained (${noProgress.reason})`;
  return (
    `compaction-guard allowed auto-continue in session ${sessionID} after ${compactionName(verdict, index)}: ` +
    `most repeated tool call ${repeated.count}/${repeated.threshold}; ${progress}`
  );
}

/** The TUI toast for a denial: short enough to read at a glance. */
export function denialToast(verdict: Verdict): { title: string; message: string; variant: "warning" } {
  return {
    title: "Compaction loop stopped",
    message: `${verdict.rule}: ${describeEvidence(verdict)}. ${nextSteps(verdict)}`,
    variant: "warning",
  };
}

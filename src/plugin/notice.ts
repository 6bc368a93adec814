/**
 * What the user is told when the guard denies the synthetic continue turn. opencode shows
 * nothing when a plugin sets `enabled = false`, so this text is the user's only clue.
 * It names the session, the rule, the evidence and what to do next; tool inputs appear
 * only as a redacted preview, outputs never. Each rule's own words are in its file
 * (`rule.words`, read through decide/explain.ts).
 */
import { describeEvidence, nextSteps, wordsOf } from "../decide/explain.js";
import type { Evidence, Verdict } from "../decide/verdict.js";
import { percent } from "../decide/words.js";
import { terminalSafe } from "../redact/terminal-safe.js";

/**
 * "compaction 2 (msg_…)", or "compaction msg_…" when its index in the session is unknown
 * (the hook read only the newest messages of a long session).
 */
function compactionName(verdict: Verdict, index: number | null): string {
  const id = verdict.compaction.messageID;
  return index === null ? `compaction ${id}` : `compaction ${index} (${id})`;
}

/**
 * How a session is named to the user: its title and id (`"Fix the build" (ses_…)`), or its id
 * alone. The title is cut to one line of at most 60 characters.
 */
export function sessionLabel(sessionID: string, title: string | undefined): string {
  if (title === undefined) return sessionID;
  const line = title.replace(/\s+/g, " ").trim();
  const short = line.length > 60 ? `${line.slice(0, 59)}…` : line;
  return short === "" ? sessionID : `"${short}" (${sessionID})`;
}

/**
 * The log line of a denial: session, compaction, rule, evidence, next steps. A stopped loop
 * reads "stopped auto-continue" (a warn line); housekeeping reads "skipped auto-continue"
 * (an info line).
 *
 * @param session the session as {@link sessionLabel} names it.
 */
export function denialLogMessage(session: string, verdict: Verdict, index: number | null): string {
  const verb = verdict.severity === "info" ? "skipped" : "stopped";
  return (
    `compaction-guard ${verb} auto-continue in session ${session} after ${compactionName(verdict, index)}: ` +
    `${verdict.rule}: ${describeEvidence(verdict)}. ${nextSteps(verdict)}`
  );
}

/** Observe mode's line: what enforce mode would have done, and why; nothing was denied. */
export function observedLogMessage(session: string, verdict: Verdict, index: number | null): string {
  const verb = verdict.severity === "info" ? "skipped" : "stopped";
  return (
    `compaction-guard would have ${verb} auto-continue in session ${session} after ${compactionName(verdict, index)} ` +
    `(observe mode: the continue turn was added): ${verdict.rule}: ${describeEvidence(verdict)}.`
  );
}

/** "longest repeat 2 of 3 runs across a compaction", or "… 4 runs, none across a compaction yet". */
function repeatSummary(e: Evidence["repeated-tool-call"]): string {
  if (e.count === 0) return "no tool call repeated";
  return e.acrossCompaction
    ? `longest repeat ${e.count} of ${e.threshold} runs across a compaction`
    : `longest repeat ${e.count} run${e.count === 1 ? "" : "s"}, none across a compaction yet`;
}

/** What an allowed verdict saw, in a few words: the longest repeat and the previous compaction's cut. */
export function allowedBecause(verdict: Verdict): string {
  const noProgress = verdict.evidence["no-progress"];
  const progress =
    noProgress.status === "measured"
      ? `previous compaction cut the context by ${percent(noProgress.reduction)}`
      : `no-progress abstained (${noProgress.reason})`;
  return `${repeatSummary(verdict.evidence["repeated-tool-call"])}; ${progress}`;
}

/** The info log line for an allowed continue turn. */
export function allowLogMessage(sessionID: string, verdict: Verdict, index: number | null): string {
  return `compaction-guard allowed auto-continue in session ${sessionID} after ${compactionName(verdict, index)}: ${allowedBecause(verdict)}`;
}

/** The session as the toast names it: its title (up to 40 characters), else its id. */
const toastName = (sessionID: string, title: string | undefined): string => {
  const line = title?.replace(/\s+/g, " ").trim();
  return line ? `"${line.length > 40 ? `${line.slice(0, 39)}…` : line}"` : sessionID;
};

/**
 * The TUI toast for a stopped loop: a title and two short sentences (what happened, what
 * to do), which wrap cleanly at 54–60 columns. The full evidence is in the warn line.
 */
export function denialToast(verdict: Verdict, sessionID: string, title?: string): { title: string; message: string; variant: "warning" } {
  const short = verdict.rule === null ? "" : wordsOf(verdict.rule, verdict.evidence).short;
  return {
    title: "Compaction loop stopped",
    message: `${toastName(sessionID, title)} stopped: ${short}. Reply to go on; the log has the details.`,
    variant: "warning",
  };
}

/** Observe mode's toast: quieter (info), and says nothing was stopped. */
export function observedToast(verdict: Verdict, sessionID: string, title?: string): { title: string; message: string; variant: "info" } {
  const short = verdict.rule === null ? "" : wordsOf(verdict.rule, verdict.evidence).short;
  return {
    title: "Compaction guard (observe mode)",
    message: `${toastName(sessionID, title)}: ${short}. It would have stopped here; it goes on.`,
    variant: "info",
  };
}

/**
 * The note the guard leaves in the session after it stopped a loop, so that the reason is
 * still there when the user comes back (the toast is gone after a few seconds). Five lines:
 * what happened after which compaction, the session, the rule with one sentence of
 * evidence, the next step, and whose note it is. The guard writes it as a text part with `ignored: true`:
 * opencode shows it in the conversation, never sends it to the model, and the guard does
 * not take it for the user speaking (decide/history.ts).
 *
 * Each line is terminal-safe (the TUI shows it as it is).
 *
 * @param session the session as {@link sessionLabel} names it.
 */
export function denialRecord(session: string, verdict: Verdict, index: number | null): string {
  return stopRecord(
    (compaction) => `Compaction loop stopped by compaction-guard after ${compaction}: opencode's continue turn was skipped.`,
    "(A note from the compaction-guard plugin: not your message, and not sent to the model.)",
    session,
    verdict,
    index,
  );
}

/**
 * The note left in a V2 session after the guard interrupted it at a compaction (where the
 * host can write one): the same five lines as {@link denialRecord}, for an interrupt.
 */
export function v2StopRecord(session: string, verdict: Verdict, index: number | null): string {
  return stopRecord(
    (compaction) => `Compaction loop stopped by compaction-guard at ${compaction}: the session was interrupted.`,
    "(A note from the compaction-guard plugin, not your message.)",
    session,
    verdict,
    index,
  );
}

/** A stop note's five terminal-safe lines: `headline(compaction)`, the session, why, next, `footer`. */
function stopRecord(
  headline: (compaction: string) => string,
  footer: string,
  session: string,
  verdict: Verdict,
  index: number | null,
): string {
  // The compaction by its index alone when known: a message id only breaks the line in the TUI.
  const compaction = index === null ? `compaction ${verdict.compaction.messageID}` : `compaction ${index}`;
  return [
    headline(compaction),
    `Session: ${session}`,
    `Why (${verdict.rule}): ${describeEvidence(verdict)}.`,
    `Next: ${nextSteps(verdict)}`,
    footer,
  ]
    .map(terminalSafe)
    .join("\n");
}

/**
 * The log line of a stopped loop in a V2 session (opencode's V2 session runner: no continue
 * turn, so the guard interrupts the session at the compaction), or in observe mode what it
 * would have done: session, compaction, rule, evidence, and the next steps.
 *
 * @param session the session as {@link sessionLabel} names it.
 */
export function v2StopLogMessage(session: string, verdict: Verdict, index: number | null, observe: boolean): string {
  const what = observe ? "would have interrupted" : "interrupted";
  return (
    `compaction-guard ${what} V2 session ${session} at ${compactionName(verdict, index)}` +
    `${observe ? " (observe mode: the session goes on)" : ""}: ${verdict.rule}: ${describeEvidence(verdict)}.` +
    (observe ? "" : ` ${nextSteps(verdict)}`)
  );
}

/** The info line of a V2 compaction the guard let pass (the session goes on by itself). */
export function v2AllowLogMessage(sessionID: string, verdict: Verdict, index: number | null): string {
  return `compaction-guard let V2 session ${sessionID} go on after ${compactionName(verdict, index)}: ${allowedBecause(verdict)}`;
}

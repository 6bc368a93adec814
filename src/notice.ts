/**
 * What the user is told when the guard denies the synthetic continue turn. opencode shows
 * nothing when a plugin sets `enabled = false`, so this text is the user's only clue.
 * It names the session, the rule, the evidence and what to do next; tool inputs appear
 * only as a redacted preview, outputs never.
 *
 * {@link WORDS} is keyed by every rule name: a rule without words does not compile.
 */
import type { Evidence, RuleName, Verdict } from "./verdict.js";

const tokens = (n: number | null): string => (n === null ? "?" : `${n.toLocaleString("en-US")} tokens`);
const percent = (fraction: number | null): string => (fraction === null ? "?" : `${Math.round(fraction * 100)}%`);

/** A rule's words: one sentence of evidence, and the next step to suggest. */
interface Words<E> {
  readonly explain: (evidence: E) => string;
  readonly nextStep: string;
}

const REPLY = "Reply to continue, or start a new session";

const WORDS: { readonly [R in RuleName]: Words<Evidence[R]> } = {
  "no-progress": {
    explain: (e) => {
      if (e.status !== "measured") return `no-progress abstained (${e.reason})`;
      if (e.stalled === "provider-overflow-again") {
        return "the provider refused the request after the previous compaction as over its context limit again, so that compaction made no room";
      }
      const grew = (e.reduction ?? 0) < 0;
      const change = grew
        ? `up from ${tokens(e.triggerTokens)} (${percent(-(e.reduction ?? 0))} larger)`
        : `down from ${tokens(e.triggerTokens)} (${percent(e.reduction)} smaller)`;
      const cut = `the previous compaction left ${tokens(e.afterTokens)} of context, ${change}`;
      return e.stalled === "still-over-usable-context"
        ? `${cut}, still over opencode's usable context of ${tokens(e.usableTokens)}, so every step compacts again`
        : `${cut}, less than the ${percent(e.minReduction)} needed to make progress`;
    },
    nextStep: `${REPLY}, or free context (compaction.prune, a model with a larger context) in opencode.json.`,
  },
  "back-to-back-compactions": {
    explain: (e) => `${e.inARow} compactions in a row with no step between them that did anything: compaction leaves no room to work`,
    nextStep: `${REPLY}, or free context (compaction.prune, a model with a larger context) in opencode.json.`,
  },
  "repeated-tool-call": {
    explain: (e) =>
      `the same ${e.tool} call (${e.preview}) ran ${e.count} times${e.matchOutput ? " with the same result" : ""} and nothing new in between, ` +
      `before and after a compaction (last ${e.messagesRead} assistant messages since your last message)`,
    nextStep: `${REPLY}, or add the call to the guard's ignore setting if it repeats on purpose.`,
  },
  "no-new-work": {
    explain: (e) => {
      if (e.status !== "measured") return `no-new-work abstained (${e.reason})`;
      const what = e.example?.tool === "text" ? "the same text" : e.example ? `${e.example.tool} (${e.example.preview})` : "it";
      return (
        `all ${e.actions} action${e.actions === 1 ? "" : "s"} in the ${e.steps} step${e.steps === 1 ? "" : "s"} since the previous compaction ` +
        `repeated work done before it, such as ${what}, so the next cycle will repeat it again`
      );
    },
    nextStep: `${REPLY}; tell the model what is already done.`,
  },
  "turn-finished": {
    explain: () => "the model had already finished its answer when the context filled up, so a continue turn would only restart finished work",
    nextStep: "Nothing was lost; reply to go on.",
  },
};

/** The words of the rule that denied (typed by the rule's own evidence). */
function wordsOf<R extends RuleName>(rule: R, evidence: Evidence): { sentence: string; nextStep: string } {
  const words = WORDS[rule] as Words<Evidence[R]>;
  return { sentence: words.explain(evidence[rule]), nextStep: words.nextStep };
}

/** One sentence of evidence for a denial, e.g. "the same bash call (command=\"echo hi\") …". */
export function describeEvidence(verdict: Verdict): string {
  return verdict.rule === null ? "no rule fired" : wordsOf(verdict.rule, verdict.evidence).sentence;
}

/** What the user can do next, by rule. */
export function nextSteps(verdict: Verdict): string {
  return verdict.rule === null ? "" : wordsOf(verdict.rule, verdict.evidence).nextStep;
}

/**
 * "compaction 2 (msg_…)", or "compaction msg_…" when its index in the session is unknown
 * (the hook read only the newest messages of a long session).
 */
function compactionName(verdict: Verdict, index: number | null): string {
  const id = verdict.compaction.messageID;
  return index === null ? `compaction ${id}` : `compaction ${index} (${id})`;
}

/**
 * The log line of a denial: session, compaction, rule, evidence, next steps. A stopped loop
 * reads "stopped auto-continue" (a warn line); housekeeping reads "skipped auto-continue"
 * (an info line).
 */
export function denialLogMessage(sessionID: string, verdict: Verdict, index: number | null): string {
  const verb = verdict.severity === "info" ? "skipped" : "stopped";
  return (
    `compaction-guard ${verb} auto-continue in session ${sessionID} after ${compactionName(verdict, index)}: ` +
    `${verdict.rule}: ${describeEvidence(verdict)}. ${nextSteps(verdict)}`
  );
}

/** "longest repeat 2 of 3 runs across a compaction", or "… 4 runs, none across a compaction yet". */
function repeatSummary(e: Evidence["repeated-tool-call"]): string {
  if (e.count === 0) return "no tool call repeated";
  return e.acrossCompaction
    ? `longest repeat ${e.count} of ${e.threshold} runs across a compaction`
    : `longest repeat ${e.count} run${e.count === 1 ? "" : "s"}, none across a compaction yet`;
}

/** The info log line for an allowed continue turn. */
export function allowLogMessage(sessionID: string, verdict: Verdict, index: number | null): string {
  const repeated = verdict.evidence["repeated-tool-call"];
  const noProgress = verdict.evidence["no-progress"];
  const progress =
    noProgress.status === "measured"
      ? `previous compaction cut the context by ${percent(noProgress.reduction)}`
      : `no-progress abstained (${noProgress.reason})`;
  return (
    `compaction-guard allowed auto-continue in session ${sessionID} after ${compactionName(verdict, index)}: ` +
    `${repeatSummary(repeated)}; ${progress}`
  );
}

/** The TUI toast for a stopped loop: short enough to read at a glance. */
export function denialToast(verdict: Verdict): { title: string; message: string; variant: "warning" } {
  return {
    title: "Compaction loop stopped",
    message: `${verdict.rule}: ${describeEvidence(verdict)}. ${nextSteps(verdict)}`,
    variant: "warning",
  };
}

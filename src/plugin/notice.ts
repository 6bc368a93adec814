/**
 * What the user is told when the guard denies the synthetic continue turn. opencode shows
 * nothing when a plugin sets `enabled = false`, so this text is the user's only clue.
 * It names the session, the rule, the evidence and what to do next; tool inputs appear
 * only as a redacted preview, outputs never.
 *
 * {@link WORDS} is keyed by every rule name: a rule without words does not compile.
 */
import type { Evidence, RuleName, Verdict } from "../decide/verdict.js";

const tokens = (n: number | null): string => (n === null ? "?" : `${n.toLocaleString("en-US")} tokens`);
const percent = (fraction: number | null): string => (fraction === null ? "?" : `${Math.round(fraction * 100)}%`);

/** A rule's words: one sentence of evidence, a few words for the toast, and the next step to suggest. */
interface Words<E> {
  readonly explain: (evidence: E) => string;
  /** What happened in a few words, for the toast (read at a glance, at 54–60 columns). */
  readonly short: (evidence: E) => string;
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
      const reduction = e.reduction ?? 0;
      // Shown to the precision of minReduction and rounded toward it, so that a stalled cut
      // never reads as large as the cut needed ("9% smaller, less than the 10% needed").
      const decimals = Number.isInteger(Math.round(e.minReduction * 1000) / 10) ? 0 : 1;
      const scale = 100 * 10 ** decimals;
      const pct = (fraction: number, round: (x: number) => number) => `${round(fraction * scale) / 10 ** decimals}%`;
      // Floor for a cut that fell short (1e-6 absorbs float error: 0.29 × 100 = 28.999…).
      const floor = (x: number) => Math.floor(x + 1e-6);
      const cut =
        e.afterTokens === e.triggerTokens
          ? `the previous compaction left the context unchanged at ${tokens(e.afterTokens)}`
          : reduction < 0
            ? `the previous compaction left ${tokens(e.afterTokens)} of context, up from ${tokens(e.triggerTokens)} (${Math.round(-reduction * scale) === 0 ? "under 1%" : pct(-reduction, Math.round)} larger)`
            : `the previous compaction left ${tokens(e.afterTokens)} of context, down from ${tokens(e.triggerTokens)} (${pct(reduction, floor)} smaller)`;
      return e.stalled === "still-over-usable-context"
        ? `${cut}, still over opencode's usable context of ${tokens(e.usableTokens)}, so every step compacts again`
        : `${cut}, less than the ${pct(e.minReduction, Math.round)} cut needed to make progress`;
    },
    short: () => "compaction no longer frees context",
    nextStep: `${REPLY}, or free context (compaction.prune, a model with a larger context) in opencode.json.`,
  },
  "cannot-make-room": {
    explain: (e) => {
      if (e.status !== "predicted") return `cannot-make-room abstained (${e.reason})`;
      const pieces =
        `the system prompt and tools alone are ~${tokens(e.baseTokens)}, the summary ${tokens(e.summaryTokens)}, ` +
        `the kept tail ${e.tailStartID === null ? "nothing" : `at least ${tokens(e.tailTokens)}`}`;
      return e.stalled === "reduction-below-minimum"
        ? `compaction cannot free enough context in this session: ${pieces}, at least ${tokens(e.predictedTokens - e.marginTokens)} ` +
            `against the ${tokens(e.triggerTokens)} it started from, less than the ${percent(e.minReduction)} cut needed to make progress`
        : `compaction cannot get this session under the usable context: ${pieces}, ` +
            `against a usable context of ${tokens(e.usableTokens)}, so every step would compact again`;
    },
    short: () => "compaction cannot make room here",
    nextStep: `${REPLY} with a smaller system prompt or instructions (AGENTS.md), or a model with a larger context.`,
  },
  "back-to-back-compactions": {
    explain: (e) => `${e.inARow} compactions in a row with no step between them that did anything: compaction leaves no room to work`,
    short: (e) => `${e.inARow} compactions in a row, no work between`,
    nextStep: `${REPLY}, or free context (compaction.prune, a model with a larger context) in opencode.json.`,
  },
  "repeated-tool-call": {
    explain: (e) =>
      `the same ${e.tool} call (${e.preview}) ran ${e.count} times${e.matchOutput ? " with the same result" : ""} and nothing new in between, ` +
      `before and after a compaction (last ${e.messagesRead} assistant messages since your last message)`,
    short: (e) => `the same ${e.tool} call ran ${e.count} times`,
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
    short: () => "it redid the work from before the compaction",
    nextStep: `${REPLY}; tell the model what is already done.`,
  },
  "turn-finished": {
    explain: () =>
      "the model had already finished its answer when the context filled up, so a continue turn would only restart finished work",
    short: () => "the answer was already finished",
    nextStep: "Nothing was lost; reply to go on.",
  },
};

/** The words of the rule that denied (typed by the rule's own evidence). */
function wordsOf<R extends RuleName>(rule: R, evidence: Evidence): { sentence: string; short: string; nextStep: string } {
  const words = WORDS[rule] as Words<Evidence[R]>;
  return { sentence: words.explain(evidence[rule]), short: words.short(evidence[rule]), nextStep: words.nextStep };
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

/** The info log line for an allowed continue turn. */
export function allowLogMessage(sessionID: string, verdict: Verdict, index: number | null): string {
  const noProgress = verdict.evidence["no-progress"];
  const progress =
    noProgress.status === "measured"
      ? `previous compaction cut the context by ${percent(noProgress.reduction)}`
      : `no-progress abstained (${noProgress.reason})`;
  return (
    `compaction-guard allowed auto-continue in session ${sessionID} after ${compactionName(verdict, index)}: ` +
    `${repeatSummary(verdict.evidence["repeated-tool-call"])}; ${progress}`
  );
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
 * not take it for the user speaking (src/history.ts).
 *
 * @param session the session as {@link sessionLabel} names it.
 */
export function denialRecord(session: string, verdict: Verdict, index: number | null): string {
  // The compaction by its index alone when known: a message id only breaks the line in the TUI.
  const compaction = index === null ? `compaction ${verdict.compaction.messageID}` : `compaction ${index}`;
  return [
    `Compaction loop stopped by compaction-guard after ${compaction}: opencode's continue turn was skipped.`,
    `Session: ${session}`,
    `Why (${verdict.rule}): ${describeEvidence(verdict)}.`,
    `Next: ${nextSteps(verdict)}`,
    "(A note from the compaction-guard plugin: not your message, and not sent to the model.)",
  ].join("\n");
}

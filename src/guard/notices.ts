/**
 * What the user is told: the start-up lines, and at a verdict the log line, the toast and the
 * stop note, in every runtime (the words that differ by how a runtime stops a loop are in one
 * table). opencode shows nothing when a plugin sets `enabled = false`, so this text is the
 * user's only clue. It names the session, the rule, the evidence and what to do next; tool
 * inputs appear only as a redacted preview, outputs never. Each rule's own words are in its
 * file (`rule.words`, read through judge/explain.ts). What the texts say of the host (its
 * name, config file and settings) comes in as `host`, the runtime's words (`GuardHost.words`,
 * hosts/opencode/words.ts): no text here names a host itself.
 */
import type { KeptCulprits } from "../judge/culprits.js";
import { describeEvidence, nextSteps, shortWords } from "../judge/explain.js";
import type { Evidence, Verdict } from "../judge/verdict.js";
import { percent, tokens } from "../judge/words.js";
import { terminalSafe } from "../redact/terminal-safe.js";
import type { StopKind } from "./host.js";
import { describeSettings, SETTINGS, type ResolvedSettings } from "../config/settings.js";
import { VERSION } from "../shared/version.js";
import type { HostWords } from "../model/host-words.js";

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

/** The words that differ between the ways a runtime stops a loop (see {@link StopKind}). */
interface StopWords {
  /** What was done (or, in observe mode after "would have", would have been done). */
  readonly done: (verdict: Verdict) => string;
  /** The session and the preposition before the compaction: `in session S after`. */
  readonly where: (session: string) => string;
  /** What observe mode says happened instead. */
  readonly observed: string;
  /** The allow line's words before the compaction: `allowed auto-continue in session S after`. */
  readonly allowed: (sessionID: string) => string;
  /** The stop note's first line, after the compaction's name, in the host's words. */
  readonly headline: (compaction: string, host: HostWords) => string;
  /** The stop note's last line: whose note it is, and whether the model reads it. */
  readonly footer: string;
}

const WORDS: Readonly<Record<StopKind, StopWords>> = {
  "continue-turn": {
    done: (verdict) => `${verdict.severity === "info" ? "skipped" : "stopped"} auto-continue`,
    where: (session) => `in session ${session} after`,
    observed: "the continue turn was added",
    allowed: (sessionID) => `allowed auto-continue in session ${sessionID} after`,
    headline: (compaction, host) =>
      `Compaction loop stopped by compaction-guard after ${compaction}: ${host.name} did not send its automatic continue message, so the model stopped.`,
    footer: "(A note from the compaction-guard plugin: not your message, and not sent to the model.)",
  },
  interrupt: {
    done: () => "interrupted",
    where: (session) => `V2 session ${session} at`,
    observed: "the session goes on",
    allowed: (sessionID) => `let V2 session ${sessionID} go on after`,
    headline: (compaction) => `Compaction loop stopped by compaction-guard at ${compaction}: the session was interrupted.`,
    footer: "(A note from the compaction-guard plugin, not your message.)",
  },
};

/**
 * The log line of a stop at a compaction: session, compaction, rule, evidence, next steps. A
 * stopped loop reads "stopped auto-continue" (V1, a warn line) or "interrupted V2 session"; V1
 * housekeeping reads "skipped auto-continue" (an info line). In observe mode, what would have
 * been done and why, without next steps (nothing was stopped).
 *
 * @param stop how the runtime stops a loop.
 * @param session the session as {@link sessionLabel} names it.
 * @param index the compaction's index in the session, or null when unknown.
 * @param host the runtime's host words.
 */
export function stopLogMessage(
  stop: StopKind,
  session: string,
  verdict: Verdict,
  index: number | null,
  observe: boolean,
  host: HostWords,
): string {
  const words = WORDS[stop];
  return (
    `compaction-guard ${observe ? "would have " : ""}${words.done(verdict)} ${words.where(session)} ${compactionName(verdict, index)}` +
    `${observe ? ` (observe mode: ${words.observed})` : ""}: ${verdict.rule}: ${describeEvidence(verdict, host)}.` +
    (observe ? "" : ` ${nextSteps(verdict, host)}`)
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

/** The info line of a compaction the guard let pass: the continue turn allowed (V1), or the V2 session going on. */
export function allowLogMessage(stop: StopKind, sessionID: string, verdict: Verdict, index: number | null): string {
  return `compaction-guard ${WORDS[stop].allowed(sessionID)} ${compactionName(verdict, index)}: ${allowedBecause(verdict)}`;
}

/** The session as the toast names it: its title (up to 40 characters), else its id. */
const toastName = (sessionID: string, title: string | undefined): string => {
  const line = title?.replace(/\s+/g, " ").trim();
  return line ? `"${line.length > 40 ? `${line.slice(0, 39)}…` : line}"` : sessionID;
};

/** A stop at a compaction that cannot make room: what the compaction keeps, and the sizes (tokens; null when unknown). */
interface RoomStop {
  readonly culprits: KeptCulprits;
  /** What is left after the compaction: predicted at least (cannot-make-room) or measured (no-progress). */
  readonly residual: number | null;
  readonly usable: number | null;
  readonly trigger: number | null;
}

/** The culprits of a verdict whose rule is cannot-make-room or no-progress (judge/culprits.ts), else undefined. */
function roomStop(verdict: Verdict): RoomStop | undefined {
  if (verdict.rule === "cannot-make-room") {
    const e = verdict.evidence["cannot-make-room"];
    if (e.status !== "predicted" || e.culprits === undefined) return undefined;
    return { culprits: e.culprits, residual: e.predictedTokens - e.marginTokens, usable: e.usableTokens, trigger: e.triggerTokens };
  }
  if (verdict.rule === "no-progress") {
    const e = verdict.evidence["no-progress"];
    if (e.status !== "measured" || e.culprits === undefined) return undefined;
    return { culprits: e.culprits, residual: e.afterTokens, usable: e.usableTokens, trigger: e.triggerTokens };
  }
  return undefined;
}

/** One kept item in words: `bash seq 1 3000 (3 runs, ~10,500 tokens)`. */
function culpritWords(item: KeptCulprits["items"][number]): string {
  const runs = item.runs > 1 ? `${item.runs} runs, ` : "";
  return `${item.tool} ${item.preview} (${runs}~${tokens(item.tokens)})`;
}

/**
 * The remedy of a stop that cannot make room, in words; the setting that keeps less recent
 * history is the host's (`host.keepRecent` in `host.config`: V1 `compaction.preserve_recent_tokens`,
 * the 2.x runner's `keep.tokens`; a host without one is told to start a new session).
 */
function remedyWords(host: HostWords, room: RoomStop): string {
  const largest = room.culprits.items[0];
  switch (room.culprits.remedy) {
    case "narrow-output":
      if (largest?.tool === "read") return `ask for ${largest.preview} to be read in ranges (the read tool's offset and limit), not whole`;
      if (largest?.tool === "bash")
        return "ask for that command's output to be narrowed (head, tail, grep, a smaller range), not printed whole";
      return `ask for a smaller ${largest?.tool ?? "tool"} result`;
    case "keep-less":
      return (
        `${host.keepRecent === null ? "start a new session" : `lower ${host.keepRecent} in ${host.config}`}: ` +
        `compaction now keeps ~${tokens(room.culprits.keptTokens)} of recent tool calls verbatim`
      );
    case "larger-model":
      return "switch to a model with a larger context: what is left is what every request carries (system prompt, tools, summary)";
  }
}

/**
 * The two lines of a stop note that name the culprit, for cannot-make-room and no-progress:
 * the largest items the compaction keeps with the sizes (left after compaction, usable,
 * trigger), and the one remedy (its setting `host`'s); [] for any other rule or without culprits in the evidence.
 */
export function culpritLines(verdict: Verdict, host: HostWords): string[] {
  const room = roomStop(verdict);
  if (room === undefined) return [];
  const items = room.culprits.items;
  const kept = items.length === 0 ? "no tool call" : items.map(culpritWords).join("; ");
  const atLeast = verdict.rule === "cannot-make-room" ? " at least" : "";
  const sizes = `left after compaction${atLeast} ${tokens(room.residual)}, usable ${tokens(room.usable)}, trigger ${tokens(room.trigger)}`;
  return [`Kept by compaction: ${kept}; ${sizes}.`, `Fix: ${remedyWords(host, room)}.`];
}

/**
 * The TUI toast for a stopped loop: a title and two short sentences (what happened, what
 * to do, where the details are), which wrap cleanly at 54–60 columns; where compaction cannot
 * make room, one more between them naming the largest item it keeps.
 *
 * @param details where the full evidence is: `note` (the stop note the guard leaves in the
 *   session) or `log` (only the warn line, where the host takes no note).
 * @param host the runtime's host words: whose log the toast names.
 */
export function denialToast(
  verdict: Verdict,
  sessionID: string,
  title: string | undefined,
  details: "note" | "log",
  host: HostWords,
): { title: string; message: string; variant: "warning" } {
  const short = shortWords(verdict);
  const where = details === "note" ? "the note in the session says why" : `${host.name}'s log says why`;
  // The largest item the compaction keeps, when that is what does not fit.
  const largest = roomStop(verdict)?.culprits.items[0];
  const culprit = largest === undefined ? "" : ` Largest kept: ${culpritWords(largest)}.`;
  return {
    title: "Compaction loop stopped",
    message: `${toastName(sessionID, title)} stopped: ${short}.${culprit} Reply to go on; ${where}.`,
    variant: "warning",
  };
}

/** Observe mode's toast: quieter (info), and says nothing was stopped. */
export function observedToast(verdict: Verdict, sessionID: string, title?: string): { title: string; message: string; variant: "info" } {
  const short = shortWords(verdict);
  return {
    title: "Compaction guard (observe mode)",
    message: `${toastName(sessionID, title)}: ${short}. It would have stopped here; it goes on.`,
    variant: "info",
  };
}

/**
 * The note the guard leaves in the session after it stopped a loop at a compaction, so that
 * the reason is still there when the user comes back (the toast is gone after a few seconds).
 * Five lines: what happened after (V1) or at (V2) which compaction, the session, the rule with
 * one sentence of evidence, the next step, and whose note it is; for a compaction that cannot
 * make room two more after the evidence ({@link culpritLines}): what it keeps, and the fix. V1 writes it as a text part
 * with `ignored: true`: opencode shows it in the conversation, never sends it to the model, and
 * the guard does not take it for the user speaking (hosts/opencode/v1.ts); a V2 note is a
 * synthetic message, hence its shorter last line.
 *
 * Each line is terminal-safe (the TUI shows it as it is).
 *
 * @param stop how the runtime stopped the loop.
 * @param session the session as {@link sessionLabel} names it.
 * @param host the runtime's host words.
 */
export function stopRecord(stop: StopKind, session: string, verdict: Verdict, index: number | null, host: HostWords): string {
  // The compaction by its index alone when known: a message id only breaks the line in the TUI.
  const compaction = index === null ? `compaction ${verdict.compaction.messageID}` : `compaction ${index}`;
  return [
    WORDS[stop].headline(compaction, host),
    `Session: ${session}`,
    `Why (${verdict.rule}): ${describeEvidence(verdict, host)}.`,
    ...culpritLines(verdict, host),
    `Next: ${nextSteps(verdict, host)}`,
    WORDS[stop].footer,
  ]
    .map(terminalSafe)
    .join("\n");
}

/** The note left in a session the tool-loop check stopped: what happened, the session, the next step, whose note it is. */
export function toolLoopRecord(session: string, tool: string, preview: string, runs: number): string {
  return [
    `Tool loop stopped by compaction-guard: the same ${tool} call (${preview}) returned the same result ${runs} times in a row with nothing else done in between; the next run was refused and the session stopped.`,
    `Session: ${session}`,
    "Next: reply to continue (say what to do differently), or add the call to the guard's ignore setting if it repeats on purpose.",
    "(A note from the compaction-guard plugin: not your message, and not sent to the model.)",
  ].join("\n");
}

/**
 * The lines a guard writes when it starts, in order: one warn line per ignored setting, then
 * one info line saying it is disabled (and by what) or loaded with which settings.
 *
 * @param resolved the settings as config/settings.ts resolved them.
 * @param env the environment they were resolved from (names the variable that disabled the guard).
 * @param entry which entry loaded it (`OpenCode 2.x entry`), named after "loaded"; undefined for the V1 plugin.
 * @param copy the how-manieth copy of the guard in this opencode (1 = the first).
 * @param host the words of the host the plugin runs in (hosts/opencode/words.ts).
 */
export function startupLines(
  resolved: ResolvedSettings,
  env: Readonly<Record<string, string | undefined>>,
  entry: string | undefined,
  copy: number,
  host: HostWords,
): Array<{ readonly level: "warn" | "info"; readonly message: string }> {
  const lines = resolved.problems.map((problem) => ({ level: "warn" as const, message: `compaction-guard: setting ignored: ${problem}` }));
  if (!resolved.settings.enabled) {
    const source = resolved.sources.enabled;
    const by =
      source === "env"
        ? `${SETTINGS.enabled.env}=${env[SETTINGS.enabled.env]}`
        : source === "global file" || source === "project file"
          ? `enabled: false in the ${source}`
          : "the plugin option enabled: false";
    return [...lines, { level: "info", message: `compaction-guard ${VERSION} is disabled by ${by}; ${host.name} behaves as without it` }];
  }
  const loaded =
    `compaction-guard ${VERSION} loaded${entry === undefined ? "" : ` (${entry})`}: ${describeSettings(resolved)}` +
    (copy > 1 ? ` (copy ${copy} in this ${host.name}: each compaction is decided once, each notice written once)` : "");
  return [...lines, { level: "info", message: loaded }];
}

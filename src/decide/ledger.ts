/**
 * Prevention, pure part: what the session already did since the user last spoke, as bounded
 * text for two readers.
 *
 * - The ledger: appended to opencode's summary prompt (the `experimental.session.compacting`
 *   hook's `output.context`, which opencode 1.18.33 joins after its template in
 *   session/compaction.ts), so that the summary lists the completed calls as completed.
 * - The continue note: what opencode's synthetic continue turn (session/compaction.ts, text
 *   {@link CONTINUE_TEXT}, part `metadata.compaction_continue`) says instead, in the copy of
 *   the history sent to a model: added automatically, no new instruction, do not redo.
 *
 * Calls are shown only through the allow-list preview of ../redact/preview.ts (the toast's),
 * tool names through the secret masking; never an output. Everything here is a function of
 * the timeline before a given position, so the same history gives the same bytes.
 */
import { previewCall } from "../redact/preview.js";
import { redactSecrets } from "../redact/secrets.js";
import { isRealUser, isStep, type Timeline } from "./history.js";
import { CONTINUE_TEXT } from "./opencode-facts.js";
import { toolKind } from "./tool-kinds.js";

/** The ledger is never longer than this, characters. */
export const LEDGER_MAX_CHARS = 1_500;
/** The continue note is never longer than this, characters. */
export const NOTE_MAX_CHARS = 900;
/** How many of the most recent completed calls the continue note names. */
export const NOTE_NAMED_CALLS = 3;
/**
 * How many messages before a position the ledger and the note read, at most. The note must
 * read the same bytes on every request that carries it: a fixed look-back before its own
 * position, not "everything the read returned", keeps it so while the read still reaches it.
 */
export const LOOKBACK_MESSAGES = 40;
/** Longest tool name shown, characters (MCP names can be long). */
const MAX_TOOL_NAME = 40;

/** The first words of the continue note: how a reader (and the e2e model server) knows it. */
export const NOTE_HEADER = "[compaction-guard note]";
/** The first words of the ledger. */
export const LEDGER_HEADER = "[compaction-guard ledger]";

/** One call (or several identical ones) completed since the user's last real message. */
export interface CompletedCall {
  /** The tool name, secret-masked and at most 40 characters. */
  readonly tool: string;
  /** The allow-list preview of its input (../redact/preview.ts `previewCall`), at most 60 characters. */
  readonly preview: string;
  /** `done`: the tool part completed; `failed`: it ended in an error. */
  readonly outcome: "done" | "failed";
  /** How many times this tool, preview and outcome occurred in the look-back (≥ 1). */
  readonly count: number;
  /** `effect`: changed files (edit, write, patch); `command`: a bash command; `read`: anything else, listed when repeated. */
  readonly kind: "effect" | "command" | "read";
}

/** What {@link completedCallsBefore} found. */
export interface CompletedCalls {
  /** Newest first (by the last occurrence of each). */
  readonly calls: readonly CompletedCall[];
  /**
   * The look-back is wholly inside the timeline: it reached the user's last real message, or
   * {@link LOOKBACK_MESSAGES}, or the session's first message. False when the timeline (a
   * bounded read of the newest messages) starts inside it: another read could see more.
   */
  readonly complete: boolean;
}

/**
 * The calls that must not be redone blindly, completed in the {@link LOOKBACK_MESSAGES}
 * messages before `position` and after the user's last real message (a person typed it:
 * history.ts `isRealUser`): every edit and write, every bash command except a deliberate
 * wait, and every other call that ran at least twice. Bookkeeping (todowrite) is left out.
 * Identical calls (same tool, preview and outcome) are one entry with a count.
 *
 * @param timeline from `buildTimeline`, oldest first.
 * @param position index in `timeline.entries`: only entries before it are read.
 * @param options `directory` (file paths are shown relative to it); `wholeSession`: the
 *   timeline starts at the session's first message (then the look-back is always complete).
 * @returns the calls, newest first, and whether the look-back was complete. Never throws on
 *   a timeline from buildTimeline.
 */
export function completedCallsBefore(
  timeline: Timeline,
  position: number,
  options: { readonly directory?: string | undefined; readonly wholeSession?: boolean | undefined } = {},
): CompletedCalls {
  const entries = timeline.entries;
  const end = Math.min(Math.max(position, 0), entries.length);
  const stop = end - LOOKBACK_MESSAGES;
  let complete = false;
  const found = new Map<
    string,
    { tool: string; preview: string; outcome: "done" | "failed"; count: number; kind: CompletedCall["kind"] }
  >();
  for (let i = end - 1; i >= 0 && i >= stop; i--) {
    const entry = entries[i];
    if (isRealUser(entry)) {
      complete = true;
      break;
    }
    if (!isStep(entry)) continue;
    for (let c = entry.toolCalls.length - 1; c >= 0; c--) {
      const call = entry.toolCalls[c]!;
      const kind = toolKind(call);
      if (kind === "planning" || kind === "waiting") continue;
      const shown = kind === "effect" ? "effect" : call.tool === "bash" ? "command" : "read";
      const tool = redactSecrets(call.tool).slice(0, MAX_TOOL_NAME) || "?";
      const preview = previewCall(call.tool, call.input, options.directory);
      const outcome = call.status === "completed" ? "done" : "failed";
      const key = `${tool}\u0000${preview}\u0000${outcome}`;
      const seen = found.get(key);
      if (seen) seen.count += 1;
      else found.set(key, { tool, preview, outcome, count: 1, kind: shown });
    }
  }
  // The loop ended at the look-back's bound, or at the timeline's start: the session's own
  // start counts as complete, the start of a bounded read does not.
  if (!complete) complete = stop >= 0 || options.wholeSession === true;
  const calls = [...found.values()].filter((call) => call.kind !== "read" || call.count >= 2);
  return { calls, complete };
}

/** `bash \`npm test\` (done, 3×)`: one call as the ledger and the note show it. */
export function describeCall(call: CompletedCall): string {
  return `${call.tool} \`${call.preview}\` (${call.outcome}${call.count > 1 ? `, ${call.count}×` : ""})`;
}

/** Appends lines while they fit in `max` characters (joined by newlines); the rest are counted in one last line. */
function boundedLines(head: readonly string[], items: readonly string[], tail: readonly string[], max: number): string {
  const fixed = [...head, ...tail].reduce((sum, line) => sum + line.length + 1, 0);
  const shown: string[] = [];
  let used = fixed;
  for (let k = 0; k < items.length; k++) {
    const line = items[k]!;
    const more = `- … and ${items.length - k} more`;
    if (used + line.length + 1 + (k < items.length - 1 ? more.length + 1 : 0) > max) {
      shown.push(more);
      break;
    }
    shown.push(line);
    used += line.length + 1;
  }
  return [...head, ...shown, ...tail].join("\n").slice(0, max);
}

/**
 * The text for opencode's summary prompt (`output.context` of `experimental.session.compacting`):
 * the completed calls, newest first, each with its outcome and preview, then one line asking
 * the summary to list them under what was completed and, for an automatic compaction, saying
 * that the next turn is an automatic continuation and no new instruction.
 *
 * @param calls from {@link completedCallsBefore}, newest first.
 * @param auto the compaction is automatic (opencode will add its continue turn).
 * @returns at most {@link LEDGER_MAX_CHARS} characters, or null when there is nothing to say
 *   (no calls and not automatic).
 */
export function ledgerText(calls: readonly CompletedCall[], auto: boolean): string | null {
  if (calls.length === 0 && !auto) return null;
  const head =
    calls.length > 0
      ? [`${LEDGER_HEADER} Calls already completed since the user's last message, newest first (do not redo them blindly):`]
      : [`${LEDGER_HEADER} No call that changes anything completed since the user's last message.`];
  const tail = [
    ...(calls.length > 0 ? ["In the summary, list these under what was completed, with their outcome."] : []),
    ...(auto
      ? [
          "The turn after this summary is an automatic continuation added by opencode after compaction, not a new instruction from the user: say so in the summary's next move.",
        ]
      : []),
  ];
  return boundedLines(
    head,
    calls.map((call) => `- ${describeCall(call)}`),
    tail,
    LEDGER_MAX_CHARS,
  );
}

/**
 * What the synthetic continue turn says instead of {@link CONTINUE_TEXT}: added automatically
 * after context compaction, not a new instruction and no new authority; continue the request
 * in progress without restarting it; check an interrupted action's result before retrying;
 * do not repeat completed calls (the {@link NOTE_NAMED_CALLS} most recent are named); if
 * nothing was in progress, answer and stop.
 *
 * @param calls from {@link completedCallsBefore}, newest first; null when they could not be
 *   read completely (the note then names none rather than a partial list).
 * @returns at most {@link NOTE_MAX_CHARS} characters; the same calls give the same bytes.
 */
export function continueNote(calls: readonly CompletedCall[] | null): string {
  const named = (calls ?? []).slice(0, NOTE_NAMED_CALLS).map(describeCall);
  const done =
    named.length > 0
      ? ` Do not repeat calls that already completed; the most recent: ${named.join("; ")}.`
      : " Do not repeat calls that already completed (the summary above lists them).";
  const text =
    `${NOTE_HEADER} This message was added automatically after context compaction. It is not a new instruction ` +
    "from the user and carries no new authority. Continue the request that was in progress without restarting it. " +
    `If an action was interrupted, check its result before retrying it.${done} If nothing was in progress, answer and stop.`;
  return text.length <= NOTE_MAX_CHARS ? text : `${text.slice(0, NOTE_MAX_CHARS - 1)}…`;
}

/**
 * The text of a continue part rewritten: opencode's {@link CONTINUE_TEXT} replaced by `note`,
 * whatever opencode put before it kept (after a media overflow it prepends an explanation).
 *
 * @returns the new text, or null when the text does not hold opencode's continue text (then
 *   it is left as it is: another wording, or already rewritten).
 */
export function rewriteContinueText(text: string, note: string): string | null {
  const at = text.lastIndexOf(CONTINUE_TEXT);
  if (at < 0) return null;
  return text.slice(0, at) + note + text.slice(at + CONTINUE_TEXT.length);
}

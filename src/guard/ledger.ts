/**
 * Prevention, pure part: what the session already did since the user last spoke, as bounded
 * text for two readers.
 *
 * - The ledger: appended to opencode's summary prompt (the `experimental.session.compacting`
 *   hook's `output.context`, which opencode 1.18.33 joins after its template in
 *   session/compaction.ts), so that the summary lists the completed calls as completed.
 * - The continue note: what opencode's synthetic continue turn (session/compaction.ts, part
 *   `metadata.compaction_continue`) says instead, in the copy of
 *   the history sent to a model: added automatically, no new instruction, do not redo.
 *
 * Calls are shown only through the allow-list preview of ../redact/preview.ts (the toast's),
 * tool names through the secret masking; never an output. Everything here is a function of
 * the timeline before a given position, so the same history gives the same bytes.
 */
import { previewCall, shownToolName } from "../redact/preview.js";
import { isRealUser, isStep } from "../model/entry.js";
import { type Timeline } from "../model/timeline.js";
import { callKind } from "../judge/tool-kinds.js";

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
/** The first words of the continue note: how a reader (and the e2e model server) knows it. */
export const NOTE_HEADER = "[compaction-guard note]";
/** The first words of the ledger. */
export const LEDGER_HEADER = "[compaction-guard ledger]";

/**
 * One line of the ledger: a call completed since the user's last real message, run
 * {@link count} times, or several different calls that read the same (same tool, preview
 * and outcome, different inputs).
 */
export interface CompletedCall {
  /** The tool name, secret-masked, terminal-safe and at most 40 characters. */
  readonly tool: string;
  /** The allow-list preview of its input (../redact/preview.ts `previewCall`), at most 60 characters. */
  readonly preview: string;
  /** `done`: the tool part completed; `failed`: it ended in an error. */
  readonly outcome: "done" | "failed";
  /** How many times the call ran in the look-back (≥ 1); with {@link calls} > 1, the runs of all of them. */
  readonly count: number;
  /**
   * How many different calls this line stands for (≥ 1): calls differ when their tool or
   * canonical input differs (model/action.ts `Asked.comparable`), whatever
   * their previews show. Only identical calls add to a repeat count.
   */
  readonly calls: number;
  /** `effect`: changed files (edit, write, patch); `command`: a bash command; `read`: anything else. */
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

/** One distinct call found by {@link completedCallsBefore}, before the filter and the grouping. */
interface Found {
  readonly tool: string;
  readonly preview: string;
  readonly outcome: "done" | "failed";
  readonly kind: CompletedCall["kind"];
  /** `tool` and the file it reads, for a read of a file; undefined otherwise. */
  readonly target: string | undefined;
  count: number;
}

/**
 * The calls that must not be redone blindly, completed in the {@link LOOKBACK_MESSAGES}
 * messages before `position` and after the user's last real message (a person typed it:
 * history.ts `isRealUser`): every edit and write, every bash command except a deliberate
 * wait, every other call that ran at least twice, and every read of a file read more than
 * once (the pages of one file, each listed). Bookkeeping (todowrite) is left out.
 *
 * A call is identified by its tool, its canonical input (model/action.ts `Asked.comparable`:
 * without the free-text `description`, keys sorted) and its outcome: only the same call run
 * again adds to a count, so two pages of a file or two commands that differ in an argument
 * are never one call run twice. Different calls whose previews read the same (the preview
 * hides what tells them apart) share one line whose {@link CompletedCall.calls} says how many
 * they are.
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
  const found = new Map<string, Found>();
  /** Runs per file read, by tool and file. */
  const reads = new Map<string, number>();
  for (let i = end - 1; i >= 0 && i >= stop; i--) {
    const entry = entries[i];
    if (isRealUser(entry)) {
      complete = true;
      break;
    }
    if (!isStep(entry)) continue;
    for (let c = entry.toolCalls.length - 1; c >= 0; c--) {
      const call = entry.toolCalls[c]!;
      const kind = callKind(call);
      if (kind === "plan" || kind === "wait") continue;
      const outcome = call.status === "completed" ? "done" : "failed";
      const key = `${call.tool}\u0000${outcome}\u0000${call.action.asked.comparable}`;
      const seen = found.get(key);
      if (seen) {
        seen.count += 1;
      } else {
        const shown = kind === "change" ? "effect" : call.action.kind === "shell" ? "command" : "read";
        const file = shown === "read" ? call.action.asked.path : null;
        found.set(key, {
          tool: shownToolName(call.tool),
          preview: previewCall(call.tool, call.input, options.directory),
          outcome,
          kind: shown,
          target: file === null ? undefined : `${call.tool}\u0000${file}`,
          count: 1,
        });
      }
      const target = found.get(key)!.target;
      if (target !== undefined) reads.set(target, (reads.get(target) ?? 0) + 1);
    }
  }
  // The loop ended at the look-back's bound, or at the timeline's start: the session's own
  // start counts as complete, the start of a bounded read does not.
  if (!complete) complete = stop >= 0 || options.wholeSession === true;
  const lines = new Map<string, { -readonly [K in keyof CompletedCall]: CompletedCall[K] }>();
  for (const call of found.values()) {
    const listed = call.kind !== "read" || call.count >= 2 || (call.target !== undefined && reads.get(call.target)! >= 2);
    if (!listed) continue;
    const key = `${call.tool}\u0000${call.preview}\u0000${call.outcome}`;
    const line = lines.get(key);
    if (line) {
      line.calls += 1;
      line.count += call.count;
    } else {
      lines.set(key, { tool: call.tool, preview: call.preview, outcome: call.outcome, count: call.count, calls: 1, kind: call.kind });
    }
  }
  return { calls: [...lines.values()], complete };
}

/**
 * One line as the ledger and the note show it: `bash \`npm test\` (done, 3×)` for one call run
 * three times; `bash \`echo …\` (done, 6 different calls)` for calls the preview cannot tell
 * apart, with `, N runs` when some of them ran more than once.
 */
export function describeCall(call: CompletedCall): string {
  const times =
    call.calls > 1
      ? `, ${call.calls} different calls${call.count > call.calls ? `, ${call.count} runs` : ""}`
      : call.count > 1
        ? `, ${call.count}×`
        : "";
  return `${call.tool} \`${call.preview}\` (${call.outcome}${times})`;
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
 * What the synthetic continue turn says instead of the host's continue text: added automatically
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

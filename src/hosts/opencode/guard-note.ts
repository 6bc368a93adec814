/**
 * The guard's own mark in an opencode session: the stop note it leaves once a session it
 * stopped has gone idle (plugin/opencode-v1/stop-note.ts writes it; ./v1.ts reads it into
 * `UserEntry.guardNote`, so that the audit does not report a loop the guard already stopped
 * as one it would have stopped).
 */
import type { GuardStop } from "../../model/entry.js";
import { isRecord } from "../../shared/record.js";

/** The key of a stop note's text-part `metadata`. */
export const GUARD_NOTE_KEY = "compaction_guard";

/** What `metadata.compaction_guard.note` says: a denied continue turn, or a refused tool call. */
export const GUARD_NOTE_KINDS = { compaction: "loop-stopped", toolLoop: "tool-loop-stopped" } as const;

const KINDS: ReadonlySet<unknown> = new Set(Object.values(GUARD_NOTE_KINDS));

/**
 * Is this message (an `opencode export` message, `{ info, parts }`) the guard's stop note: a
 * user message with a text part marked `ignored: true` whose `metadata.compaction_guard.note`
 * is `loop-stopped` or `tool-loop-stopped`? Never throws; false for anything else.
 */
export function isGuardNote(message: unknown): boolean {
  if (!isRecord(message) || !isRecord(message.info) || message.info.role !== "user" || !Array.isArray(message.parts)) return false;
  return message.parts.some(
    (part) =>
      isRecord(part) &&
      part.type === "text" &&
      part.ignored === true &&
      isRecord(part.metadata) &&
      isRecord(part.metadata[GUARD_NOTE_KEY]) &&
      KINDS.has(part.metadata[GUARD_NOTE_KEY].note),
  );
}

/**
 * The guard's stop in one `opencode export` message (`{ info, parts }`), from the first text
 * part that {@link isGuardNote} recognises: the note's metadata gives the kind, the rule and
 * the compaction; the usable context comes from the metadata's `usableTokens` when it has one,
 * else from the note's words `usable context of N tokens` (the reasons of cannot-make-room and
 * no-progress with limits say it), else null. Null for any other message; never throws.
 */
export function guardStopOf(message: unknown): GuardStop | null {
  if (!isGuardNote(message)) return null;
  for (const part of (message as { parts: unknown[] }).parts) {
    if (!isRecord(part) || part.type !== "text" || part.ignored !== true || !isRecord(part.metadata)) continue;
    const record = part.metadata[GUARD_NOTE_KEY];
    if (!isRecord(record) || !KINDS.has(record.note)) continue;
    const text = typeof part.text === "string" ? part.text : "";
    const stated = typeof record.usableTokens === "number" ? tokensOf(String(record.usableTokens)) : null;
    return {
      kind: record.note === GUARD_NOTE_KINDS.toolLoop ? "tool-loop" : "compaction",
      rule: typeof record.rule === "string" ? record.rule : null,
      compactionMessageID: typeof record.compactionMessageID === "string" ? record.compactionMessageID : null,
      usableTokens: stated ?? tokensOf(/usable context of ([\d,]+) tokens/.exec(text)?.[1]),
    };
  }
  return null;
}

/** A whole number of tokens written with thousands separators (`6,000`), or null. */
function tokensOf(text: string | undefined): number | null {
  const n = text === undefined ? NaN : Number(text.replace(/,/g, ""));
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

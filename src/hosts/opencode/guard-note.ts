/**
 * The guard's own mark in an opencode session: the stop note it leaves once a session it
 * stopped has gone idle (plugin/stop-note.ts writes it; ./v1.ts reads it into
 * `UserEntry.guardNote`, so that the audit does not report a loop the guard already stopped
 * as one it would have stopped).
 */
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

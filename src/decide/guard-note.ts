/**
 * The guard's own mark in a session's history: the stop note it leaves once a session it
 * stopped has gone idle (plugin/guard.ts writes it; the audit reads it, so that a loop the
 * guard already stopped is not reported as one it would have stopped).
 */
import { isRecord } from "../shared/record.js";

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
 * What the live guard did, as its stop note in the session says: `kind` `compaction` (it
 * denied the continue turn after the compaction message `compactionMessageID`, by `rule`) or
 * `tool-loop` (it refused a repeated call and stopped the session); `usableTokens` the usable
 * context (tokens) it decided against, when the note states one, else null.
 */
export interface LiveGuardStop {
  readonly kind: "compaction" | "tool-loop";
  readonly rule: string | null;
  readonly compactionMessageID: string | null;
  readonly usableTokens: number | null;
}

/**
 * The guard's record and text in one `opencode export` message (`{ info, parts }`): the first
 * text part that {@link isGuardNote} recognises; null for any other message. The one place
 * that reads the raw message shape. Never throws.
 */
function noteRecord(message: unknown): { record: Record<string, unknown>; text: string } | null {
  if (!isGuardNote(message)) return null;
  for (const part of (message as { parts: unknown[] }).parts) {
    if (!isRecord(part) || part.type !== "text" || part.ignored !== true || !isRecord(part.metadata)) continue;
    const record = part.metadata[GUARD_NOTE_KEY];
    if (isRecord(record) && KINDS.has(record.note)) return { record, text: typeof part.text === "string" ? part.text : "" };
  }
  return null;
}

/** A whole number of tokens written with thousands separators (`6,000`), or null. */
const tokensOf = (text: string | undefined): number | null => {
  const n = text === undefined ? NaN : Number(text.replace(/,/g, ""));
  return Number.isSafeInteger(n) && n > 0 ? n : null;
};

/**
 * The live guard's stops in a session, oldest first, from its stop notes: the note's
 * metadata gives the kind, the rule and the compaction; the usable context comes from the
 * metadata's `usableTokens` when it has one, else from the note's words `usable context of
 * N tokens` (the reasons of cannot-make-room and no-progress with limits say it), else null.
 * Never throws; [] for a session without a note.
 */
export function liveGuardStops(messages: readonly unknown[]): LiveGuardStop[] {
  const stops: LiveGuardStop[] = [];
  for (const message of messages) {
    const note = noteRecord(message);
    if (note === null) continue;
    const { record, text } = note;
    const stated = typeof record.usableTokens === "number" ? tokensOf(String(record.usableTokens)) : null;
    stops.push({
      kind: record.note === GUARD_NOTE_KINDS.toolLoop ? "tool-loop" : "compaction",
      rule: typeof record.rule === "string" ? record.rule : null,
      compactionMessageID: typeof record.compactionMessageID === "string" ? record.compactionMessageID : null,
      usableTokens: stated ?? tokensOf(/usable context of ([\d,]+) tokens/.exec(text)?.[1]),
    });
  }
  return stops;
}

/** A compaction of a replayed session: its index (1-based) and its message id. */
export interface NumberedCompaction {
  readonly index: number;
  readonly messageID: string;
}

/** The index (1-based) of the compaction a stop names, or null (a tool loop, or a compaction not among `compactions`). */
export function liveStopIndex(stop: LiveGuardStop, compactions: readonly NumberedCompaction[]): number | null {
  if (stop.kind !== "compaction") return null;
  return compactions.find((c) => c.messageID === stop.compactionMessageID)?.index ?? null;
}

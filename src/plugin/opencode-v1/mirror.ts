/**
 * What the guard has already read of each session, kept up to date from opencode's `event`
 * hook: `message.updated` carries a message's info, `message.part.updated` each part as
 * stored (a tool part with its state and output), `message.removed` / `message.part.removed`
 * take them out. A per-step hook (the tool-time check, the continue-note rewrite) then reads
 * the newest messages from here instead of asking `session.messages` for them again; opencode
 * is read only when a session has no state yet (first sight, a restart) or when a hook asks
 * for more messages than are kept.
 *
 * Of each part it keeps what the guard reads ({@link keptPart}): not a tool call's metadata,
 * which for a bash call holds its output a second time.
 *
 * A session is kept only once it was read (seeded); events of other sessions are not kept.
 * What is kept lives in the session's record of the guard's store (./sessions.ts: the newest
 * {@link MAX_MIRRORED_SESSIONS} sessions used, and forgotten when the session is deleted).
 * Events that arrive while a read is under way are applied after it, and an older event never
 * turns a finished part (a completed or failed tool call, a text with its end time) back into
 * an unfinished one, so that a read racing the stream keeps the newer state.
 */
import type { Timeline } from "../../model/timeline.js";
import { isRecord } from "../../shared/record.js";
import {
  createSessionStore,
  MAX_SESSIONS,
  type MirroredMessage,
  type MirroredSession,
  type SessionRecord,
  type SessionStore,
} from "./sessions.js";

/**
 * A session's newest messages for a decision at a compaction, oldest first, and their
 * timeline: those kept when `current` finds in their timeline what the decision is about,
 * else read from opencode. `from` says which; `timelineMs` is the part of the call spent
 * building timelines (ms; the kept messages' and, when they were not current, the read
 * ones'). Rejects when the read fails.
 */
export type DecisionRead = (
  sessionID: string,
  current: (timeline: Timeline) => boolean,
) => Promise<{
  readonly data: readonly unknown[];
  readonly timeline: Timeline;
  readonly from: "mirror" | "opencode";
  readonly timelineMs: number;
}>;

/** Sessions kept at once (the store's, ./sessions.ts); the least recently used is dropped first. */
export const MAX_MIRRORED_SESSIONS = MAX_SESSIONS;

/** The per-session mirror of one guard: {@link createMirror}. */
export interface SessionMirror {
  /** Applies one event of the `event` hook (anything else is ignored). Never throws. */
  readonly event: (event: unknown) => void;
  /**
   * The newest `count` messages of the session, oldest first (fewer when that is the whole
   * session), when they are kept; undefined when the session must be read.
   */
  readonly newest: (sessionID: string, count: number) => unknown[] | undefined;
  /**
   * Reads the session with `read` (its newest `count` messages, oldest first) and keeps them;
   * events of the session that arrive meanwhile are applied after. Resolves what `read`
   * resolved (undefined: nothing read, nothing kept). Rejects as `read` does.
   */
  readonly seed: (sessionID: string, count: number, read: () => Promise<readonly unknown[] | undefined>) => Promise<unknown[] | undefined>;
  /** The seed of the session under way (what {@link seed} will resolve), or undefined when none is. */
  readonly seeding: (sessionID: string) => Promise<unknown[] | undefined> | undefined;
  /** Is the session kept (seeded, and not forgotten since: ./sessions.ts)? */
  readonly kept: (sessionID: string) => boolean;
  /** Sessions kept (for tests: at most {@link MAX_MIRRORED_SESSIONS}). */
  readonly sessions: () => number;
}

const idOf = (value: Record<string, unknown>): string => (typeof value.id === "string" ? value.id : "");

/** True for a part that will change no more: a completed or failed tool call, or a part with its end time. */
function finished(part: Record<string, unknown>): boolean {
  const state = isRecord(part.state) ? part.state.status : undefined;
  if (state === "completed" || state === "error") return true;
  return isRecord(part.time) && typeof part.time.end === "number";
}

/**
 * A stored part as the mirror keeps it: without the fields no reader of kept messages reads
 * (the timeline, ../../hosts/opencode/v1.ts and tool-call.ts; the `/guard` switch and the stop
 * note, which read text parts only). A tool call's `state.metadata` (opencode's bash tool
 * keeps the output there a second time, up to 30,000 characters), `title`, `attachments` and
 * `raw`; a reasoning part's `text` and `metadata`; a file part's `url` (a data URL holds the
 * file) and `source`. Every other part, and every other field, is kept as stored.
 */
export function keptPart(part: Record<string, unknown>): Record<string, unknown> {
  if (part.type === "tool" && isRecord(part.state)) {
    const { metadata, title, attachments, raw, ...state } = part.state;
    if (metadata === undefined && title === undefined && attachments === undefined && raw === undefined) return part;
    return { ...part, state };
  }
  if (part.type === "reasoning" && (part.text !== undefined || part.metadata !== undefined)) {
    const { text, metadata, ...rest } = part;
    return rest;
  }
  if (part.type === "file" && (part.url !== undefined || part.source !== undefined)) {
    const { url, source, ...rest } = part;
    return rest;
  }
  return part;
}

/** The index at which the item with `id` is, or would be inserted, in `list` sorted by `key`. */
function position<T>(list: readonly T[], id: string, key: (item: T) => string): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (key(list[mid]!) < id) low = mid + 1;
    else high = mid;
  }
  return low;
}
const messageKey = (kept: MirroredMessage): string => idOf(kept.info);
const partKey = (part: Record<string, unknown>): string => idOf(part);
/** The item with `id` in `list` sorted by `key`, and its index. */
function find<T>(list: readonly T[], id: string, key: (item: T) => string): { at: number; item: T | undefined } {
  const at = position(list, id, key);
  const item = list[at];
  return { at, item: item !== undefined && key(item) === id ? item : undefined };
}
const byKey =
  <T>(key: (item: T) => string) =>
  (a: T, b: T): number =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/**
 * Builds a mirror that keeps each session in its record of `sessions` (slots `mirror`, and
 * while a read is under way `mirrorEvents` and `seeding`); by default a store of its own.
 */
export function createMirror(sessions: SessionStore = createSessionStore()): SessionMirror {
  /** The kept message `id` of `state`, made when `info` is given and it is missing. */
  const messageOf = (state: MirroredSession, id: string, info?: Record<string, unknown>): MirroredMessage | undefined => {
    const list = state.messages;
    const { at, item } = find(list, id, messageKey);
    if (item !== undefined || info === undefined) return item;
    // A message older than every kept one, in a session not kept whole, is not this mirror's.
    if (at === 0 && list.length > 0 && !state.whole) return undefined;
    const kept: MirroredMessage = { info, parts: [] };
    list.splice(at, 0, kept);
    if (list.length > state.cap) {
      list.splice(0, list.length - state.cap);
      state.whole = false;
    }
    return kept;
  };

  const apply = (state: MirroredSession, type: string, properties: Record<string, unknown>): void => {
    if (type === "message.updated" && isRecord(properties.info)) {
      const info = properties.info;
      const kept = messageOf(state, idOf(info), info);
      if (kept && kept.info !== info) {
        const done = isRecord(kept.info.time) && typeof kept.info.time.completed === "number";
        if (!done || (isRecord(info.time) && typeof info.time.completed === "number")) kept.info = info;
      }
    } else if (type === "message.part.updated" && isRecord(properties.part)) {
      const part = keptPart(properties.part);
      const kept = typeof part.messageID === "string" ? messageOf(state, part.messageID) : undefined;
      if (!kept) return;
      const { at, item: old } = find(kept.parts, idOf(part), partKey);
      if (old === undefined) kept.parts.splice(at, 0, part);
      else if (!finished(old) || finished(part)) kept.parts[at] = part;
    } else if (type === "message.removed" && typeof properties.messageID === "string") {
      const { at, item } = find(state.messages, properties.messageID, messageKey);
      if (item !== undefined) state.messages.splice(at, 1);
    } else if (type === "message.part.removed" && typeof properties.messageID === "string" && typeof properties.partID === "string") {
      const kept = messageOf(state, properties.messageID);
      if (!kept) return;
      const { at, item } = find(kept.parts, properties.partID, partKey);
      if (item !== undefined) kept.parts.splice(at, 1);
    }
  };

  /** The session an event is about, from its properties. */
  const sessionOf = (properties: Record<string, unknown>): unknown =>
    isRecord(properties.info) ? properties.info.sessionID : isRecord(properties.part) ? properties.part.sessionID : properties.sessionID;

  const event: SessionMirror["event"] = (input) => {
    try {
      if (!isRecord(input) || typeof input.type !== "string" || !isRecord(input.properties)) return;
      const { type, properties } = input;
      if (!type.startsWith("message.")) return;
      const sessionID = sessionOf(properties);
      if (typeof sessionID !== "string") return;
      const record = sessions.find(sessionID);
      record?.mirrorEvents?.push(input);
      if (record?.mirror) apply(record.mirror, type, properties);
    } catch {
      // An event the mirror cannot read: the next read of the session fixes what it missed.
    }
  };

  const newest: SessionMirror["newest"] = (sessionID, count) => {
    const state = sessions.find(sessionID)?.mirror;
    if (!state || (!state.whole && state.messages.length < count)) return undefined;
    sessions.use(sessionID);
    // Copies of the lists: events that come while the caller reads them change only the mirror.
    return state.messages.slice(-count).map((kept) => ({ info: kept.info, parts: [...kept.parts] }));
  };

  const seed: SessionMirror["seed"] = (sessionID, count, read) => {
    let record: SessionRecord | undefined;
    const running = sessions.hold(sessionID, (held) => seedOnce(sessionID, (record = held), count, read));
    record!.seeding = running;
    const done = () => void (record!.seeding === running && (record!.seeding = undefined));
    running.then(done, done);
    return running;
  };

  /** Reads the session and keeps what it read in `record`, its record, unless the session is forgotten meanwhile. */
  const seedOnce = async (sessionID: string, record: SessionRecord, count: number, read: () => Promise<readonly unknown[] | undefined>) => {
    const buffer: unknown[] = [];
    const before = record.mirrorEvents;
    record.mirrorEvents = buffer;
    try {
      const data = await read();
      if (data === undefined) return undefined;
      if (!sessions.current(sessionID, record)) return [...data];
      const messages: MirroredMessage[] = [];
      for (const message of data) {
        if (isRecord(message) && isRecord(message.info) && Array.isArray(message.parts))
          messages.push({ info: message.info, parts: message.parts.filter(isRecord).map(keptPart) });
      }
      messages.sort(byKey(messageKey));
      for (const kept of messages) kept.parts.sort(byKey(partKey));
      const state: MirroredSession = { messages, cap: Math.max(count, record.mirror?.cap ?? 0), whole: data.length < count };
      for (const e of buffer) {
        const { type, properties } = e as { type: string; properties: Record<string, unknown> };
        apply(state, type, properties);
      }
      record.mirror = state;
      sessions.use(sessionID);
      return [...data];
    } finally {
      if (before) before.push(...buffer);
      record.mirrorEvents = before;
    }
  };

  return {
    event,
    newest,
    seed,
    seeding: (sessionID) => sessions.find(sessionID)?.seeding,
    kept: (sessionID) => sessions.find(sessionID)?.mirror !== undefined,
    sessions: () => sessions.holding("mirror"),
  };
}

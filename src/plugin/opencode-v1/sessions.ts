/**
 * Everything one copy of the V1 guard keeps about a session, in one record per session id:
 * one slot per concern, each written and read by the hook module named beside it, and one
 * policy for how long a record lives. The modules keep their logic; the store keeps their state.
 *
 * Lifetimes:
 *
 * - Working slots, kept while the session is among the newest {@link MAX_SESSIONS} used (a
 *   hook acting for the session uses it; an event the mirror applies does not): what the
 *   mirror holds of the session (./mirror.ts), the look-ups started at a compaction
 *   (./lookups.ts), the continue notes already sent (./prevent.ts), the tool-loop chain logged
 *   and armed (./tool-loop.ts). Each can be had again after an eviction: the mirror reads the
 *   session again, a decision starts its own look-ups, a note is made again from the history
 *   (the same text while the turn and the calls before its compaction are in the read), the
 *   tool-loop check judges the next call of a chain from the history again.
 * - Kept slots, which survive eviction, up to {@link MAX_KEPT_SESSIONS} sessions (the least
 *   recently used dropped first): the `/guard` switch the user set or that was found
 *   (./command.ts; a look-up that found none is not kept, it finds none again), and a stop note
 *   waiting for its session to go idle (./stop-note.ts). A switch is read back from the
 *   session's history only within the guard's bounded read, and from the switch file only when
 *   that could be written; a waiting note is owed to the user, and written within seconds.
 * - Work under way that writes back into the record (a read being kept by the mirror, a
 *   switch being looked up) holds the record: it is not evicted until that work is done.
 *
 * A session's deletion (`session.deleted`, ./events.ts) forgets every slot at once, here
 * ({@link SessionStore.forget}); nothing else forgets a whole session.
 *
 * Each copy of the guard has its own store: with the plugin listed twice, each copy keeps what
 * it read and did, and ./registry.ts decides which copy acts.
 */
import type { JudgedAhead } from "../../guard/decide-at.js";
import type { TimelineSteps } from "../../judge/view.js";
import type { SessionMode } from "./guard-command.js";

/** Sessions whose working slots are kept at once; the least recently used is evicted first. */
export const MAX_SESSIONS = 8;
/** Sessions whose kept slots outlive their eviction (the least recently used dropped first). */
export const MAX_KEPT_SESSIONS = 1_000;

/** One message as `client.session.messages` returns it, as the mirror keeps it. */
export interface MirroredMessage {
  info: Record<string, unknown>;
  parts: Record<string, unknown>[];
}

/** What the mirror keeps of a session (./mirror.ts). */
export interface MirroredSession {
  /** Oldest first, by message id (opencode's ids sort in creation order). */
  readonly messages: MirroredMessage[];
  /** How many of the newest messages are kept (the largest count read); older ones are dropped. */
  cap: number;
  /** True while the kept messages start at the session's first message. */
  whole: boolean;
}

/** The look-ups of one compaction: resolve as the V1 host's `readReserved` and `readSession` do, and the steps judged ahead (undefined: none). */
export interface CompactionLookups {
  readonly reserved: Promise<number | undefined>;
  readonly session: Promise<{ title: string | undefined; subagent: boolean }>;
  readonly judged: Promise<JudgedAhead | undefined>;
}

/** A stop note waiting for its session to go idle (./stop-note.ts). */
export interface PendingNote {
  readonly text: string;
  /**
   * `compaction`: a denied continue turn (the note is stale once anything came after that
   * compaction's summary); `tool-loop`: a refused call (./tool-loop.ts; stale once the
   * last message is not the stopped assistant step).
   */
  readonly kind: "compaction" | "tool-loop";
  /** The compaction message whose continue turn was denied ("" for a tool loop). */
  readonly compactionID: string;
  readonly rule: string | null;
  /** The agent and model of that compaction message, so the note changes neither for the session. */
  readonly agent: string | undefined;
  readonly model: { readonly providerID: string; readonly modelID: string } | undefined;
  readonly variant: string | undefined;
}

/** The tool-loop check's state of a session (./tool-loop.ts): the chain already logged, and (stop mode) the call to refuse next. */
export interface ToolLoopState {
  logged?: string;
  /** The armed call was refused once already (the note is waiting, the abort sent). */
  refused?: boolean;
  armed?: { readonly key: string; readonly runs: number; readonly tool: string; readonly preview: string };
}

/** What is kept of one session; every slot is undefined until its module sets it. */
export interface SessionRecord {
  /** Working (./mirror.ts): the session's newest messages, kept up to date from its events. */
  mirror?: MirroredSession;
  /** Under way (./mirror.ts): events of the session that came during the reads being kept, applied after them. */
  mirrorEvents?: unknown[];
  /** Under way (./mirror.ts): the newest read being kept (what it will resolve). */
  seeding?: Promise<unknown[] | undefined>;
  /** Under way (./guard.ts): the first read outlasted a step's budget (said once). */
  firstReadLate?: boolean;
  /** Working (./lookups.ts): the look-ups started at the compaction whose `compaction` part is `partID`. */
  lookups?: CompactionLookups & { readonly partID: string };
  /** Working (./prevent.ts): the continue note sent for each continue message, by message id, the newest 16. */
  continueNotes?: Map<string, string>;
  /** Working (./tool-loop.ts). */
  toolLoop?: ToolLoopState;
  /** Kept (./command.ts): the `/guard` switch, null when a look-up found none (not kept past eviction). */
  mode?: SessionMode | null;
  /** Under way (./command.ts): the switch being looked up; a second caller waits for it. */
  lookingUp?: Promise<SessionMode | undefined>;
  /** Kept (./stop-note.ts): the note to write when the session goes idle. */
  stopNote?: PendingNote;
}

/** The per-session store of one guard: {@link createSessionStore}. */
export interface SessionStore {
  /**
   * The session's record, now the newest used: made when it has none (holding what its
   * eviction kept, if anything). Evicts the least recently used record beyond
   * {@link MAX_SESSIONS} that holds no work under way, never the one returned.
   */
  readonly use: (sessionID: string) => SessionRecord;
  /** The session's record, if it has one (an evicted one holds only its kept slots); not a use. */
  readonly find: (sessionID: string) => SessionRecord | undefined;
  /**
   * Runs `work` on the session's record (a use), which is not evicted until `work` settles.
   * Resolves or rejects as `work` does.
   */
  readonly hold: <T>(sessionID: string, work: (record: SessionRecord) => Promise<T>) => Promise<T>;
  /** Forgets the session, every slot (it was deleted). A record held by work under way is forgotten too: that work keeps nothing. */
  readonly forget: (sessionID: string) => void;
  /** Is `record` still the session's (not forgotten since it was taken)? */
  readonly current: (sessionID: string, record: SessionRecord) => boolean;
  /** How many sessions hold `slot` (for tests and the modules' counts). */
  readonly holding: (slot: keyof SessionRecord) => number;
}

/** Clears the working slots of `record` (its eviction); true when a kept slot remains. */
function evict(record: SessionRecord): boolean {
  record.mirror = undefined;
  record.lookups = undefined;
  record.continueNotes = undefined;
  record.toolLoop = undefined;
  if (record.mode === null) record.mode = undefined;
  return record.mode !== undefined || record.stopNote !== undefined;
}

/** Builds an empty store. */
export function createSessionStore(): SessionStore {
  /** Records with their working slots, least recently used first. */
  const recent = new Map<string, SessionRecord>();
  /** Evicted records that hold a kept slot, least recently used first. */
  const kept = new Map<string, SessionRecord>();
  /** How much work under way holds each record. */
  const held = new WeakMap<SessionRecord, number>();

  const trim = (newest: string): void => {
    for (const [sessionID, record] of recent) {
      if (recent.size <= MAX_SESSIONS) return;
      if (sessionID === newest || (held.get(record) ?? 0) > 0) continue;
      recent.delete(sessionID);
      if (!evict(record)) continue;
      kept.set(sessionID, record);
      if (kept.size > MAX_KEPT_SESSIONS) kept.delete(kept.keys().next().value!);
    }
  };

  const use: SessionStore["use"] = (sessionID) => {
    const record = recent.get(sessionID) ?? kept.get(sessionID) ?? {};
    kept.delete(sessionID);
    recent.delete(sessionID);
    recent.set(sessionID, record);
    trim(sessionID);
    return record;
  };

  const find: SessionStore["find"] = (sessionID) => recent.get(sessionID) ?? kept.get(sessionID);

  const hold: SessionStore["hold"] = async (sessionID, work) => {
    const record = use(sessionID);
    held.set(record, (held.get(record) ?? 0) + 1);
    try {
      return await work(record);
    } finally {
      held.set(record, held.get(record)! - 1);
    }
  };

  return {
    use,
    find,
    hold,
    forget: (sessionID) => void (recent.delete(sessionID), kept.delete(sessionID)),
    current: (sessionID, record) => find(sessionID) === record,
    holding: (slot) => [...recent.values(), ...kept.values()].filter((record) => record[slot] !== undefined).length,
  };
}

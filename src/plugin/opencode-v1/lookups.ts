/**
 * What a decision at a compaction asks opencode besides the messages: `compaction.reserved`
 * (`config.get`) and the session's title and parent (`session.get`). Both are started when the
 * compaction starts (its `compaction` part arrives through the `event` hook), while opencode
 * waits for the summary, and the decision takes what they answered: in opencode these calls
 * go through its server on the event loop the decision runs on (about 10 ms of a decision at
 * 400 steps when they were started by the decision, docs/performance.md).
 *
 * A decision without look-ups under way (no start seen: a restart, an event missed) starts
 * them itself, as before. Each look-up is bounded by the V1 host's notify time-out and never
 * rejects (./v1-host.ts).
 */
import type { V1Host } from "./v1-host.js";

/** Sessions whose look-ups are kept at once; the oldest start is dropped first. */
export const MAX_LOOKUP_SESSIONS = 64;

/** The look-ups of one compaction: resolve as {@link V1Host.readReserved} and {@link V1Host.readSession} do. */
export interface CompactionLookups {
  readonly reserved: Promise<number | undefined>;
  readonly session: Promise<{ title: string | undefined; subagent: boolean }>;
}

/** The look-ups started per session: {@link createLookups}. */
export interface Lookups {
  /**
   * Starts the session's look-ups for the automatic compaction that is starting, named by its
   * `compaction` part's id (a second event of the same part starts nothing).
   */
  readonly start: (sessionID: string, partID: string) => void;
  /** The look-ups started for the session, now taken (a later decision starts its own), else ones started now. */
  readonly take: (sessionID: string) => CompactionLookups;
}

/** Builds the store over `host`'s look-ups. Never throws. */
export function createLookups(host: Pick<V1Host, "readReserved" | "readSession">): Lookups {
  const started = new Map<string, CompactionLookups & { readonly partID: string }>();
  const lookUp = (sessionID: string): CompactionLookups => ({ reserved: host.readReserved(), session: host.readSession(sessionID) });
  return {
    start: (sessionID, partID) => {
      if (started.get(sessionID)?.partID === partID) return;
      started.delete(sessionID);
      started.set(sessionID, { ...lookUp(sessionID), partID });
      if (started.size > MAX_LOOKUP_SESSIONS) started.delete(started.keys().next().value!);
    },
    take: (sessionID) => {
      const kept = started.get(sessionID);
      started.delete(sessionID);
      return kept ?? lookUp(sessionID);
    },
  };
}

/**
 * A bounded per-session store: one record per session id, the newest used kept, the least
 * recently used dropped first, and a deleted session forgotten. For a plugin whose records
 * hold only what can be had again or lost with the session (the 2.x entry,
 * ./opencode-v2/v2-plugin.ts); the V1 plugin's store (./opencode-v1/sessions.ts) adds, on the
 * same policy, slots that outlive an eviction and records held by work under way.
 */

/** The records of a plugin's sessions: {@link createSessionRecords}. */
export interface SessionRecords<R> {
  /**
   * The session's record, now the newest used: made when it has none. Drops the least recently
   * used record beyond the store's bound, never the one returned.
   */
  readonly use: (sessionID: string) => R;
  /** The session's record, if it has one; not a use. */
  readonly find: (sessionID: string) => R | undefined;
  /** Forgets the session's record (it was deleted). */
  readonly forget: (sessionID: string) => void;
}

/** An empty store of at most `max` (at least 1) records, each made by `make` at its session's first use. */
export function createSessionRecords<R>(max: number, make: () => R): SessionRecords<R> {
  /** Least recently used first. */
  const records = new Map<string, R>();
  return {
    use: (sessionID) => {
      const record = records.get(sessionID) ?? make();
      records.delete(sessionID);
      records.set(sessionID, record);
      if (records.size > max) records.delete(records.keys().next().value!);
      return record;
    },
    find: (sessionID) => records.get(sessionID),
    forget: (sessionID) => void records.delete(sessionID),
  };
}

/**
 * What the judge needs to know about the agent that wrote a history, beyond the history
 * itself: plain data a host supplies (hosts/opencode/facts.ts for opencode), so that the
 * judge holds no host's constant.
 */

/** A host's facts, as copied from one version of it. */
export interface HostFacts {
  /** The host and the version the facts are copied from, e.g. `opencode 1.18.33`. */
  readonly source: string;
  /**
   * The fixed texts the host sends with the first request after a compaction besides the
   * summary and the kept messages (opencode: the compaction question and the continue text).
   */
  readonly afterCompaction: readonly string[];
}

/**
 * What a decision depends on besides the history and the guard's settings, from the host:
 * its facts and where it compacts.
 */
export interface HostInputs {
  /** The usable context in tokens: a step whose context size reaches it makes the host compact; null when unknown. */
  readonly usable: number | null;
  readonly facts: HostFacts;
}

/**
 * Replay: the guard's decision at every automatic compaction of a whole session, as the
 * hook would have made it, plus each compaction's own sizes for the table.
 */
import { buildTimeline } from "./history.js";
import { compactionSizes } from "./timeline.js";
import type { GuardSettings } from "./settings.js";
import { decide, type DecideOptions, type Verdict } from "./verdict.js";

/** One row of a replay: a verdict plus the compaction's own sizes (tokens). */
export interface ReplayRow extends Verdict {
  /** Context size (tokens) of the step that set the compaction off. */
  readonly triggerTokens: number | null;
  /** Prompt size (tokens) of the first step after its summary. */
  readonly afterTokens: number | null;
}

/**
 * Replays a whole session: one verdict per automatic compaction with a successful summary,
 * each decided on the history as it stood when that summary finished.
 *
 * @param messages `Array<{ info, parts }>`, oldest first (`opencode export`'s `messages`): the
 *   whole session (`wholeSession` is true unless `options` says otherwise).
 */
export function replayMessages(messages: readonly unknown[], settings: GuardSettings, options: DecideOptions = {}): ReplayRow[] {
  const timeline = buildTimeline(messages);
  return timeline.compactions
    .filter((c) => c.auto && c.succeeded)
    .map((c) => {
      const { triggerTokens, afterTokens } = compactionSizes(timeline.entries, c);
      return { ...decide(timeline, c, settings, { wholeSession: true, ...options }), triggerTokens, afterTokens };
    });
}

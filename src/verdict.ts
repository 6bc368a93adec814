/**
 * The one decision function. The hook and the replay command both call {@link decide}:
 * history in, verdict out, nothing else.
 */
import { buildTimeline, compactionEnd, type Compaction, type Timeline } from "./history.js";
import { usableContext, type ModelLimits } from "./limits.js";
import { checkNoProgress, compactionSizes, type NoProgressCheck } from "./rules/no-progress.js";
import { checkRepeatedToolCall, type RepeatedToolCallCheck } from "./rules/repeated-tool-call.js";
import type { GuardSettings } from "./settings.js";

/** The rules that can deny, in the order they are checked. */
export type RuleName = "repeated-tool-call" | "no-progress";

/** The guard's answer for one automatic compaction, with what it saw. */
export interface Verdict {
  /** deny: do not add the synthetic continue turn (`output.enabled = false`). */
  readonly decision: "allow" | "deny";
  /** The rule that denied; null on allow. repeated-tool-call is checked first. */
  readonly rule: RuleName | null;
  /** The compaction being decided (index: 1-based among automatic ones in view). */
  readonly compaction: { readonly index: number; readonly messageID: string };
  readonly evidence: {
    readonly repeatedToolCall: RepeatedToolCallCheck;
    readonly noProgress: NoProgressCheck;
  };
}

/**
 * How many of the newest messages the hook reads (`query.limit` of `session.messages`), and
 * so how far back any decision looks. Enough for the repeated-tool-call window and for
 * several compaction cycles; bounded so a decision costs the same in a 10-message and a
 * 50,000-message session. When the previous compaction lies further back, the session made
 * that many steps without compacting, and no-progress abstains.
 */
export function historyLimit(settings: Pick<GuardSettings, "window">): number {
  return Math.max(200, 4 * settings.window);
}

export interface DecideOptions {
  /** The model's limits, when known: no-progress then also compares with opencode's usable context. */
  readonly limits?: Partial<ModelLimits> | undefined;
}

/**
 * Decides whether opencode may add the synthetic continue turn after `compaction`.
 *
 * Reads `timeline.entries[start..end]`, where end is the compaction's summary (the history
 * as it stood when the summary finished) and start is `end − historyLimit + 1`, exactly the
 * slice the hook fetches. Deny by repeated-tool-call, else by no-progress, else allow.
 * Pure; never throws on a timeline from {@link buildTimeline}.
 */
export function decide(
  timeline: Timeline,
  compaction: Compaction,
  settings: GuardSettings,
  options: DecideOptions = {},
): Verdict {
  const end = compactionEnd(compaction);
  const start = Math.max(0, end - historyLimit(settings) + 1);
  const repeatedToolCall = checkRepeatedToolCall(timeline.entries, end, settings, start);
  const noProgress = checkNoProgress(timeline, compaction, settings, usableContext(options.limits), start);
  const rule: RuleName | null = repeatedToolCall.fired
    ? "repeated-tool-call"
    : noProgress.status === "measured" && noProgress.stalled !== null
      ? "no-progress"
      : null;
  return {
    decision: rule ? "deny" : "allow",
    rule,
    compaction: { index: compaction.index, messageID: compaction.messageID },
    evidence: { repeatedToolCall, noProgress },
  };
}

/**
 * The decision point the hook is called for: the automatic compaction whose id is
 * `messageID` (the hook's `input.message.id`), else the latest automatic compaction with a
 * successful summary. Undefined when there is none.
 */
export function findDecisionPoint(timeline: Timeline, messageID?: string): Compaction | undefined {
  const candidates = timeline.compactions.filter((c) => c.auto);
  return (
    candidates.find((c) => c.messageID === messageID) ?? candidates.filter((c) => c.succeeded).at(-1)
  );
}

/** One row of a replay: a verdict plus the compaction's own sizes (tokens). */
export interface ReplayRow extends Verdict {
  readonly triggerTokens: number | null;
  readonly afterTokens: number | null;
}

/**
 * Replays a whole session: one verdict per automatic compaction with a successful summary,
 * each decided on the history as it stood when that summary finished.
 *
 * @param messages `Array<{ info, parts }>`, oldest first (`opencode export`'s `messages`).
 */
export function replayMessages(
  messages: readonly unknown[],
  settings: GuardSettings,
  options: DecideOptions = {},
): ReplayRow[] {
  const timeline = buildTimeline(messages);
  return timeline.compactions
    .filter((c) => c.auto && c.succeeded)
    .map((c) => {
      const { triggerTokens, afterTokens } = compactionSizes(timeline.entries, c);
      return { ...decide(timeline, c, settings, options), triggerTokens, afterTokens };
    });
}

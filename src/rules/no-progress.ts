/**
 * Rule no-progress: the previous automatic compaction did not reduce the overflow, so the
 * next one will not either (do not re-arm).
 *
 * Mirrors the unmerged opencode PRs #29150 (tokens dropped < 5%), #50233 (first step after
 * compaction still at or above the trigger) and #48828 (trailing compactions that still
 * overflow), and Gemini CLI's "compression made the history bigger" check. A missing
 * measurement never counts as a stall; a provider's context-overflow refusal of every step
 * since the previous compaction is a measurement (e2e/FINDINGS.md).
 */
import { compactionEnd, isRealUser, isStep, type AssistantEntry, type Compaction, type Entry, type Timeline } from "../history.js";
import type { GuardSettings } from "../settings.js";

/** The step that triggered a compaction, and the first step after its summary. */
export interface CompactionSizes {
  /** Context size (tokens) of the last non-summary assistant message before the compaction message. */
  readonly triggerTokens: number | null;
  /** Id of that step, or null when there is none in view. */
  readonly triggerMessageID: string | null;
  /** Context size (tokens) of the first non-summary assistant message after the summary. */
  readonly afterTokens: number | null;
  /** Id of that step, or null when there is none in view. */
  readonly afterMessageID: string | null;
}

/** What no-progress saw: why it abstained, or the sizes it measured and whether they stalled. */
export type NoProgressCheck =
  | {
      readonly status: "abstain";
      /** Why nothing was measured, in words. */
      readonly reason: string;
    }
  | ({
      readonly status: "measured";
      /** The previous automatic compaction, k−1. */
      readonly previousMessageID: string;
      /**
       * 1 − after / trigger: the fraction of the context the compaction removed (may be < 0);
       * null when the provider refused the steps after it and no size was recorded.
       */
      readonly reduction: number | null;
      readonly minReduction: number;
      /** opencode's usable context in tokens, when the model's limits are known. */
      readonly usableTokens: number | null;
      /** Which test failed, or null when the compaction made progress. */
      readonly stalled: null | "reduction-below-minimum" | "still-over-usable-context" | "provider-overflow-again";
    } & CompactionSizes);

/**
 * Measures one compaction in `entries[start..end]`.
 * @returns trigger and after sizes in tokens, null where no step or no token data exists.
 */
export function compactionSizes(
  entries: readonly Entry[],
  compaction: Compaction,
  end: number = entries.length - 1,
  start = 0,
): CompactionSizes {
  let trigger: AssistantEntry | undefined;
  for (let position = compaction.position - 1; position >= start && !trigger; position--) {
    const entry = entries[position];
    if (isStep(entry)) trigger = entry;
  }
  let after: AssistantEntry | undefined;
  for (let position = compactionEnd(compaction) + 1; position <= end && !after; position++) {
    const entry = entries[position];
    if (isStep(entry)) after = entry;
  }
  return {
    triggerTokens: trigger?.contextTokens ?? null,
    triggerMessageID: trigger?.id ?? null,
    afterTokens: after?.contextTokens ?? null,
    afterMessageID: after?.id ?? null,
  };
}

/**
 * The last automatic compaction with `start ≤ position < before`. `compactions` are in
 * position order (as {@link Timeline} holds them): a binary search, so that a replay of
 * N compactions costs N log N rather than N² (28,000 compactions: 0.8 s instead of 6.5 s).
 */
function previousAutomatic(compactions: readonly Compaction[], before: number, start: number): Compaction | undefined {
  let low = 0;
  let high = compactions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compactions[middle]!.position < before) low = middle + 1;
    else high = middle;
  }
  for (let i = low - 1; i >= 0 && compactions[i]!.position >= start; i--) {
    if (compactions[i]!.auto) return compactions[i];
  }
  return undefined;
}

/**
 * Evaluates no-progress for compaction k (`current`) on `entries[start..current]`.
 *
 * Let k−1 be the previous automatic compaction. Fires when
 * after(k−1) ≥ trigger(k−1) × (1 − minReduction), or when `usableTokens` is known and
 * after(k−1) ≥ usableTokens (opencode's own overflow line), or when k was set off by a
 * provider context-overflow error (`overflow: true`) and every step since k−1's summary is
 * a refused request (empty, no context size): k−1 made no room.
 *
 * Abstains when k is the first automatic compaction in view, when a real user message came
 * between k−1 and k (the user stepped in: like Codex, only real input re-arms), or when
 * either size is missing or zero.
 */
export function checkNoProgress(
  timeline: Timeline,
  current: Compaction,
  settings: Pick<GuardSettings, "minReduction">,
  usableTokens: number | null,
  start = 0,
): NoProgressCheck {
  const previous = previousAutomatic(timeline.compactions, current.position, start);
  if (!previous) return { status: "abstain", reason: "no earlier automatic compaction" };
  const between = stepsBetween(timeline.entries, previous, current);
  if (between.userSteppedIn) {
    return { status: "abstain", reason: "a real user message came after the previous compaction" };
  }

  const sizes = compactionSizes(timeline.entries, previous, current.position - 1, start);
  const measured = { status: "measured", previousMessageID: previous.messageID, ...sizes, minReduction: settings.minReduction, usableTokens } as const;
  const refused = (step: AssistantEntry) => step.empty && step.contextTokens === null;
  if (current.overflow && between.steps.length > 0 && between.steps.every(refused)) {
    return { ...measured, reduction: null, stalled: "provider-overflow-again" };
  }
  if (sizes.triggerTokens === null || sizes.afterTokens === null) {
    return { status: "abstain", reason: "token sizes around the previous compaction are missing" };
  }
  const { triggerTokens, afterTokens } = sizes;
  const stalled =
    afterTokens >= triggerTokens * (1 - settings.minReduction)
      ? "reduction-below-minimum"
      : usableTokens !== null && afterTokens >= usableTokens
        ? "still-over-usable-context"
        : null;
  return { ...measured, reduction: 1 - afterTokens / triggerTokens, stalled };
}

/**
 * The steps between `previous`'s summary and `current`, and whether a real user message
 * lies there. The user message opencode re-sends right after an overflow compaction's
 * summary (it replays the last real message instead of adding a continue turn,
 * session/compaction.ts) is not the user stepping in.
 */
function stepsBetween(
  entries: readonly Entry[],
  previous: Compaction,
  current: Compaction,
): { steps: AssistantEntry[]; userSteppedIn: boolean } {
  const from = compactionEnd(previous) + 1;
  const steps: AssistantEntry[] = [];
  let userSteppedIn = false;
  for (let position = from; position < current.position; position++) {
    const entry = entries[position];
    if (isStep(entry)) steps.push(entry);
    if (isRealUser(entry) && !(previous.overflow && position === from)) userSteppedIn = true;
  }
  return { steps, userSteppedIn };
}

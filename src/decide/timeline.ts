/**
 * Questions every layer asks of a timeline: what a compaction measured (the step that set it
 * off, the first step after its summary), whether the step before it ended the turn, where
 * the user next spoke. Pure; never throws on a timeline from buildTimeline.
 */
import {
  anyBetween,
  compactionEnd,
  isRealUser,
  isStep,
  type AssistantEntry,
  type Compaction,
  type Entry,
  type Timeline,
} from "./history.js";
import { stepBefore, type DecisionView } from "./view.js";

/** The step that triggered a compaction, and the first step after its summary. */
export interface CompactionSizes {
  /** Context size (tokens, opencode's overflow measure) of the last step before the compaction message. */
  readonly triggerTokens: number | null;
  /** Id of that step, or null when there is none in view. */
  readonly triggerMessageID: string | null;
  /** Prompt size (tokens: input + cache) of the first step after the summary. */
  readonly afterTokens: number | null;
  /** Id of that step, or null when there is none in view. */
  readonly afterMessageID: string | null;
}

/**
 * Measures one compaction in `entries[start..end]`.
 * @returns trigger size (tokens, opencode's overflow measure) and after size (tokens, the
 *   prompt of the first step after the summary); null where no step or no token data exists.
 */
export function compactionSizes(
  entries: readonly Entry[],
  compaction: Compaction,
  end: number = entries.length - 1,
  start = 0,
): CompactionSizes {
  const trigger = stepBefore(entries, compaction.position, start)?.entry;
  let after: AssistantEntry | undefined;
  for (let position = compactionEnd(compaction) + 1; position <= end && !after; position++) {
    const entry = entries[position];
    if (isStep(entry)) after = entry;
  }
  return {
    triggerTokens: trigger?.contextTokens ?? null,
    triggerMessageID: trigger?.id ?? null,
    afterTokens: after?.promptTokens ?? null,
    afterMessageID: after?.id ?? null,
  };
}

/**
 * Did the last step before the compaction end the turn? It finished without error with
 * `finish: "stop"` and no tool part, and nothing (a user message, another compaction) lies
 * between it and the compaction. turn-finished fires on it; cannot-make-room leaves such a
 * finished answer to turn-finished: restarting finished work is not a loop.
 */
export function endedTheTurn(view: DecisionView): boolean {
  const { entries } = view.timeline;
  const last = stepBefore(entries, view.compaction.position, view.start);
  if (!last) return false;
  const interrupted = anyBetween(
    entries,
    last.position,
    view.compaction.position,
    (entry: Entry) => entry.kind !== "assistant" || entry.summary || isRealUser(entry),
  );
  return !interrupted && last.entry.succeeded && last.entry.finish === "stop" && last.entry.toolParts === 0;
}

/**
 * Position in `timeline.entries` of the first real user message (a person spoke, see
 * `isRealUser`) after `position`, or −1. After the first deny, that is where what the guard
 * could have saved ends: the user asked for the work that follows.
 */
export function realUserAfter(timeline: Timeline, position: number): number {
  for (let i = position + 1; i < timeline.entries.length; i++) if (isRealUser(timeline.entries[i])) return i;
  return -1;
}

/**
 * A session as the rules read it: its entries in order and where its compactions are, plus
 * the position questions every layer asks of it (what a compaction measured, where the user
 * next spoke). Host-neutral: a host builds the entries, {@link timelineOf} finds the rest.
 * Pure; never throws on a timeline from {@link timelineOf}.
 */
import { isRealUser, isStep, type AssistantEntry, type Entry, type GuardStop, type UserEntry } from "./entry.js";

/** One compaction in the timeline. Positions index {@link Timeline.entries}. */
export interface Compaction {
  /** 1-based among *automatic* compactions; 0 for a manual one. */
  readonly index: number;
  readonly auto: boolean;
  /** Set off by a provider context-overflow error rather than by the host's own overflow check. */
  readonly overflow: boolean;
  /** Id of the compaction's user entry (role `compaction`). */
  readonly messageID: string;
  /** Position of that entry. */
  readonly position: number;
  /** Position of its summary (the first assistant summary whose `compactionID` is messageID), or -1. */
  readonly summaryPosition: number;
  /** The summary exists and finished without error. */
  readonly succeeded: boolean;
  /** The first message kept verbatim after the summary (see {@link UserEntry.tailStartID}). */
  readonly tailStartID?: string | undefined;
}

/** A session as the rules read it: its entries in order, and where its compactions are. */
export interface Timeline {
  readonly entries: readonly Entry[];
  /** Every compaction, manual ones too, in order. */
  readonly compactions: readonly Compaction[];
}

/** A call located in a timeline: `timeline.entries[position].toolCalls[callIndex]`. */
export interface CallInTimeline {
  readonly timeline: Timeline;
  readonly position: number;
  readonly callIndex: number;
}

/** Does an entry strictly between positions `after` and `before` pass `test`? (No copy of the range is made.) */
export function anyBetween(entries: readonly Entry[], after: number, before: number, test: (entry: Entry) => boolean): boolean {
  for (let position = after + 1; position < before; position++) if (test(entries[position]!)) return true;
  return false;
}

/**
 * Position of a compaction's last entry: its summary, or the compaction entry itself when the
 * summary is missing. The history "as it stood when the summary finished" ends here.
 */
export const compactionEnd = (compaction: Compaction): number => Math.max(compaction.position, compaction.summaryPosition);

/** The last step strictly before `position` and at or after `start`, with its position; undefined when there is none. */
export function stepBefore(
  entries: readonly Entry[],
  position: number,
  start: number,
): { entry: AssistantEntry; position: number } | undefined {
  for (let p = position - 1; p >= start; p--) {
    const entry = entries[p];
    if (isStep(entry)) return { entry, position: p };
  }
  return undefined;
}

/** The step that triggered a compaction, and the first step after its summary. */
export interface CompactionSizes {
  /** Context size (tokens, the host's overflow measure) of the last step before the compaction message. */
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
 * @returns trigger size (tokens, the host's overflow measure) and after size (tokens, the
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
 * Position in `timeline.entries` of the first real user message (a person spoke, see
 * `isRealUser`) after `position`, or −1. After the first deny, that is where what the guard
 * could have saved ends: the user asked for the work that follows.
 */
export function realUserAfter(timeline: Timeline, position: number): number {
  for (let i = position + 1; i < timeline.entries.length; i++) if (isRealUser(timeline.entries[i])) return i;
  return -1;
}

/**
 * Re-labels as `resend` the "real" user message that directly follows the summary of an
 * overflow compaction and says what the last real message said: the host's replay of it,
 * which must not reset what the rules count. A different text there is the user replying
 * after a denied compaction: real.
 */
function markResends(entries: Entry[], overflowCompactions: ReadonlySet<string | undefined>): void {
  if (overflowCompactions.size === 0) return;
  let lastRealText: string | undefined;
  for (let position = 0; position < entries.length; position++) {
    const entry = entries[position]!;
    if (entry.kind !== "user" || entry.role !== "real") continue;
    const before = entries[position - 1];
    const afterOverflowSummary =
      before?.kind === "assistant" && before.summary && before.compactionID !== undefined && overflowCompactions.has(before.compactionID);
    // A copy says the same as the last real message; a different text is you, replying.
    if (afterOverflowSummary && entry.text === lastRealText) entries[position] = { ...entry, role: "resend" };
    else lastRealText = entry.text;
  }
}

/**
 * The timeline of a host's entries: every compaction (a user entry of role `compaction`) with
 * its summary (the first assistant summary naming it), and the re-sent copy after an overflow
 * summary relabelled `resend`.
 *
 * @param entries in the session's order, oldest first; taken over (relabelled in place), not copied.
 * @returns the entries and every compaction found, in order; never throws.
 */
export function timelineOf(entries: Entry[]): Timeline {
  // One pass finds the summaries, the compaction messages and the overflow ones among them.
  const summaries = new Map<string, number>();
  const compactionPositions: number[] = [];
  const overflowCompactions = new Set<string | undefined>();
  for (let position = 0; position < entries.length; position++) {
    const entry = entries[position]!;
    if (entry.kind === "assistant") {
      if (entry.summary && entry.compactionID !== undefined && !summaries.has(entry.compactionID))
        summaries.set(entry.compactionID, position);
    } else if (entry.kind === "user" && entry.role === "compaction") {
      compactionPositions.push(position);
      if (entry.overflow) overflowCompactions.add(entry.id);
    }
  }
  markResends(entries, overflowCompactions);

  const compactions: Compaction[] = [];
  let autoIndex = 0;
  for (let i = 0; i < compactionPositions.length; i++) {
    const position = compactionPositions[i]!;
    const entry = entries[position] as UserEntry;
    const summaryPosition = summaries.get(entry.id) ?? -1;
    const summary = entries[summaryPosition];
    compactions.push({
      index: entry.auto ? ++autoIndex : 0,
      auto: entry.auto,
      overflow: entry.overflow,
      messageID: entry.id,
      position,
      summaryPosition,
      succeeded: summaryPosition > position && summary?.kind === "assistant" && summary.succeeded,
      tailStartID: entry.tailStartID,
    });
  }
  return { entries, compactions };
}

/** The live guard's stops in a timeline, oldest first: its stop notes (`UserEntry.guardNote`); [] when it left none. */
export function guardStops(timeline: Timeline): GuardStop[] {
  return timeline.entries.flatMap((entry) => (entry.kind === "user" && entry.guardNote !== undefined ? [entry.guardNote] : []));
}

/** A compaction of a replayed session: its index (1-based) and its message id. */
export interface NumberedCompaction {
  readonly index: number;
  readonly messageID: string;
}

/** The index (1-based) of the compaction a stop names, or null (a tool loop, or a compaction not among `compactions`). */
export function liveStopIndex(stop: GuardStop, compactions: readonly NumberedCompaction[]): number | null {
  if (stop.kind !== "compaction") return null;
  return compactions.find((c) => c.messageID === stop.compactionMessageID)?.index ?? null;
}

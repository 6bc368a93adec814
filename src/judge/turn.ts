/**
 * Whether the step before a compaction ended the turn: the question turn-finished and
 * cannot-make-room both ask of the decision view. Pure.
 */
import { isRealUser, type Entry } from "../model/entry.js";
import { anyBetween, stepBefore } from "../model/timeline.js";
import type { DecisionView } from "./view.js";

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

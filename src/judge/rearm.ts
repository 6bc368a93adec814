/**
 * Release without lock-out: after the guard stopped a loop, a session that goes on without a
 * message of the user's (a background task's result, another plugin's prompt) is judged afresh
 * once a step fits under the usable context again, as after a reply. A stop never disables
 * compaction; this keeps what came before a stop from counting against the work after it.
 * Pure; never throws.
 */
import { isStep } from "../model/entry.js";
import { compactionEnd } from "../model/timeline.js";
import type { DecisionView } from "./view.js";

/**
 * Did the guard stop a loop after the previous automatic compaction k−1 (its stop note,
 * `UserEntry.guardNote` of kind `compaction`, written when the session went idle after the
 * denial, lies after k−1's summary and before k), and did a later step before k send a
 * prompt under `usable` tokens? Then the rules that measure k−1's cycle abstain, as when the user stepped in.
 *
 * @param usable the host's usable context in tokens; null (unknown) never re-arms.
 * @returns false without k−1 in view, without a stop note there, or without such a step.
 */
export function rearmedAfterStop(view: DecisionView, usable: number | null): boolean {
  const { previous, compaction, timeline } = view;
  if (previous === undefined || usable === null) return false;
  let stopped = false;
  for (let position = compactionEnd(previous) + 1; position < compaction.position; position++) {
    const entry = timeline.entries[position];
    if (entry?.kind === "user" && entry.guardNote?.kind === "compaction") stopped = true;
    else if (stopped && isStep(entry) && entry.promptTokens !== null && entry.promptTokens < usable) return true;
  }
  return false;
}

/**
 * The decision a live hook makes at each event it answers (./claude-code.ts, ./codex.ts): at
 * the session's latest automatic compaction, from the transcript on disk, on the path every
 * host decides on (guard/decision.ts: the responses of the agent's way of stopping chosen
 * before the verdict, then `decideAt`), with what `replay` knows of the same transcript
 * (guard/replay.ts `sessionOptions`): the verdict `replay` gives that compaction.
 */
import type { GuardSettings } from "../config/settings.js";
import { decideAt, responsesOf, type Decision } from "../guard/decision.js";
import { sessionOptions, stopOf } from "../guard/replay.js";
import type { SessionInputs } from "../judge/verdict.js";
import { TimelineSteps } from "../judge/view.js";
import type { SessionData } from "../model/session.js";
import { compactionEnd, realUserAfter } from "../model/timeline.js";

/** The decision at a session's latest automatic compaction, and whether it holds now. */
export interface LatestDecision extends Decision {
  /**
   * The response stops the session and no person spoke after the compaction's summary (a new
   * turn, which the verdict does not stop): the hook stops the session now, or in observe
   * mode says it would have (`response.halt` tells which).
   */
  readonly stops: boolean;
}

/**
 * Decides at the latest automatic compaction with a successful summary of `session`, a whole
 * transcript, stopped as its agent stops a loop (guard/replay.ts `stopOf`). Undefined when
 * there is no such compaction. Pure.
 */
export function decideLatest(session: SessionData, inputs: SessionInputs<GuardSettings>): LatestDecision | undefined {
  const { timeline } = session;
  const latest = timeline.compactions.filter((c) => c.auto && c.succeeded).at(-1);
  if (latest === undefined) return undefined;
  const { settings } = inputs;
  const decision = decideAt(
    new TimelineSteps(timeline),
    latest,
    settings,
    sessionOptions(session, inputs),
    responsesOf(stopOf(session), settings),
  );
  return { ...decision, stops: decision.response.stops && realUserAfter(timeline, compactionEnd(latest)) === -1 };
}

/**
 * What a decision at a compaction needs besides the messages, started when the compaction
 * starts (its `compaction` part arrives through the `event` hook), while opencode waits for
 * the summary; the decision takes what they gave:
 *
 * - `compaction.reserved` (`config.get`) and the session's title and parent (`session.get`):
 *   in opencode these calls go through its server on the event loop the decision runs on
 *   (about 10 ms of a decision at 400 steps when they were started by the decision);
 * - the decision's steps, judged ahead: the timeline of the messages the decision will read
 *   but the summary, with its newest steps judged (../../judge/view.ts `judgeNewest`), which
 *   the decision takes over. Judging is most of a decision's time on a long session
 *   (docs/performance.md); done once the hook that starts the compaction has returned.
 *
 * A decision without look-ups under way (no start seen: a restart, an event missed) starts
 * the calls itself and judges everything. Each call is bounded by the V1 host's notify
 * time-out and never rejects (./v1-host.ts); judging ahead never rejects either.
 */
import type { JudgedAhead } from "../../guard/decide-at.js";
import type { TimelineSteps } from "../../judge/view.js";
import type { CompactionLookups, SessionStore } from "./sessions.js";
import type { V1Host } from "./v1-host.js";

/**
 * Judges a compaction's decision ahead (the session, and the compaction's message id):
 * the steps, or undefined when the messages it would read are not at hand. May throw.
 */
export type JudgeAhead = (sessionID: string, messageID: string) => TimelineSteps | undefined;

/** The look-ups started per session: {@link createLookups}. */
export interface Lookups {
  /**
   * Starts the session's look-ups for the automatic compaction that is starting, named by its
   * `compaction` part's id, whose message is `messageID` (a second event of the same part
   * starts nothing).
   */
  readonly start: (sessionID: string, partID: string, messageID: string) => void;
  /** The look-ups started for the session, now taken (a later decision starts its own), else ones started now. */
  readonly take: (sessionID: string) => CompactionLookups;
}

/**
 * Builds the look-ups over `host`'s calls and `judgeAhead`, kept in the session's record of
 * `sessions` (slot `lookups`: as many sessions as the mirror keeps, ./sessions.ts; each may hold
 * its session's judged steps, about the size of the messages the mirror keeps of it, until its
 * decision takes them). Never throws.
 */
export function createLookups(
  sessions: SessionStore,
  host: Pick<V1Host, "readReserved" | "readSession">,
  judgeAhead?: JudgeAhead,
): Lookups {
  const lookUp = (sessionID: string): Omit<CompactionLookups, "judged"> => ({
    reserved: host.readReserved(),
    session: host.readSession(sessionID),
  });
  /** Judges ahead on the next turn of the event loop: the event that started the compaction is not held up. */
  const judge = (sessionID: string, messageID: string): Promise<JudgedAhead | undefined> =>
    new Promise((resolve) => {
      setTimeout(() => {
        const begun = performance.now();
        try {
          const steps = judgeAhead?.(sessionID, messageID);
          resolve(steps && { steps, ms: performance.now() - begun });
        } catch {
          // The decision judges everything itself, and says so if it cannot.
          resolve(undefined);
        }
      }, 0);
    });
  return {
    start: (sessionID, partID, messageID) => {
      if (sessions.find(sessionID)?.lookups?.partID === partID) return;
      sessions.use(sessionID).lookups = { ...lookUp(sessionID), judged: judge(sessionID, messageID), partID };
    },
    take: (sessionID) => {
      const record = sessions.find(sessionID);
      const kept = record?.lookups;
      if (record) record.lookups = undefined;
      return kept ?? { ...lookUp(sessionID), judged: Promise.resolve(undefined) };
    },
  };
}

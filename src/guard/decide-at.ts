/**
 * The one decision at an automatic compaction in opencode's live runtimes: claim the compaction,
 * read the session, find the decision point, decide and choose the response (./decision.ts,
 * which replay shares: ./replay.ts), respond (./respond.ts). A runtime is a
 * {@link CompactionHost}: opencode 1.x's `experimental.compaction.autocontinue` hook
 * (plugin/opencode-v1/autocontinue.ts), the V2 runner's compactions
 * (plugin/opencode-v2/v2-guard.ts). What differs between them (how they read, what they look up,
 * how they stop a loop, their words for a failure) is the host's; what only a live runtime
 * has (the claim, the look-ups, the switch, the timing and the log line's fields) is this file's.
 */
import type { GuardSettings } from "../config/settings.js";
import type { HostInputs } from "../model/host-facts.js";
import type { Timeline } from "../model/timeline.js";
import { findDecisionPoint, historyLimit } from "../judge/verdict.js";
import { TimelineSteps } from "../judge/view.js";
import { decideAt, responsesOf } from "./decision.js";
import { elapsedSince, reason, roundMs, type GuardHost } from "./host.js";
import { respond, sessionWord, type VerdictContext } from "./respond.js";

/** One read of the session for a decision: its newest messages as a timeline. */
export interface SessionRead {
  readonly timeline: Timeline;
  /** How many messages the read returned. */
  readonly count: number;
  /** The read reached the session's first message (fewer messages came back than asked for). */
  readonly wholeSession: boolean;
  /** Of the read's time, what building the timeline took, ms. */
  readonly timelineMs: number;
  /** The read's own fields of the log line (V1: where the messages came from), after `elapsedMs`. */
  readonly fields?: Readonly<Record<string, unknown>>;
}

/** What a host knows of the session besides its messages. */
export interface SessionFacts {
  /** The usable context (tokens) and the host's facts. */
  readonly inputs: HostInputs;
  /** The session has a parent (a subagent's); undefined when unknown. */
  readonly subagent?: boolean | undefined;
  /** The session's title (or a read of it under way); undefined when unknown. */
  readonly title: VerdictContext["title"];
  /** The session's project directory: file paths in previews are shown relative to it. */
  readonly directory?: string | undefined;
}

/** Steps judged ahead of a decision (while the summary was written), and how long that took (ms). */
export interface JudgedAhead {
  readonly steps: TimelineSteps;
  readonly ms: number;
}

/** A host's look-ups for one decision: started before the read, or earlier still (at the compaction's start). */
export interface DecisionLookups {
  /** What the host knows of the session; called once the read is done. May reject. */
  readonly facts: () => Promise<SessionFacts>;
  /**
   * The steps judged ahead (undefined: none were); absent where the host never judges ahead.
   * Never rejects.
   */
  readonly judged?: Promise<JudgedAhead | undefined>;
}

/** A session's `/guard` switch: `on` enforces, `observe` only says, `off` leaves the compaction alone. */
export type SessionSwitch = "on" | "observe" | "off";

/**
 * A runtime at an automatic compaction: how it reads, looks up and switches, and (as a
 * {@link GuardHost}) how it answers. Every function may throw or reject except `log` and
 * `toast`; {@link decideAtCompaction} catches.
 */
export interface CompactionHost<R extends SessionRead = SessionRead> extends GuardHost {
  readonly settings: GuardSettings;
  /** Fields of every line the decision writes, after `sessionID` (V2: `runner`). */
  readonly fields?: Readonly<Record<string, unknown>>;
  /** What the host does when the guard cannot decide, as the warn line says it ("the session goes on"). */
  readonly fallback: string;
  /** True when this copy of the guard decides the compaction (one decision per compaction); absent: always. */
  readonly claim?: ((sessionID: string, compactionID: string) => boolean) | undefined;
  /** Starts (or takes over) the look-ups of the decision; called right after the claim. */
  readonly lookUp: (sessionID: string) => DecisionLookups;
  /**
   * Reads the newest `limit` messages of the session for the compaction (may read again until
   * the compaction is among them). Rejects with one line when it cannot.
   */
  readonly read: (sessionID: string, compactionID: string | undefined, limit: number) => Promise<R>;
  /** The session's switch, found with the help of the read; absent where the host has none. */
  readonly switch?: {
    readonly of: (sessionID: string, read: R) => Promise<SessionSwitch | undefined>;
    /** The info line of a compaction left alone because the session is switched off. */
    readonly offLine: (sessionID: string) => string;
  };
}

/** The compaction a host is called for. */
export interface CompactionRequest {
  readonly sessionID: string;
  /** The compaction's message id; undefined: the latest automatic compaction with a successful summary. */
  readonly compactionID: string | undefined;
}

/**
 * Decides at one automatic compaction and answers through ./respond.ts: claim, look-ups, read,
 * switch, decision point, the decision (./decision.ts `decideAt`, on the steps judged ahead
 * and what they lack), response. The log line carries `sessionID`, `compaction` (the index,
 * null when the read did not reach the session's start), `messageID`, `decision`, `rule`, the host's fields,
 * `elapsedMs`, the read's fields, `judgedAheadMs` (hosts that judge ahead; null: not done) and
 * `phasesMs` (read, timeline, lookups, judge, notice). Any failure is one warn line in the host's
 * words and the host's own behaviour. Never rejects.
 */
export async function decideAtCompaction<R extends SessionRead>(host: CompactionHost<R>, request: CompactionRequest): Promise<void> {
  const started = performance.now();
  const { sessionID, compactionID } = request;
  const { settings } = host;
  try {
    if (host.claim && !host.claim(sessionID, compactionID ?? "")) return;
    const lookups = host.lookUp(sessionID);
    const limit = historyLimit(settings);
    const read = await host.read(sessionID, compactionID, limit);
    const readAt = performance.now();
    const switched = await host.switch?.of(sessionID, read);
    if (switched === "off") return void (await host.log("info", host.switch!.offLine(sessionID), { sessionID, ...host.fields }));
    const point = findDecisionPoint(read.timeline, compactionID);
    if (!point) throw new Error(`no automatic compaction among the ${read.count} newest messages`);
    const { inputs, subagent, title, directory } = await lookups.facts();
    // The steps judged while the summary was written: the decision judges only what they lack.
    const ahead = await lookups.judged;
    const options = { ...inputs, directory, subagent, wholeSession: read.wholeSession };
    // `/guard on` or `/guard observe` in this session overrides the mode setting.
    const mode = switched === undefined ? settings.mode : switched === "observe" ? "observe" : "enforce";
    const responses = responsesOf(host.stop, { mode, notify: settings.notify });
    const judging = performance.now();
    const { verdict, response } = decideAt(new TimelineSteps(read.timeline, ahead?.steps), point, settings, options, responses);
    const judged = performance.now();
    // Wall time by phase, in the order the decision waited: the messages less the timeline
    // built of them; the look-ups and the switch still under way once they were there; the
    // judgement. Look-ups started by this call run beside the read: their share of the event
    // loop counts in the read.
    const phases = {
      read: roundMs(readAt - started - read.timelineMs),
      timeline: roundMs(read.timelineMs),
      lookups: roundMs(judging - readAt),
      judge: roundMs(judged - judging),
    };
    // Only a read from the session's first message knows the compaction's index among all of them.
    const index = read.wholeSession ? verdict.compaction.index : null;
    const extra = {
      sessionID,
      compaction: index,
      messageID: verdict.compaction.messageID,
      decision: verdict.decision,
      rule: verdict.rule,
      ...host.fields,
      elapsedMs: elapsedSince(started),
      ...read.fields,
      // What judging ahead took (ms), while the host wrote the summary; null: not done.
      ...(lookups.judged && { judgedAheadMs: ahead === undefined ? null : roundMs(ahead.ms) }),
    };
    await respond(verdict, host, response, { sessionID, index, title, extra, phases });
  } catch (error) {
    await host.log("warn", `compaction-guard could not decide for ${sessionWord(host, sessionID)}; ${host.fallback}: ${reason(error)}`, {
      sessionID,
      ...host.fields,
      elapsedMs: elapsedSince(started),
    });
  }
}

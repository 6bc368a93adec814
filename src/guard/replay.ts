/**
 * Replay: the guard's host over a recorded session. It decides every automatic compaction of
 * a whole session on the live guard's path (./decision.ts `decideAt`: the verdict, and the
 * response's choice in the session's runtime), plus each compaction's own sizes for the table.
 * The host's parts:
 *
 * - the read: the session's one timeline, cut at each compaction (the decision's view ends at
 *   its summary and reaches `historyLimit` messages back: the slice the hook reads);
 * - its facts: the usable context and the host's facts (the CLI's limit flags, or the
 *   transcript's line: sources/ `sessionInputs`), the project directory and whether the session
 *   is a subagent's (its record);
 * - the decision points: every automatic compaction with a successful summary, oldest first
 *   (opencode calls the hook at each);
 * - telling the user: one row per compaction, what `replay` prints;
 * - the stop: the first compaction whose response stops the session in its runtime (the
 *   continue turn denied; a V2 session or another agent's transcript interrupted, where
 *   housekeeping stops nothing), in enforce and observe mode alike: where the live guard
 *   stopped the session, or would have; what came after it, the stop would have saved.
 *
 * Being no runtime, it claims nothing, looks nothing up, reads no `/guard` switch, times
 * nothing, writes no log line and halts nothing. `replay`, `replay --chart` and `audit` start
 * here: one timeline per session, one decision per compaction.
 */
import type { SessionData } from "../model/session.js";
import { compactionSizes, type Timeline } from "../model/timeline.js";
import type { GuardSettings } from "../config/settings.js";
import { toolLoopsOf, type ToolLoopEntry } from "../judge/tool-loop.js";
import type { DecideOptions, SessionInputs, Verdict } from "../judge/verdict.js";
import { TimelineSteps } from "../judge/view.js";
import { decideAt, responsesOf, type Responses } from "./decision.js";
import type { StopKind } from "./host.js";

/** One row of a replay: a verdict plus the compaction's own sizes (tokens). */
export interface ReplayRow extends Verdict {
  /** Context size (tokens) of the step that set the compaction off. */
  readonly triggerTokens: number | null;
  /** Prompt size (tokens) of the first step after its summary. */
  readonly afterTokens: number | null;
}

/** The rows of a replay, and its stop. */
interface Replayed {
  readonly rows: ReplayRow[];
  /** The first row whose response stops the session; undefined: none does. */
  readonly firstDeny: ReplayRow | undefined;
}

/**
 * Replays a whole session: one verdict per automatic compaction with a successful summary,
 * each decided on the history as it stood when that summary finished.
 *
 * @param timeline the whole session, as a host built it (`wholeSession` is true unless
 *   `options` says otherwise).
 * @param stop how the session's runtime stops a loop: what the responses are chosen for (the
 *   rows are the same for either).
 */
export function replayTimeline(
  timeline: Timeline,
  settings: GuardSettings,
  options: DecideOptions,
  stop: StopKind = "continue-turn",
): ReplayRow[] {
  const responses = responsesOf(stop, settings);
  return replayed(new TimelineSteps(timeline), settings, { wholeSession: true, ...options }, responses).rows;
}

/**
 * The rows of every automatic compaction with a successful summary, oldest first, each its
 * verdict and sizes ({@link decideAt} on the one `steps` of the session), and the first whose
 * response among the runtime's `responses` stops the session.
 */
function replayed(steps: TimelineSteps, settings: GuardSettings, options: DecideOptions, responses: Responses): Replayed {
  const { timeline } = steps;
  const rows: ReplayRow[] = [];
  let firstDeny: ReplayRow | undefined;
  for (const c of timeline.compactions) {
    if (!c.auto || !c.succeeded) continue;
    const sizes = compactionSizes(timeline.entries, c);
    const { verdict, response } = decideAt(steps, c, settings, options, responses);
    const row: ReplayRow = {
      decision: verdict.decision,
      rule: verdict.rule,
      fired: verdict.fired,
      severity: verdict.severity,
      compaction: verdict.compaction,
      evidence: verdict.evidence,
      triggerTokens: sizes.triggerTokens,
      afterTokens: sizes.afterTokens,
    };
    rows.push(row);
    if (firstDeny === undefined && response.stops) firstDeny = row;
  }
  return { rows, firstDeny };
}

/** A replayed session: its one timeline, one row per automatic compaction with a successful summary, and its stop. */
export interface ReplayedSession {
  readonly timeline: Timeline;
  readonly rows: readonly ReplayRow[];
  /**
   * Where the live guard stops the session (or, in observe mode, says it would have): the
   * first row whose response stops it in the session's runtime; undefined when none does.
   * What comes after it is what the stop saves.
   */
  readonly firstDeny: ReplayRow | undefined;
  /** Every call where the tool-loop check would have acted (judge/tool-loop.ts), oldest first. */
  readonly toolLoop: readonly ToolLoopEntry[];
}

/**
 * How the runtime a session was recorded in stops a loop (`SessionRecord.continueTurn`):
 * opencode's V1 sessions by denying the continue turn, Codex by ending the turn after the
 * compaction; a V2 session and Claude Code by an interrupt. The live hooks stop by the same.
 */
export const stopOf = (session: SessionData): StopKind => (session.record.continueTurn ? "continue-turn" : "interrupt");

/**
 * What the decisions of a whole recorded session know besides its history: the host's inputs
 * of `options`, the project directory and whether the session is a subagent's (its record),
 * and that the timeline begins with the session's first message.
 */
export function sessionOptions(session: SessionData, options: SessionInputs<GuardSettings>): DecideOptions {
  const { directory, parent } = session.record;
  return { usable: options.usable, facts: options.facts, directory, subagent: parent !== null, wholeSession: true };
}

/**
 * Replays a whole session: `replay`'s own path (`audit` calls this too). What its decisions
 * know besides the history is {@link sessionOptions}, the runtime's stop {@link stopOf}.
 * @param walk.toolLoop whether to walk the session for the tool-loop check (default true). No
 *   row reads the walk: audit's table and `--json` leave it out; its charts show it.
 * @returns the session's timeline, one row per automatic compaction with a successful summary,
 *   oldest first, the first that stops the session, and where the tool-loop check would have
 *   acted (empty without the walk).
 */
export function replaySession(
  session: SessionData,
  options: SessionInputs<GuardSettings>,
  walk: { readonly toolLoop?: boolean } = {},
): ReplayedSession {
  const { timeline, record } = session;
  const { settings } = options;
  // One TimelineSteps for the decisions and the tool-loop walk: they share what each call brought.
  const steps = new TimelineSteps(timeline);
  const { rows, firstDeny } = replayed(steps, settings, sessionOptions(session, options), responsesOf(stopOf(session), settings));
  const toolLoop = walk.toolLoop === false ? [] : toolLoopsOf(steps, settings, record.directory);
  return { timeline, rows, firstDeny, toolLoop };
}

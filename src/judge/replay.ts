/**
 * Replay: the guard's decision at every automatic compaction of a whole session, as the
 * hook would have made it, plus each compaction's own sizes for the table. One timeline per
 * session, one decision per compaction: `replay`, `replay --chart` and `audit` all start here.
 */
import type { SessionData } from "../model/session.js";
import { compactionSizes, type Timeline } from "../model/timeline.js";
import type { HostInputs } from "../model/host-facts.js";
import { toolLoopsOf, type ToolLoopEntry } from "./tool-loop.js";
import type { JudgeSettings, RuleContext } from "./rules/index.js";
import { contextOf, decide, decideWith, findDecisionPoint, type DecideOptions, type Verdict } from "./verdict.js";
import { TimelineSteps } from "./view.js";

export type { SessionData } from "../model/session.js";

/** What a session's decisions depend on besides its history: the guard's settings and the host's inputs. */
export interface SessionInputs extends HostInputs {
  readonly settings: JudgeSettings;
}

/** One row of a replay: a verdict plus the compaction's own sizes (tokens). */
export interface ReplayRow extends Verdict {
  /** Context size (tokens) of the step that set the compaction off. */
  readonly triggerTokens: number | null;
  /** Prompt size (tokens) of the first step after its summary. */
  readonly afterTokens: number | null;
}

/**
 * Replays a whole session: one verdict per automatic compaction with a successful summary,
 * each decided on the history as it stood when that summary finished.
 *
 * @param timeline the whole session, as a host built it (`wholeSession` is true unless
 *   `options` says otherwise).
 */
export function replayTimeline(timeline: Timeline, settings: JudgeSettings, options: DecideOptions): ReplayRow[] {
  return rowsOf(new TimelineSteps(timeline), contextOf(settings, { wholeSession: true, ...options }));
}

/** The rows of every automatic compaction with a successful summary, oldest first: each its verdict ({@link decideWith}) and sizes. */
function rowsOf(steps: TimelineSteps, context: RuleContext<JudgeSettings>): ReplayRow[] {
  const { timeline } = steps;
  const rows: ReplayRow[] = [];
  const { compactions } = timeline;
  for (let i = 0; i < compactions.length; i++) {
    const c = compactions[i]!;
    if (!c.auto || !c.succeeded) continue;
    const sizes = compactionSizes(timeline.entries, c);
    const verdict = decideWith(steps, c, context);
    rows.push({
      decision: verdict.decision,
      rule: verdict.rule,
      fired: verdict.fired,
      severity: verdict.severity,
      compaction: verdict.compaction,
      evidence: verdict.evidence,
      triggerTokens: sizes.triggerTokens,
      afterTokens: sizes.afterTokens,
    });
  }
  return rows;
}

/** A replayed session: its one timeline, and one row per automatic compaction with a successful summary. */
export interface ReplayedSession {
  readonly timeline: Timeline;
  readonly rows: readonly ReplayRow[];
  /** Every call where the tool-loop check would have acted (judge/tool-loop.ts), oldest first. */
  readonly toolLoop: readonly ToolLoopEntry[];
}

/**
 * Replays a whole session: `replay`'s own path (`audit` calls this too). The project
 * directory and whether the session is a subagent's come from its record.
 * @param walk.toolLoop whether to walk the session for the tool-loop check (default true). No
 *   row reads the walk: audit's table and `--json` leave it out; its charts show it.
 * @returns the session's timeline, one row per automatic compaction with a successful summary,
 *   oldest first, and where the tool-loop check would have acted (empty without the walk).
 */
export function replaySession(session: SessionData, options: SessionInputs, walk: { readonly toolLoop?: boolean } = {}): ReplayedSession {
  const { timeline, record } = session;
  const { directory } = record;
  const context = contextOf(options.settings, {
    usable: options.usable,
    facts: options.facts,
    directory,
    subagent: record.parent !== null,
    wholeSession: true,
  });
  // One TimelineSteps for the decisions and the tool-loop walk: they share what each call brought.
  const steps = new TimelineSteps(timeline);
  const rows = rowsOf(steps, context);
  const toolLoop = walk.toolLoop === false ? [] : toolLoopsOf(steps, options.settings, directory);
  return { timeline, rows, toolLoop };
}

/**
 * The guard's decision at one automatic compaction of a timeline a host read (the newest
 * `historyLimit(settings)` messages are enough), as the hook makes it.
 *
 * @param compactionID the compaction's id; undefined = the latest automatic compaction with a
 *   successful summary.
 * @param options as for `decide`. Pass `wholeSession` (the host read fewer messages than it
 *   asked for), and a null `usable` for opencode's V2 runner: it draws its compaction line
 *   otherwise than V1 (the request's estimated size against `context − max(output, buffer)`).
 * @returns the verdict, or undefined when no automatic compaction of that id (or none at all) is
 *   in the timeline.
 */
export function decideCompaction(
  timeline: Timeline,
  compactionID: string | undefined,
  settings: JudgeSettings,
  options: DecideOptions,
): Verdict | undefined {
  const point = findDecisionPoint(timeline, compactionID);
  if (!point || (compactionID !== undefined && point.messageID !== compactionID)) return undefined;
  return decide(timeline, point, settings, options);
}

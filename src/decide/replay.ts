/**
 * Replay: the guard's decision at every automatic compaction of a whole session, as the
 * hook would have made it, plus each compaction's own sizes for the table. One timeline per
 * session, one decision per compaction: `replay`, `replay --chart` and `audit` all start here.
 */
import { buildTimeline, type Timeline } from "./history.js";
import type { ModelLimits } from "./opencode-facts.js";
import type { GuardSettings } from "./settings.js";
import { compactionSizes } from "./timeline.js";
import { toolLoopsOf, type ToolLoopEntry } from "./tool-loop.js";
import type { RuleContext } from "./rules/index.js";
import { contextOf, decideWith, type DecideOptions, type Verdict } from "./verdict.js";

/** A session as `opencode export` writes it (and opencode's API returns it): `{ info, messages }`, messages oldest first. */
export interface SessionData {
  readonly info: { readonly id: string } & Readonly<Record<string, unknown>>;
  readonly messages: readonly unknown[];
  /** The timeline already read, for a session from another agent's transcript (src/hosts/; `messages` is then empty). */
  readonly timeline?: Timeline;
  /** Which agent wrote it: `claude-code`, `codex`; absent for opencode. */
  readonly agent?: string;
  /** The context size (tokens) at which that agent compacts, when its transcript tells. */
  readonly usable?: number | null;
}

/** The limits a session is decided with: the flags', else the line its agent's transcript tells (as an input limit, nothing reserved). */
export function sessionLimits(session: SessionData, options: SessionDecisionOptions): Pick<SessionDecisionOptions, "limits" | "reserved"> {
  const flagged = options.limits?.context !== undefined || options.limits?.input !== undefined;
  if (flagged || typeof session.usable !== "number") return { limits: options.limits, reserved: options.reserved };
  return { limits: { context: session.usable, input: session.usable }, reserved: 0 };
}

/** What a session's decisions depend on besides its history: the inputs `replay` takes from its flags. */
export interface SessionDecisionOptions {
  readonly settings: GuardSettings;
  /** The model's limits (tokens), when known. */
  readonly limits?: Partial<ModelLimits> | undefined;
  /** opencode's `compaction.reserved` (tokens), when set. */
  readonly reserved?: number | undefined;
}

/** The session's parent (a subagent's session, started by the task tool), or null. */
export function parentOf(info: SessionData["info"]): string | null {
  return typeof info.parentID === "string" && info.parentID !== "" ? info.parentID : null;
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
 * @param messages `Array<{ info, parts }>`, oldest first (`opencode export`'s `messages`): the
 *   whole session (`wholeSession` is true unless `options` says otherwise).
 */
export function replayMessages(messages: readonly unknown[], settings: GuardSettings, options: DecideOptions = {}): ReplayRow[] {
  return replayTimeline(buildTimeline(messages), settings, options);
}

/** {@link replayMessages} of a timeline already built (`buildTimeline` of the whole session). */
export function replayTimeline(timeline: Timeline, settings: GuardSettings, options: DecideOptions = {}): ReplayRow[] {
  return rowsOf(timeline, contextOf(settings, { wholeSession: true, ...options }));
}

/** The rows of every automatic compaction with a successful summary, oldest first: each its verdict ({@link decideWith}) and sizes. */
function rowsOf(timeline: Timeline, context: RuleContext): ReplayRow[] {
  const rows: ReplayRow[] = [];
  const { compactions } = timeline;
  for (let i = 0; i < compactions.length; i++) {
    const c = compactions[i]!;
    if (!c.auto || !c.succeeded) continue;
    const sizes = compactionSizes(timeline.entries, c);
    const verdict = decideWith(timeline, c, context);
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
  /** Every call where the tool-loop check would have acted (decide/tool-loop.ts), oldest first. */
  readonly toolLoop: readonly ToolLoopEntry[];
}

/**
 * Replays a whole session: `replay`'s own path (`audit` calls this too). The project
 * directory and whether the session is a subagent's come from `info`.
 * @param walk.toolLoop whether to walk the session for the tool-loop check (default true). No
 *   row reads the walk: audit's table and `--json` leave it out; its charts show it.
 * @returns the session's timeline, one row per automatic compaction with a successful summary,
 *   oldest first, and where the tool-loop check would have acted (empty without the walk).
 */
export function replaySession(
  session: SessionData,
  options: SessionDecisionOptions,
  walk: { readonly toolLoop?: boolean } = {},
): ReplayedSession {
  const timeline = session.timeline ?? buildTimeline(session.messages);
  const directory = session.info.directory;
  const context = contextOf(options.settings, {
    ...sessionLimits(session, options),
    directory: typeof directory === "string" ? directory : undefined,
    subagent: parentOf(session.info) !== null,
    wholeSession: true,
  });
  const rows = rowsOf(timeline, context);
  const toolLoop =
    walk.toolLoop === false ? [] : toolLoopsOf(timeline, options.settings, typeof directory === "string" ? directory : undefined);
  return { timeline, rows, toolLoop };
}

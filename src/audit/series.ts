/**
 * A session's context size per step, with replay's decisions placed on it: what the HTML
 * report's SVG charts and `replay --chart`'s terminal chart draw. Pure.
 */
import { compactionEnd, isStep, type Timeline } from "../decide/history.js";
import { realUserAfter } from "../decide/timeline.js";
import type { ReplayRow } from "../decide/replay.js";
import type { AuditSession, SessionSeries } from "./types.js";

/**
 * Builds the chart data of one session.
 *
 * - `steps`: one value per step (an assistant message that is not a compaction summary, see
 *   `isStep`), oldest first: its context size in tokens (`contextTokens`: `tokens.total`, else
 *   input + output + cache), or null when opencode recorded none (a refused request).
 * - `compactions`: one per replay row, in row order. `afterStep` is the index in `steps` of the
 *   last step before the compaction message (the step that set it off), −1 when no step came
 *   before it. Several compactions in a row without a step between them share `afterStep`.
 *   A row whose compaction is not in `timeline` (rows of another session) is left out.
 * - `firstDeny`: index into `compactions` of the first `deny`, or null. The steps after
 *   `steps[compactions[firstDeny].afterStep]` are what the guard would have saved, up to
 * - `userStep`: the first step after the user's next real message after that deny's summary
 *   (null when the user did not speak again): from there on the user asked for the work.
 *
 * @param timeline `buildTimeline` of the session's messages.
 * @param rows `replayMessages` of the same messages (automatic compactions with a summary).
 * @param usable opencode's usable context in tokens (`usableContext`), or null when the model's
 *   limits are unknown; copied to the series.
 * @param info the session's id, title and parent (a subagent's session), copied to the series.
 */
export function sessionSeries(
  timeline: Timeline,
  rows: readonly ReplayRow[],
  usable: number | null,
  info: { readonly id: string; readonly title: string; readonly parentID?: string | null },
): SessionSeries {
  const steps: Array<number | null> = [];
  /** For each entry position: how many steps lie strictly before it. */
  const stepsBefore: number[] = [];
  for (const entry of timeline.entries) {
    stepsBefore.push(steps.length);
    if (isStep(entry)) steps.push(entry.contextTokens);
  }
  const positions = new Map<string, number>();
  for (const compaction of timeline.compactions) {
    if (!positions.has(compaction.messageID)) positions.set(compaction.messageID, compaction.position);
  }

  const compactions: Array<SessionSeries["compactions"][number]> = [];
  for (const row of rows) {
    const position = positions.get(row.compaction.messageID);
    if (position === undefined) continue;
    compactions.push({
      index: row.compaction.index,
      afterStep: stepsBefore[position]! - 1,
      decision: row.decision,
      rule: row.rule,
      severity: row.severity,
    });
  }
  const deny = compactions.findIndex((c) => c.decision === "deny");
  let userStep: number | null = null;
  if (deny !== -1) {
    const denied = rows.find((r) => r.decision === "deny");
    const compaction = timeline.compactions.find((c) => c.messageID === denied?.compaction.messageID);
    const user = compaction ? realUserAfter(timeline, compactionEnd(compaction)) : -1;
    if (user !== -1) userStep = stepsBefore[user]!;
  }
  return {
    sessionID: info.id,
    title: info.title,
    steps,
    compactions,
    usable,
    firstDeny: deny === -1 ? null : deny,
    userStep,
    ...(info.parentID !== undefined ? { parentID: info.parentID } : {}),
  };
}

/**
 * How many steps come after the first deny (what the guard would have saved): the steps
 * after the one that set off the first denied compaction, up to the user's next real message
 * (`userStep`; the steps the user asked for are not counted). 0 without a deny.
 */
export function stepsAfterFirstDeny(series: SessionSeries): number {
  if (series.firstDeny === null) return 0;
  const deny = series.compactions[series.firstDeny];
  const end = Math.min(series.userStep ?? series.steps.length, series.steps.length);
  return deny === undefined ? 0 : Math.max(0, end - 1 - deny.afterStep);
}

/** A count with thousands separators: `44,100`. */
export const num = (n: number): string => Math.round(n).toLocaleString("en-US");

/** `1 step`, `7 steps`. */
export const plural = (n: number, word: string): string => `${num(n)} ${word}${n === 1 ? "" : "s"}`;

/**
 * A wall time for the table, the HTML report and the charts alike: `4.2 s` (one decimal
 * under a minute), `3 min 05 s`, `1 h 02 min`; `-` for null (unknown).
 */
export function formatSeconds(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return "-";
  if (seconds < 60) return `${Math.max(0, seconds).toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
  return `${Math.floor(whole / 3600)} h ${String(Math.floor((whole % 3600) / 60)).padStart(2, "0")} min`;
}

/** What an audit row says the first deny would have saved (the chart's own steps are counted from the series). */
export type SavedFigures = Pick<AuditSession, "continuesSaved" | "tokensAfterDeny" | "secondsAfterDeny">;

/**
 * The one sentence about a session's first deny, shared by the HTML caption and the terminal
 * chart's legend:
 * - `no deny: the guard would have let every continue turn through`;
 * - `first deny at compaction 2 (no-progress): nothing came after it, the session stopped there`
 *   (only when no step and no continue turn came after it);
 * - `first deny at compaction 2 (no-progress): the guard would have saved 7 steps, 7 continue
 *   turns, 44,100 tokens and 1 min 35 s` (`tokens unknown` / `wall time unknown` for null),
 *   then `, until the user stepped in` when the user spoke after the deny.
 * @param saved the audit row's figures; without them only the steps are told.
 */
export function denySentence(series: SessionSeries, saved?: SavedFigures): string {
  const deny = series.firstDeny === null ? undefined : series.compactions[series.firstDeny];
  if (deny === undefined) return "no deny: the guard would have let every continue turn through";
  const head = `first deny at compaction ${deny.index}${deny.rule ? ` (${deny.rule})` : ""}: `;
  const steps = stepsAfterFirstDeny(series);
  if (steps === 0 && (saved === undefined || saved.continuesSaved === 0)) {
    return `${head}${(series.userStep ?? null) !== null ? "the user stepped in right after it, nothing to save" : "nothing came after it, the session stopped there"}`;
  }
  const parts = [plural(steps, "step")];
  if (saved !== undefined) {
    parts.push(plural(saved.continuesSaved, "continue turn"));
    parts.push(saved.tokensAfterDeny === null ? "tokens unknown" : plural(saved.tokensAfterDeny, "token"));
    parts.push(saved.secondsAfterDeny === null ? "wall time unknown" : formatSeconds(saved.secondsAfterDeny));
  }
  const list = parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)!}`;
  return `${head}the guard would have saved ${list}${(series.userStep ?? null) !== null ? ", until the user stepped in" : ""}`;
}

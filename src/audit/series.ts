/**
 * A session's context size per step, with replay's decisions placed on it: what the HTML
 * report's SVG charts and `replay --chart`'s terminal chart draw. Pure.
 */
import { isStep } from "../model/entry.js";
import { compactionEnd, type Timeline } from "../model/timeline.js";
import { realUserAfter } from "../model/timeline.js";
import type { ReplayRow } from "../guard/replay.js";
import type { ToolLoopEntry } from "../judge/tool-loop.js";
import type { SessionSeries } from "./types.js";

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
 * - `firstDeny`: index into `compactions` of `firstDeny`'s compaction, or null. The steps after
 *   `steps[compactions[firstDeny].afterStep]` are what the guard would have saved, up to
 * - `userStep`: the first step after the user's next real message after that deny's summary
 *   (null when the user did not speak again): from there on the user asked for the work.
 *
 * @param timeline `buildTimeline` of the session's messages.
 * @param rows `replayTimeline` of the same timeline (automatic compactions with a summary).
 * @param firstDeny the row of `rows` where the guard stops the session (`ReplayedSession.firstDeny`).
 * @param usable the host's usable context in tokens (`usableContext`), or null when the model's
 *   limits are unknown; copied to the series.
 * @param info the session's id, title and parent (a subagent's session), copied to the series.
 * @param toolLoop where the tool-loop check would have acted (`ReplayedSession.toolLoop`), when known.
 */
export function sessionSeries(
  timeline: Timeline,
  rows: readonly ReplayRow[],
  firstDeny: ReplayRow | undefined,
  usable: number | null,
  info: { readonly id: string; readonly title: string; readonly parentID?: string | null },
  toolLoop?: readonly ToolLoopEntry[],
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
  const deny = firstDeny === undefined ? -1 : compactions.findIndex((c) => c.index === firstDeny.compaction.index);
  let userStep: number | null = null;
  if (deny !== -1) {
    const compaction = timeline.compactions.find((c) => c.messageID === firstDeny?.compaction.messageID);
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
    ...(toolLoop !== undefined ? { toolLoop: toolLoop.map(({ step, action, runs }) => ({ step: step - 1, action, runs })) } : {}),
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

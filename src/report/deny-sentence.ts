/** The one sentence about a session's first deny, shared by the HTML page's captions and the terminal chart's legend. */
import { stepsAfterFirstDeny } from "../audit/series.js";
import type { AuditSession, SessionSeries } from "../audit/types.js";
import { formatSeconds, plural } from "./format.js";

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

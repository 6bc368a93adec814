/** `replay --chart`: the session's context size per step, as a terminal line chart with its legend. */
import type { ReplayResult } from "./replay-types.js";
import { hostWords } from "../hosts/read.js";

/**
 * The chart at `chartWidth()` columns, with what the first deny would have saved (as audit and
 * its HTML report tell it). The chart and audit's sums are loaded only here (the chart brings
 * asciichart). One timeline and one decision pass: the chart comes from the replay's rows.
 */
export async function replayChart({ session, file, replayed, options, chartWidth }: ReplayResult): Promise<string> {
  const [{ terminalChart }, { auditedSeries, auditSession }] = await Promise.all([import("./pictures.js"), import("../audit/audit.js")]);
  const audited = auditSession(session, file, options, replayed);
  return terminalChart(auditedSeries(audited), { width: chartWidth(), saved: audited.row, host: hostWords(session.agent) });
}

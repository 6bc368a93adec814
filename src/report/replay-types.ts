/** What every output of `replay` is made from (report/index.ts `REPLAY_OUTPUTS`). */
import type { ReplayedSession } from "../guard/replay.js";
import type { SessionData } from "../model/session.js";
import type { SessionDecisionOptions } from "../sources/sources.js";

/** One replayed session, with what its outputs need besides the rows. */
export interface ReplayResult {
  readonly session: SessionData;
  /** The file as given on the command line (`-`: standard input). */
  readonly file: string;
  /** Its timeline, one row per automatic compaction with a successful summary, and the tool-loop walk. */
  readonly replayed: ReplayedSession;
  /** The usable context the session was decided with, tokens; null when unknown. */
  readonly usable: number | null;
  /** The decision options the command line gave (settings, model limits, `compaction.reserved`). */
  readonly options: SessionDecisionOptions;
  /** The terminal chart's width in columns; called only when the chart is drawn. */
  readonly chartWidth: () => number;
}

/**
 * The guard's decision at each automatic compaction of a session, one line each, in the words
 * of its note: what `/guard` shows in the 1.x TUI (./opencode-v1/guard-command.ts) and in the
 * 2.x TUI part (./opencode-v2/v2-tui.ts). Pure.
 */
import { compactionEnd, type Timeline } from "../model/timeline.js";
import type { ReplayRow } from "../guard/replay.js";
import { describeEvidence } from "../judge/explain.js";
import { allowedBecause } from "../guard/notices.js";
import { OPENCODE_V2_WORDS, OPENCODE_WORDS } from "../hosts/opencode/words.js";

/** Does a continue turn follow the compaction's summary (opencode added it)? */
function continued(timeline: Timeline, row: ReplayRow): boolean {
  const compaction = timeline.compactions.find((c) => c.messageID === row.compaction.messageID);
  if (!compaction) return false;
  const next = timeline.entries[compactionEnd(compaction) + 1];
  return next?.kind === "user" && next.role === "continue";
}

/**
 * One line per row (`replayTimeline` of `timeline`): `compaction N: allowed auto-continue: why`,
 * `compaction N: stopped auto-continue (rule: why)`, or, when the continue turn was added all
 * the same (observe mode, `/guard off`), `would have stopped …`. For opencode's V2 runner
 * (`v2`), which has no continue turn, a stop reads `would stop the session here (rule: why)` (the guard interrupts it there when it runs).
 */
export function decisionLines(timeline: Timeline, rows: readonly ReplayRow[], v2 = false): string[] {
  return rows.map((row) => {
    const name = `compaction ${row.compaction.index}`;
    if (row.decision === "allow") return `${name}: allowed ${v2 ? "the session to go on" : "auto-continue"}: ${allowedBecause(row)}`;
    const why = `${row.rule}: ${describeEvidence(row, v2 ? OPENCODE_V2_WORDS : OPENCODE_WORDS)}.`;
    if (v2) return `${name}: ${row.severity === "info" ? "nothing to stop" : "would stop the session here"} (${why.slice(0, -1)})`;
    const verb = row.severity === "info" ? "skipped" : "stopped";
    return continued(timeline, row)
      ? `${name}: would have ${verb} auto-continue, but the continue turn was added (observe mode, or /guard off): ${why}`
      : `${name}: ${verb} auto-continue (${why.slice(0, -1)})`;
  });
}

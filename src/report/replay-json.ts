/** `replay --json`: one JSON object for the session, every text from it made terminal-safe. */
import { shownToolName } from "../redact/preview.js";
import { guardStops, liveStopIndex } from "../model/timeline.js";
import { terminalSafeJson } from "../redact/terminal-safe.js";
import type { ReplayResult } from "./replay-types.js";

/**
 * `{ sessionID, compactions, firstDeny, toolLoop, liveGuard }`: each compaction's index,
 * message id, decision, rules and evidence, sizes (tokens); the first deny's index (where the live guard stops the session) or null;
 * where the tool-loop check would have acted; where the live guard stopped the session.
 */
export function replayJson({ session, replayed }: ReplayResult): string {
  const { rows, firstDeny } = replayed;
  const numbered = rows.map((r) => r.compaction);
  const compactions = rows.map((r) => ({
    index: r.compaction.index,
    messageID: r.compaction.messageID,
    decision: r.decision,
    rule: r.rule,
    severity: r.severity,
    fired: r.fired,
    triggerTokens: r.triggerTokens,
    afterTokens: r.afterTokens,
    evidence: r.evidence,
  }));
  const toolLoop = replayed.toolLoop.map(({ step, action, runs, messageID, tool, preview }) => ({
    step,
    action,
    runs,
    messageID,
    // As the table shows it: secrets masked, at most 40 characters.
    tool: shownToolName(tool),
    preview,
  }));
  const liveGuard = guardStops(session.timeline).map((stop) => ({ ...stop, compaction: liveStopIndex(stop, numbered) }));
  return terminalSafeJson({
    sessionID: session.record.id,
    compactions,
    firstDeny: firstDeny?.compaction.index ?? null,
    toolLoop,
    liveGuard,
  });
}

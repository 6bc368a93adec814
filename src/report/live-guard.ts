/**
 * The line replay prints about what the live guard did in the session, read from its stop
 * notes (`UserEntry.guardNote`), so that a replay with other settings or without the model's
 * limits does not leave the user guessing which of the two to believe.
 */
import type { GuardStop } from "../model/entry.js";
import type { NumberedCompaction } from "../model/timeline.js";
import { terminalSafe } from "../redact/terminal-safe.js";
import { fmt } from "./format.js";

/**
 * Where the live guard stopped, in words: `stopped at compaction 1 (cannot-make-room, usable
 * context 6,000 tokens)` or `stopped a tool loop (refused a repeated call)`; a compaction that
 * is not among `compactions` is named by its message id.
 */
export function describeLiveStop(stop: GuardStop, compactions: readonly NumberedCompaction[]): string {
  if (stop.kind === "tool-loop") return "stopped a tool loop (refused a repeated call)";
  const at = compactions.find((c) => c.messageID === stop.compactionMessageID);
  const where = at ? `at compaction ${at.index}` : `after compaction message ${terminalSafe(stop.compactionMessageID ?? "unknown")}`;
  const why = [
    terminalSafe(stop.rule ?? "rule not recorded"),
    ...(stop.usableTokens === null ? [] : [`usable context ${fmt(stop.usableTokens)} tokens`]),
  ];
  return `stopped ${where} (${why.join(", ")})`;
}

/**
 * Replay's `live guard:` line: each stop the guard's notes record, oldest first; "" when the
 * session holds no note (the guard did not stop it, or was not loaded, or `notify: off`).
 */
export function liveGuardLine(stops: readonly GuardStop[], compactions: readonly NumberedCompaction[]): string {
  if (stops.length === 0) return "";
  return `live guard: ${stops.map((s) => describeLiveStop(s, compactions)).join("; then ")}`;
}

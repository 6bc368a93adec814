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

/**
 * Why replay's verdict is not the live guard's, when they differ: replay's first deny is not
 * at the compaction the live guard stopped at (its first compaction stop). Names the model's
 * limits when the guard knew a usable context and this replay did not (`usable` null); ""
 * when they agree or the guard made no compaction stop.
 */
export function liveDifferenceLine(stops: readonly GuardStop[], firstDenyMessageID: string | undefined, usable: number | null): string {
  const stop = stops.find((s) => s.kind === "compaction");
  if (!stop || stop.compactionMessageID === firstDenyMessageID) return "";
  if (usable === null && stop.usableTokens !== null)
    return `replay differs from the live guard: it knew the model's limits (usable context ${fmt(stop.usableTokens)} tokens); replay with --context-limit and --output-limit to decide as it did`;
  return "replay differs from the live guard: it decided with the settings and model limits of its own run; replay with the same to decide as it did";
}

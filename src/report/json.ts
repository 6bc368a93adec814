/** `audit --json`: the rows and totals as one JSON object. */
import type { AuditResult } from "../audit/types.js";
import { terminalSafeJson } from "../redact/terminal-safe.js";

/**
 * `audit --json`: one object, `{ sessions: [...], totals }` (the documented shape: each session
 * says `stoppedByGuard` when the guard itself already stopped its loop, and the totals count
 * those in `stoppedByGuard`, apart from the `looping` that ran on unguarded; plus `parentID`,
 * `created` (ms since the epoch or null) and `usable`: the host's usable context the session
 * was decided with, tokens, or null when its model's limits are unknown; `liveStop`: where the
 * live guard's stop note says it stopped, `{ compaction, rule }`, or null). C1 and bidi controls
 * in its strings are `\u` escapes, as C0 ones are (terminal-safe, still the same JSON values).
 */
export function auditJson(result: AuditResult): string {
  return terminalSafeJson({
    sessions: result.rows.map((r) => ({
      sessionID: r.sessionID,
      source: r.source,
      title: r.title,
      compactions: r.compactions,
      firstDeny: r.firstDeny,
      rule: r.rule,
      stoppedByGuard: r.stoppedByGuard,
      continuesSaved: r.continuesSaved,
      tokensAfterDeny: r.tokensAfterDeny,
      secondsAfterDeny: r.secondsAfterDeny,
      parentID: r.parentID,
      created: r.created,
      usable: r.usable,
      liveStop: r.liveStop,
      ...(r.agent === undefined ? {} : { agent: r.agent }),
    })),
    totals: {
      sessions: result.totals.sessions,
      looping: result.totals.looping,
      stoppedByGuard: result.totals.stoppedByGuard,
      continuesSaved: result.totals.continuesSaved,
      tokensAfterDeny: result.totals.tokensAfterDeny,
    },
  });
}

/**
 * `audit`'s table: one row per listed session, padded by display width, everything untrusted
 * made terminal-safe; then the totals line.
 */
import type { AuditResult, AuditSession, AuditTotals } from "../audit/types.js";
import { fmt, formatDate, formatSeconds, plural } from "./format.js";
import { terminalSafe } from "../redact/terminal-safe.js";
import { cutToWidth, displayWidth, padToWidth } from "./terminal.js";

/** A title for one table cell: control and bidi characters made visible (terminalSafe), at most `max` columns. */
function cell(text: string, max: number): string {
  return cutToWidth(terminalSafe(text).trim(), max);
}

/** The title cell: a subagent's session is labelled with its parent. */
const titleCell = (row: AuditSession): string =>
  row.parentID === null ? cell(row.title, 40) : `↳ subagent of ${cell(row.parentID, 40)}: ${cell(row.title, 30)}`;

/** The totals line of the table. */
export function totalsLine(totals: AuditTotals, listed: number): string {
  return (
    `totals: ${plural(totals.sessions, "session")} read, ${fmt(listed)} with automatic compactions (listed), ` +
    `${fmt(totals.sessions - listed)} without; ${fmt(totals.looping)} looping; the guard would have saved ` +
    `${plural(totals.continuesSaved, "synthetic continue turn")} and ${plural(totals.tokensAfterDeny, "token")}`
  );
}

/** The audit table: one row per listed session, then the totals line. */
export function auditTable(result: AuditResult): string {
  const header = [
    "session",
    "title",
    "created (UTC)",
    "compactions",
    "first deny",
    "rule",
    "continues saved",
    "tokens saved",
    "time saved",
  ];
  const body = result.rows.map((r) => [
    terminalSafe(r.sessionID),
    titleCell(r),
    formatDate(r.created),
    String(r.compactions),
    r.firstDeny === null ? "-" : String(r.firstDeny),
    r.rule ?? "-",
    // Never denied: nothing to save, `-` in all three (as in the HTML report; --json has 0).
    r.firstDeny === null ? "-" : String(r.continuesSaved),
    r.firstDeny === null ? "-" : fmt(r.tokensAfterDeny),
    r.firstDeny === null ? "-" : formatSeconds(r.secondsAfterDeny),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => displayWidth(row[i]!))));
  const right = new Set([3, 4, 6, 7, 8]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => padToWidth(c, widths[i]!, right.has(i) ? "start" : "end"))
      .join("  ")
      .trimEnd();
  const lines = result.rows.length > 0 ? [line(header), ...body.map(line)] : ["no session with an automatic compaction"];
  return [...lines, totalsLine(result.totals, result.rows.length)].join("\n");
}

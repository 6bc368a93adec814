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

/** The source cell: the export file's name (`stdin` for `-`), or the opencode it was read through. */
function sourceCell(source: string): string {
  if (source === "-") return "stdin";
  return cell(source === "opencode" ? source : (source.split(/[\\/]/).filter(Boolean).at(-1) ?? source), 30);
}

/**
 * The loop cell: the guard already stopped it (`stopped by guard at 1` when its note says
 * where, with the note's rule when it is not the rule column's), it ran on (the guard would
 * have stopped it), or no loop.
 */
function loopCell(row: AuditSession): string {
  const live = row.liveStop;
  if (live === null) return !row.looped ? "-" : row.stoppedByGuard ? "stopped by guard" : "ran on";
  const at = live.compaction === null ? "" : ` at ${live.compaction}`;
  const rule = live.rule === null || live.rule === row.rule ? "" : ` (${terminalSafe(live.rule)})`;
  return `stopped by guard${at}${rule}`;
}

/**
 * The totals line of the table: what was read (and how many of those `--since` kept, a session
 * found twice counted once), the loops the guard stopped and those that ran on, and what it
 * would have saved.
 * @param read sessions read before `--since`; @param listed rows listed;
 * @param duplicates sessions read again from another export (counted once, each named on its own line).
 */
export function totalsLine(totals: AuditTotals, listed: number, read: number = totals.sessions, duplicates = 0): string {
  const distinct = duplicates === 0 ? "" : " distinct";
  const since = read - duplicates === totals.sessions ? "" : `${distinct ? " and" : ""} active since --since`;
  const kept = read === totals.sessions ? "" : `, ${fmt(totals.sessions)}${distinct}${since}:`;
  return (
    `totals: ${plural(read, "session")} read${kept}${kept ? " " : ", "}${fmt(listed)} with automatic compactions (listed), ` +
    `${fmt(totals.sessions - listed)} without; ${plural(totals.stoppedByGuard, "loop")} stopped by the guard, ` +
    `${fmt(totals.looping)} ran on (looping); the guard would have saved ` +
    `${plural(totals.continuesSaved, "synthetic continue turn")} and ${plural(totals.tokensAfterDeny, "token")}`
  );
}

/** The line under the table when some sessions were decided without their model's limits, or "". */
function unknownLimitsLine(rows: readonly AuditSession[]): string {
  const unknown = rows.filter((r) => r.usable === null).length;
  if (unknown === 0) return "";
  return (
    `model limits unknown for ${plural(unknown, "session")} (usable: unknown): no-progress compared their compactions ` +
    "with each other only; give --context-limit and --output-limit"
  );
}

/**
 * Totals per agent over the listed sessions, when some came from other agents' transcripts:
 * `by agent (listed): claude-code 3 (1 looping, 12,000 tokens saved); codex 2 (0 looping, …); opencode …`.
 */
function agentTotalsLine(rows: readonly AuditSession[]): string {
  const by = new Map<string, { listed: number; looping: number; tokens: number }>();
  for (const r of rows) {
    const name = r.agent ?? "opencode";
    const t = by.get(name) ?? { listed: 0, looping: 0, tokens: 0 };
    t.listed += 1;
    if (r.looped && !r.stoppedByGuard) t.looping += 1;
    t.tokens += r.firstDeny === null ? 0 : (r.tokensAfterDeny ?? 0);
    by.set(name, t);
  }
  const parts = [...by].sort(([a], [b]) => (a < b ? -1 : 1));
  return `by agent (listed): ${parts.map(([name, t]) => `${name} ${fmt(t.listed)} (${fmt(t.looping)} looping, ${plural(t.tokens, "token")} saved)`).join("; ")}`;
}

/** The audit table: one row per listed session, then the totals line. */
export function auditTable(result: AuditResult): string {
  const header = [
    "session",
    "title",
    "source",
    "created (UTC)",
    "usable",
    "compactions",
    "first deny",
    "rule",
    "loop",
    "continues saved",
    "tokens saved",
    "time saved",
  ];
  const body = result.rows.map((r) => [
    terminalSafe(r.sessionID),
    titleCell(r),
    sourceCell(r.source),
    formatDate(r.created),
    r.usable === null ? "unknown" : fmt(r.usable),
    String(r.compactions),
    r.firstDeny === null ? "-" : String(r.firstDeny),
    r.rule ?? "-",
    loopCell(r),
    // Never denied: nothing to save, `-` in all three (as in the HTML report; --json has 0).
    r.firstDeny === null ? "-" : String(r.continuesSaved),
    r.firstDeny === null ? "-" : fmt(r.tokensAfterDeny),
    r.firstDeny === null ? "-" : formatSeconds(r.secondsAfterDeny),
  ]);
  // Sessions of other agents' transcripts: an agent column first (opencode's own rows say opencode).
  const agents = result.rows.some((r) => r.agent !== undefined);
  if (agents) {
    header.unshift("agent");
    result.rows.forEach((r, i) => body[i]!.unshift(r.agent ?? "opencode"));
  }
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => displayWidth(row[i]!))));
  const right = new Set([4, 5, 6, 9, 10, 11].map((i) => (agents ? i + 1 : i)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => padToWidth(c, widths[i]!, right.has(i) ? "start" : "end"))
      .join("  ")
      .trimEnd();
  const lines = result.rows.length > 0 ? [line(header), ...body.map(line)] : ["no session with an automatic compaction"];
  const unknown = unknownLimitsLine(result.rows);
  return [
    ...lines,
    ...(unknown ? [unknown] : []),
    ...(agents ? [agentTotalsLine(result.rows)] : []),
    totalsLine(result.totals, result.rows.length, result.read, result.duplicates.length),
  ].join("\n");
}

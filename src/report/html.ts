/**
 * `audit --html <file>`: one self-contained HTML page (inline CSS, inline SVG, no script, no
 * network) with the audit's totals, its per-session table and, per session with automatic
 * compactions, a chart of the context size per step. The SVG is built here, server-side,
 * with d3-scale (scales, ticks) and d3-shape (the line's path).
 */
import { scaleLinear, type ScaleLinear } from "d3-scale";
import { line } from "d3-shape";
import type { AuditReport, AuditSession, SessionSeries } from "../audit/types.js";
import { stepsAfterFirstDeny } from "../audit/series.js";
import { denySentence } from "./deny-sentence.js";
import { hostWords } from "../hosts/read.js";
import { formatDate, formatSeconds, num, plural } from "./format.js";
import { terminalSafe } from "../redact/terminal-safe.js";

/** Escapes text for an HTML text node or a double- or single-quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/**
 * Untrusted text (a title, an id, a path) for the page: control and bidi characters made
 * visible as on the terminal (`\x1b`, `\u202e`), escaped, and isolated in `<bdi>` so a
 * right-to-left title cannot reorder the text around it.
 */
const untrusted = (text: string): string => `<bdi>${escapeHtml(terminalSafe(text))}</bdi>`;

/** `2026-11-30 18:17 UTC`, or `-` without a time. */
const date = (ms: number | null): string => (ms === null || !Number.isFinite(ms) ? "-" : `${formatDate(ms)} UTC`);

/** Chart geometry, px. */
const WIDTH = 1000;
const HEIGHT = 280;
/** The top margin holds two rows of labels (the first deny, what it would have saved) and the compactions' indices. */
const MARGIN = { top: 52, right: 18, bottom: 36, left: 58 } as const;
/** Baselines of the two label rows above the plot, px. */
const ROW1 = 14;
const ROW2 = 29;
/** Steps up to this many get a dot each. */
const DOTS_UP_TO = 80;
/** Rough width of one character of the 11 px labels, px (to place labels without measuring). */
const CHAR_PX = 6.2;

const COLORS = {
  line: "#2563eb",
  allow: "#6b7280",
  deny: "#dc2626",
  usable: "#b45309",
  saved: "#fee2e2",
  grid: "#e5e7eb",
  axis: "#9ca3af",
  text: "#374151",
} as const;

/** A point of the context line: x in steps (1-based), y in tokens (null: no data, a gap). */
type Point = readonly [number, number | null];

/**
 * The points the line goes through. Up to one point per step; a session with more steps than
 * the plot has pixels keeps, per pixel column, the smallest and the largest size of the steps
 * it covers (in their order), so peaks and drops stay visible and the path stays small.
 */
function linePoints(steps: SessionSeries["steps"], pixels: number): Point[] {
  const points: Point[] = steps.map((tokens, i) => [i + 1, tokens]);
  if (steps.length <= pixels) return points;
  const out: Point[] = [];
  const columns = Math.max(1, Math.floor(pixels));
  let start = 0;
  for (let column = 0; column < columns && start < points.length; column++) {
    const end = Math.max(start + 1, Math.floor(((column + 1) * points.length) / columns));
    let min: Point | undefined;
    let max: Point | undefined;
    for (let i = start; i < end; i++) {
      const p = points[i]!;
      if (p[1] === null) continue;
      if (min === undefined || p[1] < min[1]!) min = p;
      if (max === undefined || p[1] > max[1]!) max = p;
    }
    if (min === undefined || max === undefined) out.push([points[start]![0], null]);
    else if (min === max) out.push(min);
    else out.push(...(min[0] < max[0] ? [min, max] : [max, min]));
    start = end;
  }
  return out;
}

/** A `<text>` element; `text` is escaped. */
const label = (x: number, y: number, text: string, attrs = ""): string =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}"${attrs ? ` ${attrs}` : ""}>${escapeHtml(text)}</text>`;

/** The x of the gap after 0-based step `afterStep` (−1: before the first step). */
const markX = (x: ScaleLinear<number, number>, afterStep: number): number => x(afterStep + 1.5);

/**
 * One session's chart as an inline `<svg>` (no namespace needed inside HTML): steps on x,
 * context tokens on y; compactions as vertical marks labelled with their index (denied ones
 * red), the usable-context line dashed when known, the first deny marked and the steps after
 * it shaded "would have been saved". About 2–10 KB.
 */
export function renderChartSvg(series: SessionSeries, id = "chart"): string {
  const n = series.steps.length;
  const left = MARGIN.left;
  const right = WIDTH - MARGIN.right;
  const top = MARGIN.top;
  const bottom = HEIGHT - MARGIN.bottom;
  const known = series.steps.filter((t): t is number => t !== null);
  const peak = known.reduce((most, t) => Math.max(most, t), Math.max(0, series.usable ?? 0));
  const x = scaleLinear()
    .domain([0.5, Math.max(1, n) + 0.5])
    .range([left, right]);
  const y = scaleLinear()
    .domain([0, peak > 0 ? peak * 1.08 : 1])
    .nice()
    .range([bottom, top]);
  const parts: string[] = [];

  // The steps after the first deny: shaded, under everything else.
  const deny = series.firstDeny === null ? undefined : series.compactions[series.firstDeny];
  const saved = stepsAfterFirstDeny(series);
  const userStep = series.userStep ?? null;
  if (deny !== undefined && saved > 0) {
    const from = markX(x, deny.afterStep);
    // Up to the user's next real message: the steps after it are the user's, not saved.
    const to = userStep !== null && userStep < n ? markX(x, userStep - 1) : right;
    parts.push(
      `<rect class="saved" x="${from.toFixed(1)}" y="2" width="${(to - from).toFixed(1)}" height="${bottom - 2}" fill="${COLORS.saved}"/>`,
    );
  }

  // Grid and axes.
  const yFormat = y.tickFormat(5, "~s");
  // No token data and no usable line: no scale to show (not a made-up 0–1 axis).
  for (const tick of peak > 0 ? y.ticks(5) : []) {
    const ty = y(tick);
    parts.push(`<line x1="${left}" x2="${right}" y1="${ty.toFixed(1)}" y2="${ty.toFixed(1)}" stroke="${COLORS.grid}"/>`);
    parts.push(label(left - 6, ty + 3.5, tick === 0 ? "0" : yFormat(tick), 'text-anchor="end"'));
  }
  const xTicks = x.ticks(Math.min(Math.max(n, 1), 10)).filter((t) => Number.isInteger(t) && t >= 1 && t <= Math.max(n, 1));
  for (const tick of xTicks) {
    const tx = x(tick);
    parts.push(`<line x1="${tx.toFixed(1)}" x2="${tx.toFixed(1)}" y1="${bottom}" y2="${bottom + 4}" stroke="${COLORS.axis}"/>`);
    parts.push(label(tx, bottom + 15, String(tick), 'text-anchor="middle"'));
  }
  parts.push(`<line x1="${left}" x2="${right}" y1="${bottom}" y2="${bottom}" stroke="${COLORS.axis}"/>`);
  parts.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${bottom}" stroke="${COLORS.axis}"/>`);
  parts.push(label((left + right) / 2, HEIGHT - 4, "step", 'text-anchor="middle" class="axis-title"'));
  parts.push(
    label(
      14,
      (top + bottom) / 2,
      "context tokens",
      `text-anchor="middle" class="axis-title" transform="rotate(-90 14 ${(top + bottom) / 2})"`,
    ),
  );

  // The usable-context line, when the limits are known.
  if (series.usable !== null) {
    const uy = y(series.usable);
    parts.push(
      `<line class="usable" x1="${left}" x2="${right}" y1="${uy.toFixed(1)}" y2="${uy.toFixed(1)}" stroke="${COLORS.usable}" stroke-width="1.5" stroke-dasharray="6 4"/>`,
    );
    parts.push(label(left + 6, uy - 5, `usable context ${num(series.usable)}`, `class="usable-label halo" fill="${COLORS.usable}"`));
  }

  // Compactions: one mark per gap between steps; back-to-back ones share a mark. Where marks
  // crowd, an index is written only when it clears the one before it and the first deny's.
  const groups = new Map<number, Array<SessionSeries["compactions"][number]>>();
  for (const c of series.compactions) groups.set(c.afterStep, [...(groups.get(c.afterStep) ?? []), c]);
  const denyX = deny === undefined ? undefined : markX(x, deny.afterStep);
  let lastLabelEnd = -Infinity;
  for (const [afterStep, group] of groups) {
    const cx = markX(x, afterStep);
    const denied = group.some((c) => c.decision === "deny");
    // Only housekeeping denies here (turn-finished, severity info): a solid grey mark, not a stopped loop's red.
    const housekeeping = denied && group.every((c) => c.decision !== "deny" || c.severity === "info");
    const first = deny !== undefined && group.includes(deny);
    const color = denied && !housekeeping ? COLORS.deny : COLORS.allow;
    const dash = denied ? "" : ' stroke-dasharray="3 3"';
    parts.push(
      `<line class="compaction ${denied ? "deny" : "allow"}${housekeeping ? " housekeeping" : ""}${first ? " first-deny" : ""}" x1="${cx.toFixed(1)}" x2="${cx.toFixed(1)}" y1="${top - 4}" y2="${bottom}" stroke="${color}" stroke-width="${first ? 2.5 : 1.5}"${dash}/>`,
    );
    // The first deny's line goes on up to its label, with a gap where its index is written.
    if (first) {
      parts.push(
        `<line class="first-deny-lead" x1="${cx.toFixed(1)}" x2="${cx.toFixed(1)}" y1="2" y2="${top - 21}" stroke="${color}" stroke-width="2.5"/>`,
      );
    }
    const indices = group.length > 3 ? `${group[0]!.index}–${group.at(-1)!.index}` : group.map((c) => c.index).join(",");
    const half = (indices.length * CHAR_PX) / 2 + 3;
    const clear = cx - half >= lastLabelEnd && (denyX === undefined || first || Math.abs(cx - denyX) >= 2 * half + CHAR_PX);
    if (first || clear) {
      parts.push(label(cx, top - 8, indices, `text-anchor="middle" class="mark halo" fill="${color}"`));
      lastLabelEnd = cx + half;
    }
  }

  // The first deny and what it would have saved.
  if (deny !== undefined) {
    const dx = markX(x, deny.afterStep);
    const housekeeping = deny.severity === "info";
    const denyText = `first deny #${deny.index}${deny.rule ? ` ${deny.rule}` : ""}${housekeeping ? " (housekeeping)" : ""}`;
    const roomLeft = dx - 8;
    const roomRight = WIDTH - 8 - dx;
    const denyLeft = roomLeft >= denyText.length * CHAR_PX;
    parts.push(
      label(
        denyLeft ? dx - 5 : dx + 5,
        ROW1,
        denyText,
        `text-anchor="${denyLeft ? "end" : "start"}" class="deny-label${housekeeping ? " housekeeping" : ""}"`,
      ),
    );
    if (saved > 0) {
      const savedText = `would have been saved: ${plural(saved, "step")}${userStep !== null ? " (until the user stepped in)" : ""}`;
      const savedFits = roomRight >= savedText.length * CHAR_PX;
      const savedRow = denyLeft && savedFits ? ROW1 : ROW2;
      parts.push(
        label(savedFits ? dx + 5 : WIDTH - 8, savedRow, savedText, `text-anchor="${savedFits ? "start" : "end"}" class="saved-label"`),
      );
    }
  }

  // The context size per step.
  const points = linePoints(series.steps, right - left);
  const path =
    line<Point>()
      .defined((p) => p[1] !== null)
      .x((p) => x(p[0]))
      .y((p) => y(p[1]!))
      .digits(1)(points) ?? "";
  if (path !== "")
    parts.push(`<path class="context" d="${path}" fill="none" stroke="${COLORS.line}" stroke-width="2" stroke-linejoin="round"/>`);
  if (n <= DOTS_UP_TO) {
    for (const [step, tokens] of points) {
      if (tokens !== null) parts.push(`<circle cx="${x(step).toFixed(1)}" cy="${y(tokens).toFixed(1)}" r="2.5" fill="${COLORS.line}"/>`);
    }
  }
  if (known.length === 0) {
    // On a blank of its own: a compaction's line may run through the middle of the plot.
    const text = "no token data in this session";
    const [cx, cy, half] = [(left + right) / 2, (top + bottom) / 2, (text.length * CHAR_PX) / 2 + 6];
    parts.push(
      `<rect class="blank" x="${(cx - half).toFixed(1)}" y="${(cy - 13).toFixed(1)}" width="${(2 * half).toFixed(1)}" height="18" fill="#fff"/>`,
    );
    parts.push(label(cx, cy, text, 'text-anchor="middle"'));
  }

  const title = `Context tokens per step of ${series.title || series.sessionID}`;
  return (
    `<svg id="${escapeHtml(id)}" class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-labelledby="${escapeHtml(id)}-title">` +
    `<title id="${escapeHtml(id)}-title">${escapeHtml(terminalSafe(title))}</title>` +
    parts.join("") +
    `</svg>`
  );
}

const STYLE = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #111827; background: #f9fafb; }
h1 { font-size: 22px; margin: 0 0 2px; }
h2 { font-size: 17px; margin: 28px 0 10px; }
.meta { color: #6b7280; margin: 0 0 18px; font-size: 13px; }
.totals { display: flex; flex-wrap: wrap; gap: 12px; margin-bottom: 8px; }
.total { background: #fff; border: 1px solid #e5e7eb; border-radius: 8px; padding: 10px 16px; min-width: 170px; }
.total b { display: block; font-size: 24px; font-variant-numeric: tabular-nums; }
.total.loop b { color: ${COLORS.deny}; }
.total span { color: #4b5563; font-size: 13px; }
table { border-collapse: collapse; background: #fff; border: 1px solid #e5e7eb; font-size: 13px; }
th, td { padding: 5px 10px; border-bottom: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
th { background: #f3f4f6; font-weight: 600; vertical-align: bottom; }
th.n { text-align: right; }
.scroll { max-width: 100%; overflow-x: auto; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.session { min-width: 14em; max-width: 340px; overflow-wrap: anywhere; }
td.session a { font-weight: 500; }
.sid { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 11px; color: #6b7280; white-space: nowrap; overflow-wrap: normal; }
td.date { white-space: nowrap; }
td.deny .rule { white-space: nowrap; }
.sub { color: #6b7280; font-size: 12px; }
.sub .pid { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 11px; white-space: nowrap; }
bdi { unicode-bidi: isolate; }
tr.loop td.deny { color: ${COLORS.deny}; font-weight: 600; }
tr.housekeeping td.deny { color: ${COLORS.allow}; }
tr.stopped td.deny { color: ${COLORS.allow}; }
a { color: #1d4ed8; }
.skipped { color: #6b7280; font-size: 13px; }
.legend { display: flex; flex-wrap: wrap; gap: 18px; font-size: 13px; color: #374151; margin-bottom: 8px; }
.legend i { display: inline-block; width: 22px; height: 0; vertical-align: middle; margin-right: 6px; border-top: 2px solid; }
.legend i.box { height: 12px; border: 0; background: ${COLORS.saved}; }
figure { margin: 0 0 18px; background: #fff; border: 1px solid #e5e7eb; border-radius: 8px; padding: 12px 14px 8px; width: ${WIDTH + 30}px; max-width: 100%; }
figcaption { font-size: 13px; color: #374151; margin-bottom: 4px; }
figcaption .t { font-weight: 600; color: #111827; }
figcaption .id { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; color: #6b7280; }
svg.chart { display: block; max-width: 100%; height: auto; font: 11px system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; fill: ${COLORS.text}; }
svg.chart .axis-title { fill: #6b7280; }
svg.chart .halo { paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
svg.chart .mark { font-weight: 600; }
svg.chart .deny-label { fill: ${COLORS.deny}; font-weight: 600; }
svg.chart .deny-label.housekeeping { fill: ${COLORS.allow}; }
svg.chart .saved-label { fill: #991b1b; }
`;

/** The subagent label of a session's title (as the terminal table has it), or "". */
const subagent = (parentID: string | null | undefined): string =>
  parentID ? `<span class="sub">↳ subagent of <span class="pid">${untrusted(parentID)}</span></span> ` : "";

/**
 * One table row; every text from the session escaped and isolated. The session cell holds the
 * title (a link to the chart; the export's path in its tooltip), a subagent's label, and the
 * session id on a line of its own. Unknown figures are `-`, and so are the saved figures of a
 * session never denied (as in the terminal table). A first deny that is housekeeping
 * (severity `info`: turn-finished), or a loop the guard itself already stopped, is grey and
 * says so; a loop that ran on is red.
 */
function tableRow(row: AuditSession, chartID: string): string {
  const housekeeping = row.severity === "info";
  const rule = row.rule ? ` <span class="rule">${escapeHtml(row.rule)}</span>` : "";
  const why = housekeeping ? "housekeeping" : row.stoppedByGuard ? "stopped by the guard" : "";
  const denyCell = row.firstDeny === null ? "-" : `#${row.firstDeny}${rule}${why ? ` <span class="why">(${why})</span>` : ""}`;
  const denied = row.firstDeny !== null;
  // A loop that ran on is red; one the guard already stopped, and housekeeping (turn-finished), grey.
  const rowClass = !denied ? "" : housekeeping ? ' class="housekeeping"' : row.stoppedByGuard ? ' class="stopped"' : ' class="loop"';
  return (
    `<tr${rowClass}>` +
    `<td class="session"><a href="#${chartID}" title="${escapeHtml(terminalSafe(row.source))}">${row.title ? untrusted(row.title) : "(untitled)"}</a>` +
    `${row.parentID ? `<br>${subagent(row.parentID)}` : ""}<div class="sid">${untrusted(row.sessionID)}</div></td>` +
    `<td class="date">${escapeHtml(date(row.created).replace(" UTC", ""))}</td>` +
    `<td class="n">${num(row.compactions)}</td>` +
    `<td class="deny">${denyCell}</td>` +
    `<td class="n">${denied ? num(row.continuesSaved) : "-"}</td>` +
    `<td class="n">${denied && row.tokensAfterDeny !== null ? num(row.tokensAfterDeny) : "-"}</td>` +
    `<td class="n">${denied ? escapeHtml(formatSeconds(row.secondsAfterDeny)) : "-"}</td>` +
    `</tr>`
  );
}

/** The line above a session's chart: title (a subagent's labelled), ids, the facts, and the one sentence about its first deny. */
function caption(row: AuditSession, series: SessionSeries): string {
  const denied = series.compactions.filter((c) => c.decision === "deny").length;
  const facts = [
    plural(series.steps.length, "step"),
    `${plural(series.compactions.length, "automatic compaction")}${denied ? ` (${num(denied)} denied)` : ""}`,
    series.usable === null ? "model limits unknown" : `usable context ${num(series.usable)} tokens`,
  ];
  return (
    `${subagent(row.parentID)}<span class="t">${row.title ? untrusted(row.title) : "(untitled)"}</span> <span class="id">${untrusted(row.sessionID)}</span>` +
    `${row.source && row.source !== "opencode" ? ` <span class="id">${untrusted(row.source)}</span>` : ""}<br>` +
    `${escapeHtml(facts.join(" · "))}<br>${escapeHtml(denySentence(series, row))}${toolLoopSentence(series)}`
  );
}

/**
 * The caption's tool-loop sentence (judge/tool-loop.ts): how many calls would have carried
 * the notice, from which step, and where the session would have been stopped; "" when none.
 */
function toolLoopSentence(series: SessionSeries): string {
  const entries = series.toolLoop ?? [];
  if (entries.length === 0) return "";
  const warned = entries.filter((e) => e.action === "warn");
  const stopped = entries.find((e) => e.action === "stop");
  const parts = [
    warned.length > 0
      ? `${plural(warned.length, "tool result")} would have carried the tool-loop notice, from step ${num(warned[0]!.step + 1)}`
      : "",
    stopped ? `the session would have been stopped at step ${num(stopped.step + 1)} (run ${num(stopped.runs)})` : "",
  ].filter((part) => part !== "");
  return `<br><span class="toolloop">${escapeHtml(`Tool loop: ${parts.join("; ")}.`)}</span>`;
}

/**
 * The whole page, as one HTML string: totals on top, the table of sessions with compactions,
 * the skipped files, then one chart per session (in `report.sessions` order). No script and
 * no external resource (a Content-Security-Policy of `default-src 'none'` says so to the
 * browser too); every text from a session is escaped. About 3–10 KB per session.
 */
export function renderHtmlReport(report: AuditReport): string {
  const { totals } = report;
  const cards = [
    [totals.sessions, "sessions read", ""],
    [totals.stoppedByGuard, "loops the guard stopped", ""],
    [totals.looping, "loops that ran on (the guard would have stopped them)", totals.looping > 0 ? " loop" : ""],
    [totals.continuesSaved, "continue turns that would have been saved", ""],
    [totals.tokensAfterDeny, "tokens that would have been saved", ""],
  ] as const;
  const rows = report.sessions.map(({ row }, i) => tableRow(row, `chart-${i + 1}`));
  const charts = report.sessions.map(
    ({ row, series }, i) => `<figure><figcaption>${caption(row, series)}</figcaption>${renderChartSvg(series, `chart-${i + 1}`)}</figure>`,
  );
  const table =
    report.sessions.length === 0
      ? `<p>No session had an automatic compaction.</p>`
      : `<div class="scroll"><table><thead><tr><th>session</th><th>date (UTC)</th><th class="n">compactions</th><th>first deny</th>` +
        `<th class="n">continues saved</th><th class="n">tokens saved</th><th class="n">time saved</th></tr></thead>` +
        `<tbody>${rows.join("\n")}</tbody></table></div>`;
  const skipped =
    report.skipped.length === 0
      ? ""
      : `<h2>Skipped files (${num(report.skipped.length)})</h2><ul class="skipped">${report.skipped.map((s) => `<li>${untrusted(s)}</li>`).join("")}</ul>`;
  // Whose usable context the dashed line is: the one host's of every session that has it, else each agent's.
  const usableHosts = new Set(report.sessions.filter((s) => s.series.usable !== null).map((s) => hostWords(s.row.agent).name));
  const usableWhose = usableHosts.size === 1 ? `${[...usableHosts][0]}'s` : "each agent's";
  const legend =
    `<div class="legend"><span><i style="border-color:${COLORS.line}"></i>context tokens per step</span>` +
    `<span><i style="border-color:${COLORS.allow};border-top-style:dashed"></i>compaction, continue allowed (its index on top)</span>` +
    `<span><i style="border-color:${COLORS.deny}"></i>compaction the guard denies (a loop stopped)</span>` +
    (report.sessions.some((s) => s.series.compactions.some((c) => c.decision === "deny" && c.severity === "info"))
      ? `<span><i style="border-color:${COLORS.allow}"></i>compaction the guard denies as housekeeping (turn-finished)</span>`
      : "") +
    (report.sessions.some((s) => s.series.usable !== null)
      ? `<span><i style="border-color:${COLORS.usable};border-top-style:dashed"></i>${usableWhose} usable context</span>`
      : "") +
    `<span><i class="box"></i>steps after the first deny, until the user writes again: would have been saved</span></div>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>compaction-guard audit</title>
<style>${STYLE}</style>
</head>
<body>
<h1>compaction-guard audit</h1>
<p class="meta">Generated ${escapeHtml(report.generatedAt)} by opencode-compaction-guard: where the guard would have stopped each session's auto-compaction loop.</p>
<div class="totals">${cards.map(([value, text, cls]) => `<div class="total${cls}"><b>${num(value)}</b><span>${text}</span></div>`).join("")}</div>
<h2>Sessions with automatic compactions (${num(report.sessions.length)})</h2>
${table}
${skipped}
${report.sessions.length > 0 ? `<h2>Context size per step</h2>\n${legend}\n${charts.join("\n")}` : ""}
</body>
</html>
`;
}

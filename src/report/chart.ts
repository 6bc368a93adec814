/**
 * `replay --chart`: a session's context size per step as a small line chart in plain text
 * (asciichart), with a marker row for the compactions and a legend. No colours: the output is
 * stable and fits a log or a test.
 */
import { plot } from "asciichart";
import { scaleLinear } from "d3-scale";
import type { SessionSeries } from "../audit/types.js";
import { stepsAfterFirstDeny } from "../audit/series.js";
import { denySentence, type SavedFigures } from "./deny-sentence.js";
import { num } from "./format.js";
import { hostWords } from "../hosts/read.js";
import type { HostWords } from "../model/host-words.js";

/** Options of {@link terminalChart}. */
export interface TerminalChartOptions {
  /** Most characters per line, labels included (default 80; at least the labels + 2 columns). */
  readonly width?: number;
  /** Rows of the plot, from 0 tokens to the top (default 10, at least 2). */
  readonly height?: number;
  /** The audit row's figures for the first deny (continue turns, tokens, wall time), told in the legend as the HTML report tells them. */
  readonly saved?: SavedFigures;
  /** The words of the host whose session it is: whose usable context the legend names (default: the session of an export's). */
  readonly host?: HostWords;
}

/**
 * asciichart's symbols, but with a plain `┤` where it would put `┼`: it marks each series'
 * first value on the axis with it and also (a quirk) the top row of a chart starting at 0,
 * which read as data. The line itself shows where a series starts.
 */
const SYMBOLS: [string, string, string, string, string, string, string, string, string, string] = [
  "┤",
  "┤",
  "╶",
  "╴",
  "─",
  "╰",
  "╭",
  "╮",
  "╯",
  "│",
];

/** Splits `text` into lines of at most `width` characters, at spaces (a longer word stays whole). */
function wrap(text: string, width: number, indent = "  "): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(" ")) {
    const next = current === "" ? word : `${current} ${word}`;
    if (next.length > width && current !== "" && current.trim() !== "") {
      lines.push(current);
      current = `${indent}${word}`;
    } else current = next;
  }
  if (current !== "") lines.push(current);
  return lines;
}

/** The marker row's letters and what each means, in legend order. */
const MARKERS = [
  ["c", "compaction (continue allowed)"],
  ["X", "first deny"],
  ["x", "later deny"],
  [".", "step after it"],
] as const;

/** Most columns one step gets when a session has few steps (so a short loop still reads as a line). */
const MAX_STEP_COLUMNS = 4;

/**
 * Where each step is drawn: with fewer steps than columns each step gets `span` columns
 * (1 to {@link MAX_STEP_COLUMNS}) starting at `step × span`; with more, step `i` of `n` goes to
 * column `floor(i × columns / n)` (a column then covers 1 or more consecutive steps).
 */
function layout(steps: number, columns: number): { span: number; columnOf: (step: number) => number; used: number } {
  if (steps <= columns) {
    const span = Math.max(1, Math.min(MAX_STEP_COLUMNS, Math.floor(columns / steps)));
    return { span, columnOf: (step) => step * span, used: steps * span };
  }
  return { span: 1, columnOf: (step) => Math.floor((step * columns) / steps), used: columns };
}

/**
 * The y axis: from 0 to a round `top` in `rows` equal steps of a round size (1, 2 or 5 × 10ⁿ,
 * d3-scale's ticks), at most `height` rows, so every label is a round number and a round
 * usable context (6,000) sits on its own row.
 */
function yAxis(largest: number, height: number): { top: number; rows: number } {
  if (largest <= 0) return { top: 1, rows: Math.min(height, 1) };
  for (let count = height; count >= 1; count--) {
    const ticks = scaleLinear().domain([0, largest]).nice(count).ticks(count);
    const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : largest;
    const top = ticks[ticks.length - 1]! < largest ? ticks[ticks.length - 1]! + step : ticks[ticks.length - 1]!;
    const rows = Math.round(top / step);
    if (rows <= height) return { top, rows };
  }
  return { top: largest, rows: height };
}

/**
 * Plots a session's context size (tokens) per step, with the usable context as a flat second
 * line when known, then a marker row aligned under the plot's columns and a legend:
 *
 * ```
 *  7,020 ┤────────
 *  6,318 ┤────────
 *  …
 *      0 ┤
 *        cXxxxxxx.
 * across: steps 1–9 (one column each); up: context tokens
 * c compaction (continue allowed)  X first deny  x later deny  . step after it   (only the markers shown)
 * flat line: usable context 6,000 tokens
 * first deny at compaction 2 (no-progress): the guard would have saved 7 steps
 * ```
 *
 * - The marker row puts `X` under the step that set off the first denied compaction, `x` under
 *   a later deny, `c` under an allowed one (the strongest wins when several share a column:
 *   X, x, c), and `.` under every later step: what the guard would have saved.
 * - Down-sampling: with more steps than columns (`width` minus the labels), step `i` of `n`
 *   goes to column `floor(i × columns / n)` and each column plots the largest context size of
 *   its steps (the peaks are what set compactions off); the legend then says how many steps a
 *   column holds.
 * - A step without token data is a gap in the line (its column left blank, the line drawn
 *   again from the next step with data), and the legend says how many steps have none; a
 *   session with no token data at all gets a one-line note instead of a plot.
 * - The marker row's `.` stops at the user's next real message after the first deny
 *   (`userStep`): what follows is work the user asked for.
 * - The last legend line is the same sentence as the HTML report's caption ({@link denySentence}),
 *   with the audit row's figures when `options.saved` gives them.
 * - The y axis runs from 0 tokens (so heights compare) to the largest size or the usable line.
 *
 * @returns lines joined by `\n`, no trailing newline, none longer than `width` (when `width`
 *   leaves room for the labels and 2 columns), no ANSI colours.
 */
export function terminalChart(series: SessionSeries, options: TerminalChartOptions = {}): string {
  const width = Math.max(1, Math.floor(options.width ?? 80));
  const height = Math.max(2, Math.floor(options.height ?? 10));
  const n = series.steps.length;
  const known = series.steps.filter((t): t is number => t !== null);
  if (n === 0 || known.length === 0) {
    const why = n === 0 ? "no steps" : `${n === 1 ? "1 step" : `${num(n)} steps`}, none with token data`;
    return wrap(`context tokens per step: nothing to plot (${why})`, width).join("\n");
  }

  const { top, rows } = yAxis(
    known.reduce((most, t) => Math.max(most, t), series.usable ?? 0),
    height,
  );
  const labelWidth = Math.max(num(top).length, 1) + 1;
  // asciichart draws `label ┤` then point i at column `labelWidth + 1 + i` (point 0 on the axis).
  const origin = labelWidth + 1;
  const usableLabel = series.usable === null ? "" : ` ← usable ${num(series.usable)}`;
  const columns = Math.max(2, width - origin - usableLabel.length);
  const { span, columnOf, used } = layout(n, columns);

  // One value per column: the largest of its steps with token data; a column without any is a gap.
  const values: Array<number | undefined> = [];
  for (let i = 0; i < n; i++) {
    const t = series.steps[i];
    if (t === null || t === undefined) continue;
    for (let c = columnOf(i); c < columnOf(i) + span && c < used; c++) values[c] = Math.max(values[c] ?? 0, t);
  }
  for (let c = 0; c < used; c++) if (values[c] === undefined) values[c] = undefined;
  // A single step still gets a short flat line.
  if (values.length === 1) values.push(values[0]);
  const gaps = values.some((v) => v === undefined);
  const plotOptions = {
    min: 0,
    max: top,
    height: rows,
    offset: 3,
    symbols: SYMBOLS,
    format: (value: number) => num(value).padStart(labelWidth),
  };
  // The usable line first, so the context line is drawn over it where they meet.
  const usableLine = series.usable === null ? [] : [values.map(() => series.usable!)];
  const chart = (gaps ? plotWithGaps([...usableLine, values], top, plotOptions) : plot([...usableLine, values as number[]], plotOptions))
    .split("\n")
    .map((row) => row.trimEnd());
  // Name the usable line at its row's end (asciichart puts value v on row rows − round(v × rows / top)).
  if (series.usable !== null && top > 0) {
    const row = rows - Math.round((series.usable * rows) / top);
    if (chart[row] !== undefined) chart[row] = `${chart[row]!.padEnd(origin + values.length)}${usableLabel}`;
  }

  // The marker row: compactions, and the steps after the first deny.
  const marks: string[] = Array.from({ length: values.length }, () => " ");
  const strength: Record<string, number> = { " ": 0, ".": 1, c: 2, x: 3, X: 4 };
  const put = (column: number, mark: string): void => {
    const at = Math.min(Math.max(column, 0), marks.length - 1);
    if (strength[mark]! > strength[marks[at]!]!) marks[at] = mark;
  };
  const deny = series.firstDeny === null ? undefined : series.compactions[series.firstDeny];
  // The steps the first deny would have saved: up to the user's next real message.
  const savedEnd = deny === undefined ? 0 : deny.afterStep + 1 + stepsAfterFirstDeny(series);
  if (deny !== undefined) for (let i = deny.afterStep + 1; i < savedEnd; i++) for (let c = 0; c < span; c++) put(columnOf(i) + c, ".");
  // A compaction's mark goes under the last column of the step that set it off.
  series.compactions.forEach((c, k) =>
    put(columnOf(Math.max(c.afterStep, 0)) + span - 1, k === series.firstDeny ? "X" : c.decision === "deny" ? "x" : "c"),
  );
  const markerRow = `${" ".repeat(origin)}${marks.join("")}`.trimEnd();

  const perColumn =
    n > columns ? `~${num(n / values.length)} a column, each its largest` : span === 1 ? "one column each" : `${span} columns each`;
  const missing = series.steps.filter((t) => t === null).length;
  // Only the markers the row shows; the axes in words, so that no letter means two things.
  const shown = MARKERS.filter(([mark]) => marks.includes(mark)).map(([mark, text]) => `${mark} ${text}`);
  const legend = [
    `across: ${n === 1 ? "step 1" : `steps 1–${num(n)}`} (${perColumn}); up: context tokens`,
    ...(shown.length > 0 ? [shown.join("  ")] : []),
    ...(missing > 0
      ? [
          `${missing === 1 ? "1 step has" : `${num(missing)} steps have`} no token data: ${gaps ? "a gap in the line" : "left out of its column"}`,
        ]
      : []),
    series.usable === null
      ? "model limits unknown: no usable-context line"
      : `← usable: ${(options.host ?? hostWords(undefined)).name}'s usable context, ${num(series.usable)} tokens`,
    series.compactions.length === 0 ? "no automatic compaction" : denySentence(series, options.saved),
  ];
  return [...chart, markerRow, ...legend.flatMap((text) => wrap(text, width))].join("\n");
}

/**
 * asciichart's `plot` (1.5.25, same rows, columns and symbols) for series with gaps
 * (`undefined` values, which asciichart cannot draw): a segment is drawn only between two
 * values; a value after a gap starts with `╶`. The y range is 0 to `top`.
 */
function plotWithGaps(
  series: ReadonlyArray<ReadonlyArray<number | undefined>>,
  top: number,
  options: { height: number; offset: number; symbols: readonly string[]; format: (value: number) => string },
): string {
  const { height, offset, symbols, format } = options;
  const ratio = top !== 0 ? height / top : 1;
  const rows = Math.round(top * ratio);
  const width = Math.max(...series.map((s) => s.length)) + offset;
  const result = Array.from({ length: rows + 1 }, () => Array.from({ length: width }, () => " "));
  for (let y = 0; y <= rows; y++) {
    const label = format(rows > 0 ? top - (y * top) / rows : y);
    result[y]![Math.max(offset - label.length, 0)] = label;
    result[y]![offset - 1] = y === rows ? symbols[0]! : symbols[1]!;
  }
  const row = (v: number) => rows - Math.round(v * ratio);
  for (const values of series) {
    if (values[0] !== undefined) result[row(values[0])]![offset - 1] = symbols[0]!;
    for (let x = 0; x < values.length - 1; x++) {
      const a = values[x];
      const b = values[x + 1];
      if (b === undefined) continue;
      if (a === undefined) {
        result[row(b)]![x + offset] = symbols[2]!;
        continue;
      }
      const y0 = Math.round(a * ratio);
      const y1 = Math.round(b * ratio);
      if (y0 === y1) {
        result[rows - y0]![x + offset] = symbols[4]!;
        continue;
      }
      result[rows - y1]![x + offset] = y0 > y1 ? symbols[5]! : symbols[6]!;
      result[rows - y0]![x + offset] = y0 > y1 ? symbols[7]! : symbols[8]!;
      for (let y = Math.min(y0, y1) + 1; y < Math.max(y0, y1); y++) result[rows - y]![x + offset] = symbols[9]!;
    }
  }
  return result.map((cells) => cells.join("")).join("\n");
}

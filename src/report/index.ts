/**
 * Every output of `audit` and of `replay`, one entry each: the flag that asks for it, its
 * help, and how it is rendered. `cli/audit.ts` and `cli/main.ts` derive their flags, usage
 * lines and checks from these lists, so a new output is one file in this folder plus one
 * entry here.
 */
import type { AuditReport, AuditResult } from "../audit/types.js";
import { auditJson } from "./json.js";
import { replayChart } from "./replay-chart.js";
import { replayJson } from "./replay-json.js";
import { replayTable } from "./replay-table.js";
import type { ReplayResult } from "./replay-types.js";
import { auditTable } from "./table.js";

export type { ReplayResult } from "./replay-types.js";

/** One output of `audit`. */
export interface AuditOutput {
  /** Its long flag without `--`; null for the default output (printed when no other output for standard output is asked for). */
  readonly flag: string | null;
  /**
   * Where it goes: `stdout` (a boolean flag; the one asked for replaces the default) or `file`
   * (the flag names the file, checked writable before any session is read; written after the
   * standard output).
   */
  readonly to: "stdout" | "file";
  readonly help: string;
  /** A file output's name in "<name> written to FILE" and "cannot write the <name> to FILE". */
  readonly name?: string;
  /** An example value for a file output's flag ("--html needs a value (e.g. --html report.html)"). */
  readonly example?: string;
  /** It draws each listed session's per-step series (made only when such an output is asked for). */
  readonly series?: boolean;
  render(result: AuditResult): string | Promise<string>;
}

/** The page's input: the result, with the time it was made. */
const pageOf = (result: AuditResult): AuditReport => ({
  generatedAt: new Date().toISOString(),
  totals: result.totals,
  sessions: result.rows.map((row, i) => ({ row, series: result.series[i]! })),
  skipped: result.skipped,
});

export const REPORTS: readonly AuditOutput[] = [
  { flag: null, to: "stdout", help: "the table: one row per session with automatic compactions, then the totals", render: auditTable },
  { flag: "json", to: "stdout", help: "print one JSON object instead of the table", render: auditJson },
  {
    flag: "html",
    to: "file",
    help: "also write a self-contained HTML report with charts to FILE",
    name: "HTML report",
    example: "report.html",
    series: true,
    // Loaded only when asked for: the page brings d3.
    render: async (result) => (await import("./pictures.js")).renderHtmlReport(pageOf(result)),
  },
];

/** One output of `replay`, all to standard output. */
export interface ReplayOutput {
  /** Its long flag without `--` (a boolean flag); null for the default output. */
  readonly flag: string | null;
  /**
   * Where it is printed: `default` (when no `instead` output is asked for), `instead` (in place
   * of the default), `under` (after the default and a blank line; it does not go with an
   * `instead` output).
   */
  readonly place: "default" | "instead" | "under";
  readonly help: string;
  /** The text, without the final newline. */
  render(result: ReplayResult): string | Promise<string>;
}

export const REPLAY_OUTPUTS: readonly ReplayOutput[] = [
  { flag: null, place: "default", help: "the table: one row per automatic compaction, then the first deny", render: replayTable },
  { flag: "json", place: "instead", help: "print one JSON object instead of a table", render: replayJson },
  {
    flag: "chart",
    place: "under",
    help: "draw the session's context size per step under the table (a terminal line chart)",
    render: replayChart,
  },
];

/**
 * Every output of `audit`, one entry each: the flag that asks for it, its help, and how it is
 * rendered. `cli/audit.ts` derives its flags, usage lines and checks from this list, so a new
 * output is one file in this folder plus one entry here.
 */
import type { AuditReport, AuditResult } from "../audit/types.js";
import { auditJson } from "./json.js";
import { auditTable } from "./table.js";

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

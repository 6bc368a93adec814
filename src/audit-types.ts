/**
 * The shapes the audit command, its HTML report and the terminal chart share. Types only:
 * `src/audit.ts` fills them, `src/report-html.ts` and `src/chart-text.ts` draw them.
 */
import type { RuleName } from "./verdict.js";

/**
 * One session as `audit --json` prints it (issue 10's shape), plus the fields the table and
 * the charts need.
 */
export interface AuditSession {
  readonly sessionID: string;
  /** The export file's path as given, or `"opencode"` for a session read through opencode. */
  readonly source: string;
  readonly title: string;
  /** The parent session's id for a subagent's session, else null. */
  readonly parentID: string | null;
  /** When the session was created, ms since the epoch, or null when the export has no time. */
  readonly created: number | null;
  /** Automatic compactions with a successful summary (the ones replay decides). */
  readonly compactions: number;
  /** 1-based index of the first compaction the guard would have denied, or null. */
  readonly firstDeny: number | null;
  /** The rule of that deny, or null. */
  readonly rule: RuleName | null;
  /** Synthetic continue turns at or after the first deny (what the deny would have saved). */
  readonly continuesSaved: number;
  /** Tokens (`tokens.total`, else input + output + cache) of every assistant message after the first deny's summary; 0 when never denied. */
  readonly tokensAfterDeny: number;
  /** Wall time (s) from the first deny's summary to the session's last message; 0 when never denied. */
  readonly secondsAfterDeny: number;
  /**
   * opencode's usable context (tokens) the session was decided with: from the limit flags, or
   * (audit with no path) from the limits opencode lists for the session's model; null when unknown.
   */
  readonly usable: number | null;
}

/** The totals line of an audit. */
export interface AuditTotals {
  /** Sessions read (with and without compactions; skipped files not counted). */
  readonly sessions: number;
  /** Sessions with at least one deny. */
  readonly looping: number;
  readonly continuesSaved: number;
  readonly tokensAfterDeny: number;
}

/**
 * A session's context size per step, for the charts. Built from the same timeline and
 * replay rows as the audit row, so the marks are where replay puts them.
 */
export interface SessionSeries {
  readonly sessionID: string;
  readonly title: string;
  /** Context size (tokens: input + output + cache) of each step (assistant message that is not a summary), oldest first; null without token data. */
  readonly steps: ReadonlyArray<number | null>;
  /** Each automatic compaction decided by replay: it happened after `steps[afterStep]` (−1: before any step). */
  readonly compactions: ReadonlyArray<{
    readonly index: number;
    readonly afterStep: number;
    readonly decision: "allow" | "deny";
    readonly rule: RuleName | null;
  }>;
  /** opencode's usable context (tokens) when the model limits are known, else null. */
  readonly usable: number | null;
  /** Index into `compactions` of the first deny, or null. Steps after it are what the guard would have saved. */
  readonly firstDeny: number | null;
}

/** Everything the HTML report draws. */
export interface AuditReport {
  /** ISO time the report was made. */
  readonly generatedAt: string;
  readonly totals: AuditTotals;
  /** Sessions with at least one automatic compaction, each with its series. */
  readonly sessions: ReadonlyArray<{ readonly row: AuditSession; readonly series: SessionSeries }>;
  /** Files that were not exports, one line each (`path: why`). */
  readonly skipped: readonly string[];
}

/** What `audit --json` prints: one object. */
export interface AuditJson {
  readonly sessions: readonly AuditSession[];
  readonly totals: AuditTotals;
}

/**
 * The shapes the audit command, its HTML report and the terminal chart share. Types only:
 * audit/audit.ts fills them, report/ draws them.
 */
import type { RuleName, Severity } from "../judge/verdict.js";

/**
 * One session as `audit --json` prints it (the documented shape), plus the fields the table and
 * the charts need.
 */
export interface AuditSession {
  readonly sessionID: string;
  /** The agent whose transcript the session was read from (`claude-code`, `codex`); absent for opencode. */
  readonly agent?: string;
  /** The export file's path as given (`-`: standard input), or `"opencode"` for a session read through opencode. */
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
  /**
   * The severity of that deny: `warning` for a stopped loop, `info` for housekeeping
   * (turn-finished: the continue turn after a finished answer skipped); null when never denied.
   */
  readonly severity: Severity | null;
  /**
   * Whether the guard would have stopped a loop in the session: at least one deny of severity
   * `warning` (not only turn-finished housekeeping). What the totals' `looping` counts.
   */
  readonly looped: boolean;
  /**
   * Whether the guard itself already stopped the loop (its stop note is in the session, or a
   * compaction it denies got no continue turn in the history: see audit.ts `stoppedByGuard`).
   * Such a loop did not run on: the totals count it in `stoppedByGuard`, not in `looping`.
   */
  readonly stoppedByGuard: boolean;
  /**
   * What the live guard did, as its first stop note in the session says (`UserEntry.guardNote`):
   * the compaction it stopped at (1-based; null for a tool loop, or a compaction not replayed)
   * and its rule; null when the session holds no note.
   */
  readonly liveStop: { readonly compaction: number | null; readonly rule: string | null } | null;
  /**
   * Synthetic continue turns after the first deny's summary (the denied one included), up to the
   * user's next real message (work the user asked for is not the guard's to save); 0 when never
   * denied (here and in `--json`; the table and the HTML report show `-` for all three figures then).
   */
  readonly continuesSaved: number;
  /**
   * Tokens (`tokens.total`, else input + output + cache) of every assistant message after the
   * first deny's summary, up to the user's next real message; 0 when never denied, or when
   * nothing came after the deny; null when assistant messages came after it but none of them
   * has token data (unknown, not 0; totals count it as 0).
   */
  readonly tokensAfterDeny: number | null;
  /**
   * Wall time (s, ms precision) from the first deny's summary to the last message before the
   * user's next real message (else the session's last); 0 when never denied; null when the
   * export has no times for it (unknown, not 0).
   */
  readonly secondsAfterDeny: number | null;
  /**
   * the host's usable context (tokens) the session was decided with: from the limit flags, or
   * (audit with no path) from the limits opencode lists for the session's model; null when unknown.
   */
  readonly usable: number | null;
}

/** The totals line of an audit. */
export interface AuditTotals {
  /** Sessions audited: read and kept by `--since` (with and without compactions; skipped files not counted). */
  readonly sessions: number;
  /**
   * Sessions where a loop ran on unguarded and the guard would have stopped it (a warning deny,
   * not {@link AuditSession.stoppedByGuard}); turn-finished housekeeping not counted.
   */
  readonly looping: number;
  /** Sessions whose loop the guard itself already stopped (looped and stoppedByGuard). */
  readonly stoppedByGuard: number;
  readonly continuesSaved: number;
  /** The sum of the rows' `tokensAfterDeny`, unknown (null) ones counted as 0. */
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
    /** The deny's severity: `warning` a stopped loop, `info` housekeeping (turn-finished); null on allow (absent: not known, drawn as a loop). */
    readonly severity?: Severity | null;
  }>;
  /** the host's usable context (tokens) when the model limits are known, else null. */
  readonly usable: number | null;
  /** Index into `compactions` of the first deny, or null. Steps after it are what the guard would have saved. */
  readonly firstDeny: number | null;
  /**
   * Index into `steps` of the first step after the user's first real message that follows the
   * first deny's summary (it may be `steps.length`: no step after that message), or null when
   * the user did not step in after the first deny (or there is none; absent: the same). Steps from there on are
   * work the user asked for: not counted as saved.
   */
  readonly userStep?: number | null;
  /**
   * Where the tool-loop check would have acted (judge/tool-loop.ts): `step` indexes `steps`,
   * oldest first (absent: not known).
   */
  readonly toolLoop?: ReadonlyArray<{ readonly step: number; readonly action: "warn" | "stop"; readonly runs: number }>;
  /** The parent session's id for a subagent's session, else null (absent: not known). */
  readonly parentID?: string | null;
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

/** What an audit found: the listed rows (oldest first), the totals, and the skipped inputs (one line each). */
export interface AuditResult {
  readonly rows: readonly AuditSession[];
  /** For `--html`: each listed row's chart series, in `rows` order; empty otherwise. */
  readonly series: readonly SessionSeries[];
  readonly totals: AuditTotals;
  readonly skipped: readonly string[];
  /** One line per session found twice (two export files of the same session): which one was kept. */
  readonly duplicates: readonly string[];
  /** Sessions read (exports among the files, before `--since`). */
  readonly read: number;
  /** Sessions `--since` left out because they have no time at all. */
  readonly withoutTime: number;
  /** Sessions decided with a token count no model could have made (negative, NaN, over 10¹²) read as missing. */
  readonly unphysicalTokens: number;
}

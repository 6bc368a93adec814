/**
 * Reads the guard's log lines out of `opencode run --print-logs` stderr.
 *
 * opencode 1.18.33 prints one logfmt line per log call:
 *
 *   timestamp=2026-…Z level=WARN run=8867b2bf message="compaction-guard stopped …" sessionID=ses_… decision=deny rule=no-progress elapsedMs=5.57
 *
 * A plugin's `client.app.log({ body: { service, level, message, extra } })` becomes
 * `level=` (DEBUG/INFO/WARN/ERROR), `message=` and one `key=value` per `extra` field; the
 * `service` is not printed. Nested objects flatten to dotted keys (`opts.threshold=4`),
 * arrays print as JSON (`[1,2]`), null as `null`, undefined fields are left out, strings
 * are quoted when they hold spaces or quotes. INFO and WARN show at the default log level;
 * DEBUG needs `--log-level DEBUG`.
 */

/** A logfmt value after parsing: numbers and booleans unquoted, `null` as null. */
export type LogValue = string | number | boolean | null;

/** One parsed log line. */
export interface LogLine {
  level: string;
  message: string;
  /** Every key=value on the line except level and message (timestamp and run included). */
  fields: Record<string, LogValue>;
}

/** One decision the live hook logged (one line per `experimental.compaction.autocontinue` call). */
export interface LiveDecision {
  /** `extra.compaction`: 1-based index of the automatic compaction in the session, or null when absent. */
  index: number | null;
  messageID: string;
  decision: "allow" | "deny";
  rule: string | null;
  /** `extra.elapsedMs`: the hook's own time for this call, in milliseconds, or null when absent. */
  elapsedMs: number | null;
  level: string;
  message: string;
}

/** The prefix of every message the guard logs, and its `service`. */
export const GUARD_SERVICE = "compaction-guard";

const TOKEN = /([A-Za-z0-9_.\-]+)=("(?:[^"\\]|\\.)*"|\S*)/g;

function toValue(raw: string, quoted: boolean): LogValue {
  if (quoted) return raw;
  if (raw === "null") return null;
  if (raw === "true" || raw === "false") return raw === "true";
  if (raw !== "" && Number.isFinite(Number(raw))) return Number(raw);
  return raw;
}

/**
 * Parse one logfmt line as opencode prints it.
 * @returns the line, or null when it has no `level=` and `message=`.
 */
export function parseLogLine(line: string): LogLine | null {
  const fields: Record<string, LogValue> = {};
  for (const match of line.matchAll(TOKEN)) {
    const [, key, raw] = match as unknown as [string, string, string];
    const quoted = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2;
    fields[key] = toValue(quoted ? (JSON.parse(raw) as string) : raw, quoted);
  }
  const { level, message, ...rest } = fields;
  if (typeof level !== "string" || message === undefined) return null;
  return { level, message: String(message), fields: rest };
}

/**
 * The guard's lines in a stderr dump: those whose message starts with "compaction-guard"
 * or that carry `service=compaction-guard` among their fields.
 */
export function guardLogLines(stderr: string): LogLine[] {
  return stderr
    .split("\n")
    .map(parseLogLine)
    .filter((l): l is LogLine => l !== null && (l.message.startsWith(GUARD_SERVICE) || l.fields.service === GUARD_SERVICE));
}

/** The decision lines among the guard's lines (those with `decision=allow|deny`), in order. */
export function liveDecisions(lines: LogLine[]): LiveDecision[] {
  return lines
    .filter((l) => l.fields.decision === "allow" || l.fields.decision === "deny")
    .map((l) => ({
      index: typeof l.fields.compaction === "number" ? l.fields.compaction : null,
      messageID: String(l.fields.messageID ?? ""),
      decision: l.fields.decision as "allow" | "deny",
      rule: l.fields.rule === null || l.fields.rule === undefined ? null : String(l.fields.rule),
      elapsedMs: typeof l.fields.elapsedMs === "number" ? l.fields.elapsedMs : null,
      level: l.level,
      message: l.message,
    }));
}

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
 *
 * opencode up to 1.15.x (checked 1.14.34, 1.15.13) prints the older format instead:
 *
 *   WARN  2026-11-30T16:38:03 +1ms service=compaction-guard sessionID=ses_… compaction=2 decision=deny rule=no-progress elapsedMs=14.34 compaction-guard stopped …
 *
 * the level, a timestamp, the time since the previous line, `key=value` fields (values
 * printed as they are, objects as JSON, null and undefined fields left out) and the message
 * last, unquoted. `parseLogLine` reads both; in the older one `service` is a field.
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

/** A line of the older format: level, timestamp, `+Nms`, then fields and the message. */
const OLD_LINE = /^(DEBUG|INFO|WARN|ERROR)\s+(\S+)\s+\+(\d+)ms\s?(.*)$/;
/** One leading `key=value` field of an older-format line (the value runs to the next space). */
const OLD_FIELD = /^([A-Za-z0-9_.\-]+)=(\S*)(?:\s+|$)/;

/**
 * Parse one line of the older format (opencode up to 1.15.x): `key=value` fields until the
 * first word that is not one; the rest of the line is the message. A string field holding a
 * space would end the fields early: the guard's fields hold none.
 * @returns the line, or null when it is not in that format.
 */
export function parseOldLogLine(line: string): LogLine | null {
  const m = OLD_LINE.exec(line);
  if (!m) return null;
  const [, level, timestamp, delta] = m as unknown as [string, string, string, string];
  let rest = m[4] ?? "";
  const fields: Record<string, LogValue> = { timestamp, deltaMs: Number(delta) };
  for (let f = OLD_FIELD.exec(rest); f; f = OLD_FIELD.exec(rest)) {
    fields[f[1]!] = toValue(f[2]!, false);
    rest = rest.slice(f[0].length);
  }
  return { level, message: rest, fields };
}

/**
 * Parse one line as opencode prints it: logfmt (1.17.0 on), or the older format.
 * @returns the line, or null when it has no `level=` and `message=` and is not an older-format line.
 */
export function parseLogLine(line: string): LogLine | null {
  if (!line.startsWith("timestamp=") && !line.includes(" message=")) return parseOldLogLine(line);
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

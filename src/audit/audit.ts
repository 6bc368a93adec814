/**
 * The pure part of `opencode-compaction-guard audit`: one session export → one
 * {@link AuditSession} row, decided exactly as `replay` decides it; the totals of an audit;
 * and the listing of export files in folders. Reading sessions through a running opencode is
 * in `audit-opencode.ts`; the command line in `cli/audit.ts`.
 */
import { readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import type { AuditSession, AuditTotals } from "./types.js";
import { buildTimeline, compactionEnd, contextTokens } from "../decide/history.js";
import { usableContext, type ModelLimits } from "../decide/opencode-facts.js";
import { replayMessages, type ReplayRow } from "../decide/replay.js";
import { realUserAfter } from "../decide/timeline.js";
import type { GuardSettings } from "../decide/settings.js";

/** A session as `opencode export` writes it (and opencode's API returns it): `{ info, messages }`, messages oldest first. */
export interface SessionData {
  readonly info: { readonly id: string } & Readonly<Record<string, unknown>>;
  readonly messages: readonly unknown[];
}

/** What a decision depends on besides the history: the same inputs `replay` takes from its flags. */
export interface AuditDecisionOptions {
  readonly settings: GuardSettings;
  /** The model's limits (tokens), when known. */
  readonly limits?: Partial<ModelLimits> | undefined;
  /** opencode's `compaction.reserved` (tokens), when set. */
  readonly reserved?: number | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const finite = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

/** The session's parent (a subagent's session, started by the task tool), or null. */
export function parentOf(info: SessionData["info"]): string | null {
  return typeof info.parentID === "string" && info.parentID !== "" ? info.parentID : null;
}

/**
 * Replays a whole session: `replay`'s own path (the CLI's `replay` calls this too). The
 * project directory and whether the session is a subagent's come from `info`.
 * @returns one row per automatic compaction with a successful summary, oldest first.
 */
export function replaySession(session: SessionData, options: AuditDecisionOptions): ReplayRow[] {
  const directory = session.info.directory;
  return replayMessages(session.messages, options.settings, {
    limits: options.limits,
    reserved: options.reserved,
    directory: typeof directory === "string" ? directory : undefined,
    subagent: parentOf(session.info) !== null,
  });
}

/** A message's time (ms since the epoch): `time.completed`, else `time.created`; null without one. */
function messageTime(message: unknown): number | null {
  if (!isRecord(message) || !isRecord(message.info) || !isRecord(message.info.time)) return null;
  return finite(message.info.time.completed) ?? finite(message.info.time.created);
}

/** The session's last activity (ms since the epoch): `info.time.updated`, else `info.time.created`; null without one. */
export function sessionUpdated(info: SessionData["info"]): number | null {
  const time = isRecord(info.time) ? info.time : {};
  return finite(time.updated) ?? finite(time.created);
}

/**
 * What the first deny would have saved: everything after the summary of the first denied
 * compaction (the history the synthetic continue turn, had it been denied, would not have
 * led to), up to the user's next real message (`isRealUser`: a person spoke; the work that
 * follows is what they asked for, which the guard could not have saved).
 * - continuesSaved: synthetic continue turns in that span (the denied one included);
 * - tokensAfterDeny: the sum over every assistant message in it of `tokens.total`, else
 *   input + output + cache.read + cache.write (tokens; summaries included); 0 when no
 *   assistant message is in it, null when some are but none has token data;
 * - secondsAfterDeny: from that summary's end (`time.completed`, else `time.created`) to the
 *   latest time of a message in the span (s, ms precision); null without times.
 */
function afterDeny(
  messages: readonly unknown[],
  firstDeny: ReplayRow,
): Pick<AuditSession, "continuesSaved" | "tokensAfterDeny" | "secondsAfterDeny"> {
  const timeline = buildTimeline(messages);
  const compaction = timeline.compactions.find((c) => c.messageID === firstDeny.compaction.messageID);
  if (!compaction) return { continuesSaved: 0, tokensAfterDeny: 0, secondsAfterDeny: null };
  const end = compactionEnd(compaction);
  const user = realUserAfter(timeline, end);
  const stop = user === -1 ? timeline.entries.length : user;
  let continuesSaved = 0;
  let tokensAfterDeny = 0;
  let assistants = 0;
  let withTokens = 0;
  const start = messageTime(messages[end]);
  let last = start;
  for (let i = end + 1; i < stop; i++) {
    const entry = timeline.entries[i]!;
    if (entry.kind === "user" && entry.role === "continue") continuesSaved += 1;
    const message = messages[i];
    if (entry.kind === "assistant" && isRecord(message) && isRecord(message.info)) {
      assistants += 1;
      const tokens = contextTokens(message.info.tokens);
      if (tokens !== null) {
        withTokens += 1;
        tokensAfterDeny += tokens;
      }
    }
    const time = messageTime(message);
    if (time !== null && (last === null || time > last)) last = time;
  }
  const secondsAfterDeny = start !== null && last !== null ? Math.max(0, Math.round(last - start)) / 1000 : null;
  return { continuesSaved, tokensAfterDeny: assistants > 0 && withTokens === 0 ? null : tokensAfterDeny, secondsAfterDeny };
}

/** One audited session: its row, and replay's rows it was made from (for the charts). */
export interface AuditedSession {
  readonly row: AuditSession;
  readonly replay: readonly ReplayRow[];
}

/**
 * Audits one session: replays it exactly as `replay` does ({@link replaySession}) and
 * sums up what its first deny would have saved.
 * @param source the export file's path, or `"opencode"` for a session read through opencode.
 * Pure; never throws on a validated export.
 */
export function auditSession(session: SessionData, source: string, options: AuditDecisionOptions): AuditedSession {
  const replay = replaySession(session, options);
  const first = replay.find((r) => r.decision === "deny");
  const time = isRecord(session.info.time) ? session.info.time : {};
  const title = typeof session.info.title === "string" ? session.info.title : "";
  const row: AuditSession = {
    sessionID: session.info.id,
    source,
    title,
    parentID: parentOf(session.info),
    created: finite(time.created),
    compactions: replay.length,
    firstDeny: first?.compaction.index ?? null,
    rule: first?.rule ?? null,
    severity: first?.severity ?? null,
    looped: replay.some((r) => r.decision === "deny" && r.severity === "warning"),
    ...(first ? afterDeny(session.messages, first) : { continuesSaved: 0, tokensAfterDeny: 0, secondsAfterDeny: 0 }),
    usable: usableContext(options.limits, options.reserved),
  };
  return { row, replay };
}

/** Totals before any session: all zero. */
export const EMPTY_TOTALS: AuditTotals = Object.freeze({ sessions: 0, looping: 0, continuesSaved: 0, tokensAfterDeny: 0 });

/** The totals with one more session counted (listed or not). */
export function addToTotals(totals: AuditTotals, row: AuditSession): AuditTotals {
  return {
    sessions: totals.sessions + 1,
    looping: totals.looping + (row.looped ? 1 : 0),
    continuesSaved: totals.continuesSaved + row.continuesSaved,
    tokensAfterDeny: totals.tokensAfterDeny + (row.tokensAfterDeny ?? 0),
  };
}

/** The totals of a list of sessions. */
export function auditTotals(rows: Iterable<AuditSession>): AuditTotals {
  let totals = EMPTY_TOTALS;
  for (const row of rows) totals = addToTotals(totals, row);
  return totals;
}

/** A row is listed in the table (and in `--json`'s `sessions`) when the session had at least one automatic compaction. */
export const isListed = (row: AuditSession): boolean => row.compactions > 0;

/** Orders listed rows by creation time, oldest first (rows without a time last; ties keep their order). */
export function byCreated(a: AuditSession, b: AuditSession): number {
  return (a.created ?? Number.POSITIVE_INFINITY) - (b.created ?? Number.POSITIVE_INFINITY) || 0;
}

/**
 * One thing found while listing paths: a file to read; a path that was skipped and why (one
 * line); or a folder given on the command line in which no file was found (`empty`).
 */
export type FoundPath =
  | { readonly kind: "file"; readonly path: string }
  | { readonly kind: "skipped"; readonly line: string }
  | { readonly kind: "empty"; readonly folder: string };

/**
 * The files to audit among `paths`, in order: a file path as given; a folder's files in
 * name order (not hidden ones, not sub-folders unless `recursive`, then depth first).
 * Symbolic links are followed, but each folder is read once and each file yielded once (by
 * their real path), so a link loop or a file reached twice costs nothing. A folder given
 * in which no file is found is yielded as `empty`. Whether a file is an export is decided
 * when it is read. A missing or unreadable path is yielded as skipped (`<path>: no such
 * file or folder`), never thrown.
 */
export async function* findExports(paths: readonly string[], options: { recursive?: boolean } = {}): AsyncGenerator<FoundPath> {
  const seen = { folders: new Set<string>(), files: new Set<string>() };
  for (const path of paths) {
    let isDirectory: boolean;
    let real: string;
    try {
      isDirectory = (await stat(path)).isDirectory();
      real = await realpath(path);
    } catch (error) {
      yield { kind: "skipped", line: `${path}: ${errorText(error)}` };
      continue;
    }
    if (isDirectory) {
      const readBefore = seen.folders.has(real);
      let found = 0;
      for await (const item of folderFiles(path, real, options.recursive === true, seen)) {
        if (item.kind === "file") found += 1;
        yield item;
      }
      if (found === 0 && !readBefore) yield { kind: "empty", folder: path };
    } else if (!seen.files.has(real)) {
      seen.files.add(real);
      yield { kind: "file", path };
    }
  }
}

async function* folderFiles(
  folder: string,
  real: string,
  recursive: boolean,
  seen: { folders: Set<string>; files: Set<string> },
): AsyncGenerator<FoundPath> {
  if (seen.folders.has(real)) return;
  seen.folders.add(real);
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    yield { kind: "skipped", line: `${folder}: ${errorText(error)}` };
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = join(folder, entry.name);
    let isDirectory = entry.isDirectory();
    let isFile = entry.isFile();
    let target = join(real, entry.name);
    if (entry.isSymbolicLink()) {
      try {
        const info = await stat(path);
        isDirectory = info.isDirectory();
        isFile = info.isFile();
        target = await realpath(path);
      } catch (error) {
        yield { kind: "skipped", line: `${path}: ${errorText(error)}` };
        continue;
      }
    }
    if (isDirectory) {
      if (recursive) yield* folderFiles(path, target, true, seen);
    } else if (isFile && !seen.files.has(target)) {
      seen.files.add(target);
      yield { kind: "file", path };
    }
  }
}

function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file or folder";
  if (code === "EACCES") return "permission denied";
  if (code === "ELOOP") return "a symbolic link loop";
  return `cannot be read (${code ?? (error as Error).message})`;
}

/**
 * Parses `--since`: an ISO date `YYYY-MM-DD` (midnight UTC) or a full ISO date-time
 * (`2026-11-30T18:00`, `…Z`, `…+02:00`; without a zone: UTC).
 * @returns ms since the epoch, or null when the text is not such a date (or no real day, e.g. 2026-02-30).
 */
export function parseSince(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "0", zone] = m;
  const ms = Number(frac.padEnd(3, "0"));
  const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms);
  const check = new Date(utc);
  if (
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    check.getUTCHours() !== Number(h) ||
    check.getUTCMinutes() !== Number(mi) ||
    check.getUTCSeconds() !== Number(s)
  ) {
    return null;
  }
  if (!zone || zone === "Z") return utc;
  const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
  const offset = (Number(z[2]) * 60 + Number(z[3])) * 60_000;
  if (Number(z[2]) > 23 || Number(z[3]) > 59) return null;
  return z[1] === "+" ? utc - offset : utc + offset;
}

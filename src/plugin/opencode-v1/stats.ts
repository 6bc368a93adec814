/**
 * `/guard stats`: what the guard did and would have done across this project's sessions, in
 * the figures `opencode-compaction-guard audit` reports (audit/audit.ts `auditSessions`: each
 * session decided exactly as `replay` decides it, with its model's limits as opencode lists
 * them), plus, per session, the calls repeated after a compaction (audit/repeats.ts), whether
 * or not a rule fired.
 *
 * Runs only when the user types the command: nothing here is on a hook's path. Sessions are
 * read one at a time and only their small rows are kept, as `audit` keeps them. The store is
 * a port ({@link StatsStore}); ./command.ts gives it opencode's SDK client.
 */
import { auditSessions } from "../../audit/audit.js";
import { repeatsAfterCompaction, type RepeatsAfterCompaction } from "../../audit/repeats.js";
import type { AuditResult, AuditSession } from "../../audit/types.js";
import type { SessionItem } from "../../sources/sources.js";
import type { ModelLimits } from "../../hosts/opencode/facts.js";
import { compactionModel, modelKey } from "../../hosts/opencode/limits.js";
import { v1SessionData, type SessionInfo } from "../../hosts/opencode/session.js";
import type { GuardSettings } from "../../config/settings.js";
import { tokens } from "../../judge/words.js";
import { terminalSafe } from "../../redact/terminal-safe.js";
import { grouped } from "../../shared/numbers.js";
import { isRecord } from "../../shared/record.js";

/** Sessions named one per line at most; the rest are counted in one line. */
export const STATS_MAX_SESSIONS = 10;
/** Longest session title shown, characters. */
const MAX_TITLE = 40;

/** Where `/guard stats` reads sessions from (opencode's own store, through its SDK in ./command.ts). */
export interface StatsStore {
  /** This project's sessions, as opencode lists them (`Session.Info`: `id`, `title`, `time`, …). Rejects when they cannot be listed. */
  list(): Promise<readonly unknown[]>;
  /** Every message of one session (`{ info, parts }`, oldest first). Rejects when they cannot be read. */
  messages(sessionID: string): Promise<readonly unknown[]>;
  /** The limits (tokens) opencode lists for a model (`"<providerID>/<modelID>"`), or null when unknown. Never rejects. */
  limits(model: string): Promise<ModelLimits | null>;
  /** opencode's `compaction.reserved` (tokens), when set. Never rejects. */
  reserved(): Promise<number | undefined>;
}

/** One session of the project, as `/guard stats` names it. */
export interface SessionStats {
  readonly sessionID: string;
  readonly title: string;
  /** ms since the epoch, or null. */
  readonly created: number | null;
  /** The audit row, when the session had at least one automatic compaction (audit lists it). */
  readonly row: AuditSession | undefined;
  readonly repeats: RepeatsAfterCompaction;
}

/** What `/guard stats` found. */
export interface ProjectStats {
  /** What `audit` would report over the same sessions: listed rows, totals, sessions skipped (one line each). */
  readonly audit: AuditResult;
  /** Every session read with a compaction or a repeat, newest first. */
  readonly sessions: readonly SessionStats[];
  /** How long reading and deciding took, ms. */
  readonly ms: number;
}

/**
 * Reads and decides every session of the store, one at a time, through `auditSessions` (the
 * same figures as `audit`), and counts each one's calls repeated after a compaction.
 * @param now a clock in ms (test seam).
 * @throws whatever `store.list` rejects with (the store cannot be read); a session whose
 *   messages cannot be read is skipped (one line in `audit.skipped`), never thrown.
 */
export async function projectStats(store: StatsStore, settings: GuardSettings, now: () => number = Date.now): Promise<ProjectStats> {
  const started = now();
  const listed = await store.list();
  const reserved = await store.reserved();
  const named: SessionStats[] = [];
  async function* items(): AsyncGenerator<SessionItem> {
    for (const info of listed) {
      if (!isRecord(info) || typeof info.id !== "string") continue;
      let messages: readonly unknown[];
      try {
        messages = await store.messages(info.id);
      } catch (error) {
        yield { kind: "skipped", line: `${info.id}: messages could not be read (${oneLine(error)})`, counted: true };
        continue;
      }
      const session = v1SessionData(info as SessionInfo, messages);
      const model = compactionModel(messages);
      const limits = model === null ? null : await store.limits(modelKey(model));
      const repeats = repeatsAfterCompaction(session.timeline);
      named.push({ sessionID: info.id, title: session.record.title, created: session.record.created, row: undefined, repeats });
      yield { kind: "session", session, source: "opencode", known: { model, limits, reserved } };
    }
  }
  const audit = await auditSessions({ items }, { settings }, null, () => undefined);
  const rows = new Map(audit.rows.map((row) => [row.sessionID, row]));
  const sessions = named
    .map((s) => ({ ...s, row: rows.get(s.sessionID) }))
    .filter((s) => s.row !== undefined || s.repeats.calls > 0)
    .sort((a, b) => (b.created ?? -Infinity) - (a.created ?? -Infinity));
  return { audit, sessions, ms: Math.max(0, now() - started) };
}

const oneLine = (error: unknown): string =>
  String((error as Error)?.message ?? error)
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200);

const plural = (n: number, word: string): string => `${grouped(n)} ${word}${n === 1 ? "" : "s"}`;

/** What happened to the session's loop, in the words of `audit`'s loop column. */
function loopWords(row: AuditSession): string {
  const at = (n: number | null) => (n === null ? "" : ` at compaction ${n}`);
  if (row.liveStop !== null)
    return `stopped by the guard${at(row.liveStop.compaction)}${row.liveStop.rule ? ` (${terminalSafe(row.liveStop.rule)})` : ""}`;
  if (row.looped && row.stoppedByGuard) return `stopped by the guard${at(row.firstDeny)} (${row.rule})`;
  if (row.looped)
    return `looped: the guard would have stopped it${at(row.firstDeny)} (${row.rule}), saving ${plural(row.continuesSaved, "continue turn")} and ${tokens(row.tokensAfterDeny)}`;
  if (row.firstDeny !== null) return `no loop (${row.rule} at compaction ${row.firstDeny}: housekeeping)`;
  return "no loop";
}

/** One session's line. */
function sessionLine(s: SessionStats): string {
  const title = terminalSafe(s.title).trim().slice(0, MAX_TITLE) || "untitled";
  const head = `"${title}" (${s.sessionID})`;
  const compactions = s.row ? `${plural(s.row.compactions, "automatic compaction")}, ${loopWords(s.row)}` : "no automatic compaction";
  const tools = s.repeats.byTool
    .slice(0, 3)
    .map((t) => `${terminalSafe(t.tool).slice(0, 40)} ×${t.calls}`)
    .join(", ");
  const repeats =
    s.repeats.calls === 0
      ? "no call repeated after a compaction"
      : `${plural(s.repeats.calls, "call")} repeated after a compaction (${tools}${s.repeats.byTool.length > 3 ? ", …" : ""})`;
  return `  ${head}: ${compactions}; ${repeats}.`;
}

/**
 * The text `/guard stats` shows: what was read, the loops the guard stopped and those that ran
 * on (audit's `stoppedByGuard`, `looping`), what it would have saved (audit's `continuesSaved`,
 * `tokensAfterDeny`: after the first deny, up to the user's next message), the calls repeated
 * after a compaction, then one line per session with a compaction or a repeat (newest first, at
 * most {@link STATS_MAX_SESSIONS}) and the sessions that could not be read. Every line terminal-safe.
 */
export function statsText(stats: ProjectStats): string {
  const { totals, rows, skipped } = stats.audit;
  const repeated = stats.sessions.filter((s) => s.repeats.calls > 0);
  const calls = repeated.reduce((sum, s) => sum + s.repeats.calls, 0);
  const lines = [
    `compaction-guard stats for this project: ${plural(totals.sessions, "session")} read in ${grouped(Math.round(stats.ms))} ms, ` +
      `${grouped(rows.length)} with automatic compactions (decided as \`opencode-compaction-guard audit\` decides them).`,
    `Loops stopped by the guard: ${grouped(totals.stoppedByGuard)}. Loops that ran on (the guard would have stopped them): ${grouped(totals.looping)}.`,
    `Would have been saved where a loop ran on (after the guard's first stop, up to your next message): ${plural(totals.continuesSaved, "continue turn")} ` +
      `(each one more compaction cycle) and ${tokens(totals.tokensAfterDeny)}.`,
    `Calls repeated after a compaction, whether or not a rule fired: ${grouped(calls)}` +
      (calls === 0 ? "." : ` in ${plural(repeated.length, "session")}.`),
    ...stats.sessions.slice(0, STATS_MAX_SESSIONS).map(sessionLine),
    ...(stats.sessions.length > STATS_MAX_SESSIONS ? [`  … and ${grouped(stats.sessions.length - STATS_MAX_SESSIONS)} more.`] : []),
    ...(skipped.length === 0 ? [] : [`Not read: ${plural(skipped.length, "session")} (${skipped[0]}${skipped.length > 1 ? "; …" : ""}).`]),
    "(A note from the compaction-guard plugin: not sent to the model.)",
  ];
  return lines.map(terminalSafe).join("\n");
}

/** The one line `/guard stats` answers when the project's sessions cannot be listed. */
export function statsUnreadableLine(error: unknown): string {
  return terminalSafe(
    `compaction-guard stats: this project's sessions could not be read (${oneLine(error)}); nothing counted. (A note from the plugin: not sent to the model.)`,
  );
}

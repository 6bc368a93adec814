/**
 * The pure part of `opencode-compaction-guard audit`: one session export → one
 * {@link AuditSession} row, decided exactly as `replay` decides it; many sessions → the
 * listed rows, their chart series and the totals. Where sessions come from is in sources/;
 * the outputs in report/; the command line in `cli/audit.ts`.
 */
import { sessionDecision, sessionInputs, type SessionDecisionOptions, type SessionItem } from "../sources/sources.js";
import { sessionSeries } from "./series.js";
import type { AuditResult, AuditSession, AuditTotals, SessionSeries } from "./types.js";
import { compactionEnd, realUserAfter, type Timeline } from "../model/timeline.js";
import { replaySession, type ReplayedSession, type ReplayRow } from "../guard/replay.js";
import type { SessionData } from "../model/session.js";
import { guardStops, liveStopIndex } from "../model/timeline.js";
import type { ToolLoopEntry } from "../judge/tool-loop.js";

/** The session's last activity (ms since the epoch): its record's `updated`, else `created`; null without one. */
export function sessionUpdated(record: SessionData["record"]): number | null {
  return record.updated ?? record.created;
}

/**
 * What the first deny would have saved: everything after the summary of the first denied
 * compaction (the history the synthetic continue turn, had it been denied, would not have
 * led to), up to the user's next real message (`isRealUser`: a person spoke; the work that
 * follows is what they asked for, which the guard could not have saved).
 * - continuesSaved: synthetic continue turns in that span (the denied one included);
 * - tokensAfterDeny: the sum over every assistant message in it of its context size
 *   (`AssistantEntry.contextTokens`; summaries included); 0 when no assistant message is in
 *   it, null when some are but none has token data;
 * - secondsAfterDeny: from that summary's time (`Entry.time`: when it ended, else began) to the
 *   latest time of a message in the span, the guard's stop note left out (s, ms precision);
 *   null without times.
 */
function afterDeny(
  timeline: Timeline,
  firstDeny: ReplayRow,
): Pick<AuditSession, "continuesSaved" | "tokensAfterDeny" | "secondsAfterDeny"> {
  const compaction = timeline.compactions.find((c) => c.messageID === firstDeny.compaction.messageID);
  if (!compaction) return { continuesSaved: 0, tokensAfterDeny: 0, secondsAfterDeny: null };
  const end = compactionEnd(compaction);
  const user = realUserAfter(timeline, end);
  const stop = user === -1 ? timeline.entries.length : user;
  let continuesSaved = 0;
  let tokensAfterDeny = 0;
  let assistants = 0;
  let withTokens = 0;
  const start = timeline.entries[end]?.time ?? null;
  let last = start;
  for (let i = end + 1; i < stop; i++) {
    const entry = timeline.entries[i]!;
    if (entry.kind === "user" && entry.role === "continue") continuesSaved += 1;
    if (entry.kind === "assistant") {
      assistants += 1;
      const tokens = entry.contextTokens;
      if (tokens !== null) {
        withTokens += 1;
        tokensAfterDeny += tokens;
      }
    }
    // The guard's own stop note is no time the loop cost.
    const time = entry.kind === "user" && entry.guardNote !== undefined ? null : entry.time;
    if (time !== null && (last === null || time > last)) last = time;
  }
  const secondsAfterDeny = start !== null && last !== null ? Math.max(0, Math.round(last - start)) / 1000 : null;
  return { continuesSaved, tokensAfterDeny: assistants > 0 && withTokens === 0 ? null : tokensAfterDeny, secondsAfterDeny };
}

/**
 * Did the guard itself already stop a loop in this session? Yes when the session holds the
 * guard's stop note (`UserEntry.guardNote`), or when a compaction replay denies as a loop
 * (severity `warning`) got no synthetic continue turn in the history: after its summary the
 * next user message is neither opencode's continue turn nor its re-sent message
 * (session/compaction.ts adds one of them unless a plugin's autocontinue hook said no), so
 * the guard (with `notify: off`, or a note that could not be written) skipped it.
 * A V2 session (`v2`: opencode's V2 session runner) never has a continue turn, so there only
 * the note counts.
 */
export function stoppedByGuard(timeline: Timeline, replay: readonly ReplayRow[], v2 = false): boolean {
  if (timeline.entries.some((entry) => entry.kind === "user" && entry.guardNote !== undefined)) return true;
  if (v2) return false;
  return replay.some((row) => {
    if (row.decision !== "deny" || row.severity !== "warning") return false;
    const compaction = timeline.compactions.find((c) => c.messageID === row.compaction.messageID);
    if (!compaction) return false;
    const next = timeline.entries.slice(compactionEnd(compaction) + 1).find((e) => e.kind === "user");
    return next === undefined || (next.kind === "user" && next.role !== "continue" && next.role !== "resend");
  });
}

/** One audited session: its row, and replay's rows and the timeline it was made from (for the charts). */
export interface AuditedSession {
  readonly row: AuditSession;
  readonly replay: readonly ReplayRow[];
  /** Of `replay`, the row where the live guard stops the session (`ReplayedSession.firstDeny`). */
  readonly firstDeny: ReplayRow | undefined;
  readonly timeline: Timeline;
  /** Where the tool-loop check would have acted (judge/tool-loop.ts), oldest first. */
  readonly toolLoop: readonly ToolLoopEntry[];
}

/**
 * Audits one session: replays it exactly as `replay` does ({@link replaySession}; or takes
 * `replayed`, when the caller replayed it already) and sums up what its first deny would have saved.
 * @param source the export file's path, or `"opencode"` for a session read through opencode.
 * Pure; never throws on a validated export.
 */
export function auditSession(
  session: SessionData,
  source: string,
  options: SessionDecisionOptions,
  replayed: ReplayedSession = replaySession(session, sessionInputs(session, options)),
): AuditedSession {
  const { timeline, rows: replay, firstDeny: first } = replayed;
  const { record } = session;
  const live = guardStops(timeline)[0];
  const row: AuditSession = {
    sessionID: record.id,
    source,
    title: record.title,
    parentID: record.parent,
    created: record.created,
    compactions: replay.length,
    firstDeny: first?.compaction.index ?? null,
    rule: first?.rule ?? null,
    severity: first?.severity ?? null,
    looped: replay.some((r) => r.decision === "deny" && r.severity === "warning"),
    // Another agent's transcript has no continue turn whose absence would show the guard stopped it.
    stoppedByGuard: session.agent === undefined && stoppedByGuard(timeline, replay, !record.continueTurn),
    liveStop: live
      ? {
          compaction: liveStopIndex(
            live,
            replay.map((r) => r.compaction),
          ),
          rule: live.rule,
        }
      : null,
    ...(first ? afterDeny(timeline, first) : { continuesSaved: 0, tokensAfterDeny: 0, secondsAfterDeny: 0 }),
    usable: sessionInputs(session, options).usable,
    ...(session.agent === undefined ? {} : { agent: session.agent }),
  };
  return { row, replay, firstDeny: first, timeline, toolLoop: replayed.toolLoop };
}

/** Totals before any session: all zero. */
export const EMPTY_TOTALS: AuditTotals = Object.freeze({
  sessions: 0,
  looping: 0,
  stoppedByGuard: 0,
  continuesSaved: 0,
  tokensAfterDeny: 0,
});

/** The totals with one more session counted (listed or not). */
export function addToTotals(totals: AuditTotals, row: AuditSession): AuditTotals {
  return {
    sessions: totals.sessions + 1,
    looping: totals.looping + (row.looped && !row.stoppedByGuard ? 1 : 0),
    stoppedByGuard: totals.stoppedByGuard + ((row.looped || row.liveStop !== null) && row.stoppedByGuard ? 1 : 0),
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

/** The chart series of an audited session, from the timeline and rows it was decided on. */
export function auditedSeries(audited: AuditedSession): SessionSeries {
  const { row } = audited;
  return sessionSeries(
    audited.timeline,
    audited.replay,
    audited.firstDeny,
    row.usable,
    { id: row.sessionID, title: row.title, parentID: row.parentID },
    audited.toolLoop,
  );
}

/**
 * Audits every session of a source: one at a time, decided as `replay` decides it, with
 * `options` (the command line's), or for a session read through opencode with its own model's
 * limits and opencode's `compaction.reserved` where the command line gives none.
 *
 * A session found twice (the same `sessionID` in two export files) is counted once: the
 * export with more messages is kept, else the later one (`time.updated`, then the one read
 * later); one line per duplicate in `duplicates`.
 * @param onSession called after each session is read (for the progress bar).
 * @param withSeries also make each listed session's chart series (from the same timeline and rows).
 */
export async function auditSessions(
  source: { items(): AsyncIterable<SessionItem> },
  options: SessionDecisionOptions,
  since: number | null,
  onSession: () => void,
  withSeries = false,
): Promise<AuditResult> {
  const kept = new Map<string, { row: AuditSession; series: SessionSeries | null; messages: number; updated: number | null }>();
  const skipped: string[] = [];
  const duplicates: string[] = [];
  let read = 0;
  let withoutTime = 0;
  let unphysicalTokens = 0;
  for await (const item of source.items()) {
    if (item.kind === "skipped") {
      skipped.push(item.line);
      if (item.counted) onSession();
      continue;
    }
    onSession();
    read += 1;
    const updated = sessionUpdated(item.session.record);
    if (since !== null) {
      if (updated === null) withoutTime += 1;
      if (updated === null || updated < since) continue;
    }
    if (item.session.unphysicalTokens > 0) unphysicalTokens += 1;
    const decision = item.known ? sessionDecision(options, item.known) : options;
    // The series alone show the tool-loop walk: without them it is not made.
    const audited = auditSession(
      item.session,
      item.source,
      decision,
      replaySession(item.session, sessionInputs(item.session, decision), { toolLoop: withSeries }),
    );
    const { row } = audited;
    const messages = item.session.timeline.entries.length;
    const before = kept.get(row.sessionID);
    if (before) {
      const replace = messages !== before.messages ? messages > before.messages : (updated ?? -Infinity) >= (before.updated ?? -Infinity);
      const [keep, drop] = replace ? [row.source, before.row.source] : [before.row.source, row.source];
      const why = messages !== before.messages ? "more messages" : "the later one";
      duplicates.push(`duplicate session ${row.sessionID} in ${drop} and ${keep}: counted once, from ${keep} (${why})`);
      if (!replace) continue;
    }
    kept.set(row.sessionID, {
      row,
      series: isListed(row) && withSeries ? auditedSeries(audited) : null,
      messages,
      updated,
    });
  }
  let totals = EMPTY_TOTALS;
  for (const { row } of kept.values()) totals = addToTotals(totals, row);
  const listed = [...kept.values()].filter((k) => isListed(k.row));
  listed.sort((a, b) => byCreated(a.row, b.row));
  const series = listed.flatMap((l) => (l.series ? [l.series] : []));
  return { rows: listed.map((l) => l.row), series, totals, skipped, duplicates, read, withoutTime, unphysicalTokens };
}

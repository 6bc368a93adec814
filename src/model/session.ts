/** A whole session as a host read it: what the host recorded about it and its timeline. */
import type { Timeline } from "./timeline.js";

/** What a host recorded about a session besides its history, as replay and audit read it. */
export interface SessionRecord {
  /** The host's id of the session. */
  readonly id: string;
  /** Its title; "" when it has none. */
  readonly title: string;
  /** The project directory, when the host recorded one. */
  readonly directory: string | undefined;
  /** The id of the session that started this one (a subagent's session), or null. */
  readonly parent: string | null;
  /** When it was created, ms since the epoch; null when not recorded. */
  readonly created: number | null;
  /** Its last activity, ms since the epoch; null when not recorded. */
  readonly updated: number | null;
  /**
   * The session goes on by itself after an automatic compaction and the guard stops a loop
   * right there, before the next model request: opencode V1 adds a synthetic continue turn
   * (a denied compaction with no continue turn after it shows the guard stopped the session),
   * Codex goes on with the turn, which its `SessionStart` hook can end. False for opencode's V2
   * runner and for Claude Code, where the guard stops a loop by an interrupt.
   */
  readonly continueTurn: boolean;
}

/**
 * A whole session as a host read it (hosts/opencode/session.ts for `opencode export` files,
 * V2 sessions and `opencode serve`; hosts/claude-code and hosts/codex for transcripts).
 */
export interface SessionData {
  /** What the host recorded about the session. */
  readonly record: SessionRecord;
  /** The whole session, oldest first. */
  readonly timeline: Timeline;
  /** How many of its messages hold a token count no model could have made: read as missing, and said once. */
  readonly unphysicalTokens: number;
  /** Which agent wrote it when not opencode: `claude-code`, `codex` (hosts/read.ts); absent for opencode. */
  readonly agent?: string;
  /** The context size (tokens) at which that agent compacts, when its transcript tells; absent for opencode. */
  readonly usable?: number | null;
  /**
   * What of the file was passed over, in words, when something was (a transcript's lines that
   * are not JSON, its record kinds not read): `1 line is not JSON (torn or damaged; passed
   * over); record kinds not read: x`. Absent when all of it was read.
   */
  readonly passedOver?: string;
}

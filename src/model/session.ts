/** A whole session as a host read it: the host's record of it and its timeline. */
import type { Timeline } from "./timeline.js";

/**
 * A whole session as a host read it (hosts/opencode/session.ts for `opencode export` files,
 * V2 sessions and `opencode serve`).
 */
export interface SessionData {
  /**
   * The host's record of the session, in opencode's `Session.Info` shape for now (replay and
   * audit read its id, project directory, parent session, title, times, and `runner: "v2"` for
   * a session with no synthetic continue turn): a host other than opencode fills those fields.
   */
  readonly info: { readonly id: string } & Readonly<Record<string, unknown>>;
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

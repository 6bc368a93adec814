/**
 * The guard of a V2 session (opencode's V2 session runner): at each automatic compaction,
 * read the session's V2 messages (hosts/opencode/v2.ts) and decide on the same path as the V1
 * hook (../../guard/decide-at.ts); when a loop shows, interrupt the session and say why.
 *
 * The V2 runner compacts before a model request and goes on in the same turn, with no cap
 * across steps (opencode's `runner/step.ts`): there is no continue turn to deny, so the
 * stop is an interrupt, and it is silent (no error, no event), hence the log line, the
 * toast and the note (../../guard/respond.ts). Host-neutral: plugin/opencode-v2/v2-runner.ts runs it inside
 * opencode 1.18.x over the server's HTTP API, plugin/opencode-v2/v2-plugin.ts inside OpenCode 2.x over the
 * plugin context.
 */
import { findDecisionPoint } from "../../judge/verdict.js";
import type { GuardSettings } from "../../config/settings.js";
import type { GuardHost } from "../../guard/host.js";
import { decideAtCompaction, type CompactionHost, type SessionRead } from "../../guard/decide-at.js";
import { opencodeInputs } from "../../hosts/opencode/facts.js";
import { v2Timeline } from "../timelines.js";

/** What the V2 guard takes from its host; every function may throw or reject (the guard catches). */
export interface V2GuardDeps {
  readonly settings: GuardSettings;
  /** The project directory: file paths in previews are shown relative to it. */
  readonly directory?: string | undefined;
  /** The newest `limit` V2 messages of a session, oldest first (`SessionMessage`s). */
  readonly readMessages: (sessionID: string, limit: number) => Promise<readonly unknown[]>;
  /** The runtime: `halt` is the V2 `interrupt`; `note` where the host offers one (2.x `session.synthetic`). */
  readonly host: Omit<GuardHost, "stop">;
  /** True the first time a compaction is claimed (one decision per compaction, however many copies run). */
  readonly claim?: ((sessionID: string, messageID: string) => boolean) | undefined;
  /** The wait before reading the messages again, ms (default {@link RETRY_MS}). */
  readonly retryMs?: number;
}

/** How many times the messages are read before a compaction missing from them is an error. */
export const READ_ATTEMPTS = 4;
/** The wait before the second read, ms (the third waits twice as long, and so on). */
export const RETRY_MS = 150;

/**
 * Builds the decision for V2 compactions.
 * @returns `compacted(sessionID, messageID)`: call it when an automatic compaction ended
 *   (`compaction.ended`, `reason: "auto"`). Decides once per compaction through
 *   ../../guard/decide-at.ts: on a loop (a rule of severity `warning`) interrupts the session
 *   (enforce) or logs what it would have done (observe). Any failure is one warn line and the
 *   session left as opencode runs it. Never rejects.
 */
export function createV2Guard(deps: V2GuardDeps): { compacted(sessionID: string, messageID: string): Promise<void> } {
  const retryMs = deps.retryMs ?? RETRY_MS;
  /** The newest `limit` messages and their timeline, once it holds compaction `messageID`. */
  const read = async (sessionID: string, messageID: string | undefined, limit: number): Promise<SessionRead> => {
    let timelineMs = 0;
    for (let attempt = 1; ; attempt++) {
      const messages = await deps.readMessages(sessionID, limit);
      const building = performance.now();
      const timeline = v2Timeline(messages);
      timelineMs += performance.now() - building;
      if (findDecisionPoint(timeline, messageID)?.messageID === messageID)
        return { timeline, count: messages.length, wholeSession: messages.length < limit, timelineMs };
      if (attempt === READ_ATTEMPTS) throw new Error(`compaction ${messageID} is not among the ${messages.length} newest V2 messages`);
      // The event can come before the compaction is among the stored messages: read again, a little later.
      await new Promise((resolve) => setTimeout(resolve, retryMs * attempt));
    }
  };
  const host: CompactionHost = {
    ...deps.host,
    stop: "interrupt",
    settings: deps.settings,
    fields: { runner: "v2" },
    fallback: "the session goes on",
    claim: deps.claim,
    lookUp: (sessionID) => {
      const title = deps.host.readTitle?.(sessionID).catch(() => undefined);
      // The V2 runner draws its compaction line otherwise than V1: no usable context.
      return { facts: async () => ({ inputs: opencodeInputs(undefined), title, directory: deps.directory }) };
    },
    read,
  };
  return { compacted: (sessionID, messageID) => decideAtCompaction(host, { sessionID, compactionID: messageID }) };
}

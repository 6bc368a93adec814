/**
 * The guard of a V2 session (opencode's V2 session runner): at each automatic compaction,
 * read the session's V2 messages, decide with the same `decide` as the V1 hook
 * (hosts/opencode/v2.ts), and when a loop shows, interrupt the session and say why.
 *
 * The V2 runner compacts before a model request and goes on in the same turn, with no cap
 * across steps (opencode's `runner/step.ts`): there is no continue turn to deny, so the
 * stop is an interrupt, and it is silent (no error, no event), hence the log line, the
 * toast and the note (../../guard/respond.ts). Host-neutral: plugin/opencode-v2/v2-runner.ts runs it inside
 * opencode 1.18.x over the server's HTTP API, plugin/opencode-v2/v2-plugin.ts inside OpenCode 2.x over the
 * plugin context.
 */
import { decideCompaction } from "../../judge/replay.js";
import { historyLimit } from "../../judge/verdict.js";
import type { GuardSettings } from "../../config/settings.js";
import { elapsedSince, reason, type GuardHost } from "../../guard/host.js";
import { respond } from "../../guard/respond.js";
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
 *   (`compaction.ended`, `reason: "auto"`). Decides once per compaction and answers through
 *   ../../guard/respond.ts: on a loop (a rule of severity `warning`) interrupts the session
 *   (enforce) or logs what it would have done (observe). Any failure is one warn line and the
 *   session left as opencode runs it. Never rejects.
 */
export function createV2Guard(deps: V2GuardDeps): { compacted(sessionID: string, messageID: string): Promise<void> } {
  const { settings, host } = deps;
  const retryMs = deps.retryMs ?? RETRY_MS;
  const limit = historyLimit(settings);
  /** The verdict at compaction `messageID` of `messages`, or undefined when it is not among them. */
  const decideAt = (messages: readonly unknown[], messageID: string) =>
    decideCompaction(v2Timeline(messages), messageID, settings, {
      // The V2 runner draws its compaction line otherwise than V1: no usable context.
      ...opencodeInputs(undefined),
      wholeSession: messages.length < limit,
      directory: deps.directory,
    });
  const compacted = async (sessionID: string, messageID: string): Promise<void> => {
    const started = performance.now();
    try {
      if (deps.claim && !deps.claim(sessionID, messageID)) return;
      const title = host.readTitle?.(sessionID).catch(() => undefined);
      // The event can come before the compaction is among the stored messages: read again, a little later.
      let messages = await deps.readMessages(sessionID, limit);
      let verdict = decideAt(messages, messageID);
      for (let attempt = 1; !verdict && attempt < READ_ATTEMPTS; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, retryMs * attempt));
        messages = await deps.readMessages(sessionID, limit);
        verdict = decideAt(messages, messageID);
      }
      if (!verdict) throw new Error(`compaction ${messageID} is not among the ${messages.length} newest V2 messages`);
      const index = messages.length < limit ? verdict.compaction.index : null;
      const extra = {
        sessionID,
        compaction: index,
        messageID,
        decision: verdict.decision,
        rule: verdict.rule,
        runner: "v2",
        elapsedMs: elapsedSince(started),
      };
      await respond(verdict, { ...host, stop: "interrupt" }, settings, { sessionID, index, title, extra });
    } catch (error) {
      await host.log("warn", `compaction-guard could not decide for V2 session ${sessionID}; the session goes on: ${reason(error)}`, {
        sessionID,
        runner: "v2",
        elapsedMs: elapsedSince(started),
      });
    }
  };
  return { compacted };
}

/**
 * The guard of a V2 session (opencode's V2 session runner): at each automatic compaction,
 * read the session's V2 messages, decide with the same `decide` as the V1 hook
 * (decide/v2-history.ts), and when a loop shows, interrupt the session and say why.
 *
 * The V2 runner compacts before a model request and goes on in the same turn, with no cap
 * across steps (opencode's `runner/step.ts`): there is no continue turn to deny, so the
 * stop is an interrupt, and it is silent (no error, no event), hence the log line, the
 * toast and the note. Host-neutral: plugin/v2-runner.ts runs it inside opencode 1.18.x over
 * the server's HTTP API, plugin/v2-plugin.ts inside OpenCode 2.x over the plugin context.
 */
import { historyLimit } from "../decide/verdict.js";
import type { GuardSettings } from "../decide/settings.js";
import { decideCompaction } from "../decide/replay.js";
import { buildV2Timeline } from "../hosts/opencode/v2.js";
import { observedToast, denialToast, sessionLabel, v2AllowLogMessage, v2StopLogMessage, v2StopRecord } from "./notice.js";
import type { Level } from "./calls.js";

/** What the V2 guard takes from its host; every function may throw or reject (the guard catches). */
export interface V2GuardDeps {
  readonly settings: GuardSettings;
  /** The project directory: file paths in previews are shown relative to it. */
  readonly directory?: string | undefined;
  /** The newest `limit` V2 messages of a session, oldest first (`SessionMessage`s). */
  readonly readMessages: (sessionID: string, limit: number) => Promise<readonly unknown[]>;
  /** Stops the session's run (V2 `interrupt`). */
  readonly interrupt: (sessionID: string) => Promise<void>;
  /** The session's title, or undefined. */
  readonly readTitle?: (sessionID: string) => Promise<string | undefined>;
  /** Leaves a note in the session, where the host offers one (2.x `session.synthetic`). */
  readonly note?: (sessionID: string, text: string) => Promise<void>;
  /** Writes one log line (never throws). */
  readonly log: (level: Level, message: string, extra?: Record<string, unknown>) => Promise<void>;
  /** Shows one toast where a TUI listens (never throws). */
  readonly toast?: (body: { title: string; message: string; variant: "warning" | "info" }) => Promise<void>;
  /** True the first time a compaction is claimed (one decision per compaction, however many copies run). */
  readonly claim?: (sessionID: string, messageID: string) => boolean;
  /** A one-line description of anything thrown, secrets masked. */
  readonly reason: (error: unknown) => string;
  /** The wait before reading the messages again, ms (default {@link RETRY_MS}). */
  readonly retryMs?: number;
}

/** How many times the messages are read before a compaction missing from them is an error. */
export const READ_ATTEMPTS = 4;
/** The wait before the second read, ms (the third waits twice as long, and so on). */
export const RETRY_MS = 150;

/** Milliseconds since `started` (a `performance.now()` reading), to 0.01 ms. */
const elapsedSince = (started: number): number => Math.round((performance.now() - started) * 100) / 100;

/**
 * Builds the decision for V2 compactions.
 * @returns `compacted(sessionID, messageID)`: call it when an automatic compaction ended
 *   (`compaction.ended`, `reason: "auto"`). Decides once per compaction; on a loop (a rule of
 *   severity `warning`) interrupts the session (enforce) or logs what it would have done
 *   (observe). Any failure is one warn line and the session left as opencode runs it. Never rejects.
 */
export function createV2Guard(deps: V2GuardDeps): { compacted(sessionID: string, messageID: string): Promise<void> } {
  const { settings, log } = deps;
  const retryMs = deps.retryMs ?? RETRY_MS;
  const limit = historyLimit(settings);
  const compacted = async (sessionID: string, messageID: string): Promise<void> => {
    const started = performance.now();
    try {
      if (deps.claim && !deps.claim(sessionID, messageID)) return;
      const title = deps.readTitle?.(sessionID).catch(() => undefined);
      // The event can come before the compaction is among the stored messages: read again, a little later.
      let messages = await deps.readMessages(sessionID, limit);
      let decided = decideCompaction(buildV2Timeline(messages), messageID, settings, {
        directory: deps.directory,
        wholeSession: messages.length < limit,
      });
      for (let attempt = 1; !decided && attempt < READ_ATTEMPTS; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, retryMs * attempt));
        messages = await deps.readMessages(sessionID, limit);
        decided = decideCompaction(buildV2Timeline(messages), messageID, settings, {
          directory: deps.directory,
          wholeSession: messages.length < limit,
        });
      }
      if (!decided) throw new Error(`compaction ${messageID} is not among the ${messages.length} newest V2 messages`);
      const verdict = decided;
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
      // Housekeeping (severity info) is no loop: V2 has no continue turn to skip, so it passes.
      if (verdict.decision === "allow" || verdict.severity !== "warning") {
        if (settings.notify !== "off") await log("info", v2AllowLogMessage(sessionID, verdict, index), extra);
        return;
      }
      const observe = settings.mode === "observe";
      if (!observe) {
        try {
          await deps.interrupt(sessionID);
        } catch (error) {
          await log(
            "warn",
            `compaction-guard found a loop in V2 session ${sessionID} (${verdict.rule}) but could not interrupt it: ${deps.reason(error)}`,
            extra,
          );
          return;
        }
      }
      if (settings.notify === "off") return;
      const session = sessionLabel(sessionID, await title);
      if (settings.notify === "toast" && deps.toast) {
        const name = await title;
        await deps.toast(observe ? observedToast(verdict, sessionID, name) : denialToast(verdict, sessionID, name));
      }
      await log("warn", v2StopLogMessage(session, verdict, index, observe), observe ? { ...extra, mode: "observe" } : extra);
      if (!observe && deps.note) {
        try {
          await deps.note(sessionID, v2StopRecord(session, verdict, index));
        } catch (error) {
          await log("warn", `compaction-guard could not leave its note in V2 session ${sessionID}: ${deps.reason(error)}`, { sessionID });
        }
      }
    } catch (error) {
      await log("warn", `compaction-guard could not decide for V2 session ${sessionID}; the session goes on: ${deps.reason(error)}`, {
        sessionID,
        runner: "v2",
        elapsedMs: elapsedSince(started),
      });
    }
  };
  return { compacted };
}

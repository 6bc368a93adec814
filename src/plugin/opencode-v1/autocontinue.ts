/**
 * `experimental.compaction.autocontinue`: the decision at an automatic compaction of a V1
 * session. The hook builds the V1 host of ../../guard/decide-at.ts (read: the mirror or
 * opencode; look-ups: ./lookups.ts; the `/guard` switch; deny = `output.enabled = false`, the
 * note left when the session goes idle) and hands it the compaction.
 *
 * opencode calls the hook once per automatic compaction, after the summary finished and
 * just before it would add the synthetic continue turn (session/compaction.ts, 1.18.33).
 * A throw inside a hook becomes a defect in opencode's runtime, so every path is caught:
 * on any failure the guard logs one warning and leaves `output.enabled` as it was.
 */
import type { Hooks } from "@opencode-ai/plugin";
import type { GuardSettings } from "../../config/settings.js";
import { findDecisionPoint } from "../../judge/verdict.js";
import { decideAtCompaction, type SessionRead } from "../../guard/decide-at.js";
import { opencodeInputs } from "../../hosts/opencode/facts.js";
import { switchedOffLogMessage, type SessionMode } from "./guard-command.js";
import type { Lookups } from "./lookups.js";
import type { DecisionRead } from "./mirror.js";
import type { Outcome } from "../../guard/outcome.js";
import type { DecisionRegistry } from "./registry.js";
import type { StopNotes } from "./stop-note.js";
import type { V1Host } from "./v1-host.js";
import { OPENCODE_WORDS } from "../../hosts/opencode/words.js";

type AutocontinueHook = NonNullable<Hooks["experimental.compaction.autocontinue"]>;

/** A V1 read for a decision: with the messages, in which the `/guard` switch is looked for. */
interface V1Read extends SessionRead {
  readonly data: readonly unknown[];
}

/** What the hook takes from the guard. */
export interface AutocontinueDeps {
  readonly settings: GuardSettings;
  readonly host: V1Host;
  /** The stop notes waiting for their session to go idle. */
  readonly notes: StopNotes;
  /** The project directory: previews show file paths relative to it. */
  readonly directory: string | undefined;
  /** The decision's look-ups of `config.get` and `session.get`, started with the compaction (./lookups.ts). */
  readonly lookups: Lookups;
  /** The newest messages for the decision (the mirror's when current), under the hook's time-out. */
  readonly read: DecisionRead;
  /** Shared by every copy of the guard in the process: each compaction is decided once. */
  readonly registry: DecisionRegistry | undefined;
  /**
   * The session's `/guard` switch (./command.ts), found in `newest` (the messages just read)
   * or else in the switch file; undefined when never switched.
   */
  readonly modeOf?: (sessionID: string, newest: readonly unknown[]) => Promise<SessionMode | undefined>;
  /** Told of each stop: the headless stop line and the status file (../../guard/outcome.ts). */
  readonly outcome?: Outcome;
}

/** Builds the hook. It never throws; any failure is one warn line and opencode's own behaviour. */
export function createAutocontinueHandler(deps: AutocontinueDeps): AutocontinueHook {
  const { settings, host, notes, directory, registry } = deps;
  return async (hookInput, output) => {
    const sessionID = typeof hookInput?.sessionID === "string" ? hookInput.sessionID : "unknown";
    const compactionID = hookInput?.message?.id;
    const { modeOf } = deps;
    await decideAtCompaction<V1Read>(
      {
        settings,
        fallback: "auto-continue left to opencode",
        // Not when another plugin already denied it, nor when another copy of the guard
        // decides this compaction (it runs first, on the same output).
        claim: (id, messageID) => output?.enabled !== false && (!registry || registry.claim(id, messageID)),
        // Started when the compaction started, as a rule (./lookups.ts); else now, beside the read.
        lookUp: (id) => {
          const { reserved, session, judged } = deps.lookups.take(id);
          return {
            facts: async () => {
              const { title, subagent } = await session;
              return { inputs: opencodeInputs(hookInput?.model?.limit, await reserved), subagent, title, directory };
            },
            judged,
          };
        },
        read: async (id, messageID, limit) => {
          // Kept messages do for the decision once they hold this compaction's finished summary.
          const { data, timeline, from, timelineMs } = await deps.read(id, (kept) => {
            const found = findDecisionPoint(kept, messageID);
            return messageID !== undefined && found?.messageID === messageID && found.succeeded;
          });
          return { data, timeline, count: data.length, wholeSession: data.length < limit, timelineMs, fields: { messagesFrom: from } };
        },
        switch: modeOf && { of: (id, read) => modeOf(id, read.data), offLine: switchedOffLogMessage },
        stop: "continue-turn",
        words: OPENCODE_WORDS,
        log: host.log,
        toast: host.toast,
        halt: () => {
          output.enabled = false;
        },
        stopped: deps.outcome?.stopped,
        // The toast is gone in seconds: leave the reason in the session too. Not now: right
        // after this hook opencode reads the history again, and answers a user message added
        // now as a new turn (checked in 1.18.33: the loop goes on). The note is written when
        // the session goes idle (the `event` hook).
        note: (id, text, verdict) => {
          // The note's agent and model are the compaction message's, so that it changes neither for the session.
          const message = hookInput?.message as
            | { agent?: unknown; model?: { providerID?: unknown; modelID?: unknown; variant?: unknown } }
            | undefined;
          const model = message?.model;
          return notes.leaveWhenIdle(id, {
            kind: "compaction",
            text,
            compactionID: verdict.compaction.messageID,
            rule: verdict.rule,
            agent: typeof message?.agent === "string" ? message.agent : undefined,
            model:
              typeof model?.providerID === "string" && typeof model.modelID === "string"
                ? { providerID: model.providerID, modelID: model.modelID }
                : undefined,
            variant: typeof model?.variant === "string" ? model.variant : undefined,
          });
        },
      },
      { sessionID, compactionID },
    );
  };
}

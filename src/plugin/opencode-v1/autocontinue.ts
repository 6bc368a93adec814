/**
 * `experimental.compaction.autocontinue`: the decision at an automatic compaction of a V1
 * session, answered through ../../guard/respond.ts (deny = `output.enabled = false`, the note
 * left when the session goes idle).
 *
 * opencode calls the hook once per automatic compaction, after the summary finished and
 * just before it would add the synthetic continue turn (session/compaction.ts, 1.18.33).
 * A throw inside a hook becomes a defect in opencode's runtime, so every path is caught:
 * on any failure the guard logs one warning and leaves `output.enabled` as it was.
 */
import type { Hooks } from "@opencode-ai/plugin";
import type { GuardSettings } from "../../config/settings.js";
import { decide, findDecisionPoint, historyLimit } from "../../judge/verdict.js";
import { elapsedSince, reason, roundMs } from "../../guard/host.js";
import { opencodeInputs } from "../../hosts/opencode/facts.js";
import { respond } from "../../guard/respond.js";
import { switchedOffLogMessage, type SessionMode } from "./guard-command.js";
import type { Lookups } from "./lookups.js";
import type { DecisionRead } from "./mirror.js";
import type { Outcome } from "../../guard/outcome.js";
import type { DecisionRegistry } from "./registry.js";
import type { StopNotes } from "./stop-note.js";
import type { V1Host } from "./v1-host.js";
import { OPENCODE_WORDS } from "../../hosts/opencode/words.js";

type AutocontinueHook = NonNullable<Hooks["experimental.compaction.autocontinue"]>;

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
  const limit = historyLimit(settings);
  return async (hookInput, output) => {
    const started = performance.now();
    const sessionID = typeof hookInput?.sessionID === "string" ? hookInput.sessionID : "unknown";
    try {
      if (output?.enabled === false) return; // another plugin already denied it
      // Another copy of the guard decides this compaction (it runs first, on the same output).
      if (registry && !registry.claim(sessionID, String(hookInput?.message?.id ?? ""))) return;
      // Started when the compaction started, as a rule (./lookups.ts); else now, beside the read.
      const { reserved, session: sessionInfo, judged: judgedAhead } = deps.lookups.take(sessionID);
      const compactionID = hookInput?.message?.id;
      // Kept messages do for the decision once they hold this compaction's finished summary.
      const { data, timeline, from, timelineMs } = await deps.read(sessionID, (kept) => {
        const found = findDecisionPoint(kept, compactionID);
        return compactionID !== undefined && found?.messageID === compactionID && found.succeeded;
      });
      const read = performance.now();
      const switched = await deps.modeOf?.(sessionID, data);
      if (switched === "off") return void (await host.log("info", switchedOffLogMessage(sessionID), { sessionID }));
      const point = findDecisionPoint(timeline, compactionID);
      if (!point) throw new Error(`no automatic compaction among the ${data.length} newest messages`);

      const { title, subagent } = await sessionInfo;
      const inputs = opencodeInputs(hookInput?.model?.limit, await reserved);
      // The steps judged while the summary was written: the decision judges only what they lack.
      const ahead = await judgedAhead;
      const judging = performance.now();
      const verdict = decide(
        timeline,
        point,
        settings,
        {
          ...inputs,
          directory,
          subagent,
          // Fewer messages than asked for: the whole session, from its first message (cannot-make-room).
          wholeSession: data.length < limit,
        },
        ahead?.steps,
      );
      const judged = performance.now();
      // Wall time by phase (what the hook waited for, in its order): the messages (from the
      // mirror, or read from opencode) less the timelines built of them; the look-ups still
      // under way once they were there (the switch, session.get, config.get, judging ahead);
      // the judgement.
      // Look-ups started by this call run beside the read: their share of the event loop
      // counts in the read.
      const phases = {
        read: roundMs(read - started - timelineMs),
        timeline: roundMs(timelineMs),
        lookups: roundMs(judging - read),
        judge: roundMs(judged - judging),
      };
      // With fewer messages than asked for, the view starts at the session's beginning and
      // the compaction's index among the session's automatic compactions is known.
      const index = data.length < limit ? verdict.compaction.index : null;
      const extra = {
        sessionID,
        compaction: index,
        messageID: verdict.compaction.messageID,
        decision: verdict.decision,
        rule: verdict.rule,
        elapsedMs: elapsedSince(started),
        messagesFrom: from,
        // What judging ahead took (ms), while opencode wrote the summary; null: not done.
        judgedAheadMs: ahead === undefined ? null : roundMs(ahead.ms),
      };
      // The note's agent and model are the compaction message's, so that it changes neither for the session.
      const message = hookInput?.message as
        | { agent?: unknown; model?: { providerID?: unknown; modelID?: unknown; variant?: unknown } }
        | undefined;
      const model = message?.model;
      await respond(
        verdict,
        {
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
          note: (id, text) =>
            notes.leaveWhenIdle(id, {
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
            }),
        },
        // `/guard on` or `/guard observe` in this session overrides the mode setting.
        switched === undefined ? settings : { ...settings, mode: switched === "observe" ? "observe" : "enforce" },
        { sessionID, index, title, extra, phases },
      );
    } catch (error) {
      await host.log(
        "warn",
        `compaction-guard could not decide for session ${sessionID}; auto-continue left to opencode: ${reason(error)}`,
        {
          sessionID,
          elapsedMs: elapsedSince(started),
        },
      );
    }
  };
}

/**
 * The opencode glue of the tool-loop check (judge/tool-loop.ts): `tool.execute.after` adds a
 * notice to the result that completes a chain, and in `stop` mode `tool.execute.before`
 * refuses the call that goes on with it and the session is stopped (`client.session.abort`).
 *
 * opencode 1.18.33 calls `tool.execute.before` inside the tool's execution (a throw there
 * makes the call an errored tool part that the model reads) and `tool.execute.after` right
 * after it, before the result is stored: what the hook appends to `output.output` is what the
 * model reads and what is stored (session/prompt.ts). Its own doom-loop check
 * (session/processor.ts, DOOM_LOOP_THRESHOLD = 3) reads only the current assistant message.
 *
 * Every path is caught except the deliberate refusal: a read that fails or is slow makes the
 * guard back off (plugin/opencode-v1/backoff.ts: one warn line, then steps read nothing until opencode
 * answers again) and opencode goes on as without the guard. The abort is not awaited inside
 * the hook (it would wait for the very tool call the hook runs in).
 */
import { checkToolCall, refusalMessage, toolLoopHistoryLimit, toolLoopNotice } from "../../judge/tool-loop.js";
import { callKey } from "../../hosts/opencode/actions.js";
import { timelineWithCall } from "../../hosts/opencode/tool-call.js";
import type { GuardSettings } from "../../config/settings.js";
import { previewCall } from "../../redact/preview.js";
import { toolLoopRecord } from "../../guard/notices.js";
import { createSessionStore, MAX_SESSIONS, type SessionStore, type ToolLoopState } from "./sessions.js";

/** How many sessions the hook keeps state for at once (the store's, ./sessions.ts: the newest used); a session's state is dropped when it is deleted. */
export const MAX_TOOL_LOOP_SESSIONS = MAX_SESSIONS;

/** What the hooks take from the guard (plugin/opencode-v1/guard.ts). */
export interface ToolLoopDeps {
  readonly settings: GuardSettings;
  /** The guard's per-session store, whose slot `toolLoop` holds each session's state (default: a store of its own). */
  readonly sessions?: SessionStore;
  /** The project directory, for previews. */
  readonly directory: string | undefined;
  /**
   * The session's newest `limit` messages (oldest first), or undefined when this step reads
   * nothing (the guard backs off from a slow opencode, plugin/opencode-v1/backoff.ts, and has said so).
   * Never rejects.
   */
  readonly messages: (sessionID: string, limit: number) => Promise<unknown[] | undefined>;
  /** `client.session.abort`; rejects on failure or timeout. */
  readonly abort: (sessionID: string) => Promise<void>;
  /** A log line (never rejects). */
  readonly log: (level: "info" | "warn", message: string, extra?: Record<string, unknown>) => Promise<void>;
  /** Leaves the stop note in the session once it is idle (plugin/opencode-v1/guard.ts's pending notes). */
  readonly noteWhenIdle: (sessionID: string, text: string) => void;
  /** A one-line reason of anything thrown, secrets masked. */
  readonly reason: (error: unknown) => string;
  /** Told of each session stopped (rule `tool-loop`): the headless stop line and the status file; never rejects. */
  readonly stopped?: (sessionID: string, rule: string, compaction: number | null) => Promise<void>;
}

/** The hooks of the tool-loop check. */
export interface ToolLoopHooks {
  readonly before: (input: { tool: string; sessionID: string; callID: string }, output: { args: unknown }) => Promise<void>;
  readonly after: (
    input: { tool: string; sessionID: string; callID: string; args: unknown },
    output: { title: string; output: string; metadata: unknown },
  ) => Promise<void>;
  /** The session went idle: a refused chain is over (the session was stopped); the next identical call is judged anew. */
  readonly sessionIdle: (sessionID: string) => void;
  /** Sessions with state (for tests: bounded by {@link MAX_TOOL_LOOP_SESSIONS}). */
  readonly sessions: () => number;
}

/**
 * Builds the hooks. Keeps per session at most the key of the chain last logged and the call
 * to refuse, for at most {@link MAX_TOOL_LOOP_SESSIONS} sessions.
 */
export function createToolLoopHooks(deps: ToolLoopDeps): ToolLoopHooks {
  const { settings } = deps;
  const sessions = deps.sessions ?? createSessionStore();
  const stateOf = (sessionID: string): ToolLoopState => (sessions.use(sessionID).toolLoop ??= {});

  const before: ToolLoopHooks["before"] = async (input, output) => {
    let refuse: { runs: number; tool: string; preview: string } | undefined;
    try {
      if (settings.toolLoop !== "stop") return;
      const state = sessions.find(input?.sessionID)?.toolLoop;
      if (!state?.armed || state.armed.key !== callKey(String(input.tool), output?.args)) return;
      refuse = { runs: state.armed.runs, tool: state.armed.tool, preview: state.armed.preview };
      // Armed until the session goes idle (it was stopped) or a call off the chain completes:
      // the model may repeat the call once more before the abort lands. Refused again, quietly.
      if (!state.refused) {
        state.refused = true;
        const sessionID = input.sessionID;
        deps.noteWhenIdle(sessionID, toolLoopRecord(sessionID, refuse.tool, refuse.preview, refuse.runs));
        void deps.log(
          "warn",
          `compaction-guard stopped a tool loop in session ${sessionID}: ${refuse.tool} (${refuse.preview}) refused after ${refuse.runs} identical runs`,
          { sessionID, tool: refuse.tool, runs: refuse.runs },
        );
        void deps.stopped?.(sessionID, "tool-loop", null);
        // Not awaited (the abort waits for the tool call this hook runs inside), and sent after
        // the refusal is recorded: an abort that lands first records "Tool execution aborted".
        setTimeout(() => {
          deps
            .abort(sessionID)
            .catch((error: unknown) =>
              deps.log("warn", `compaction-guard could not stop session ${sessionID}: ${deps.reason(error)}`, { sessionID }),
            );
        }, 0).unref?.();
      }
    } catch (error) {
      void deps.log("warn", `compaction-guard could not check a tool call in session ${String(input?.sessionID)}: ${deps.reason(error)}`);
      return;
    }
    // The deliberate refusal: the call becomes an errored tool part the model reads.
    throw new Error(refusalMessage(refuse.tool, refuse.runs + 1));
  };

  const after: ToolLoopHooks["after"] = async (input, output) => {
    try {
      if (settings.toolLoop === "off" || typeof output?.output !== "string") return;
      const sessionID = input.sessionID;
      const messages = await deps.messages(sessionID, toolLoopHistoryLimit(settings));
      if (messages === undefined) return;
      const tool = String(input.tool);
      const check = checkToolCall(
        timelineWithCall(
          messages,
          { callID: String(input.callID), tool, input: input.args, output: output.output, status: "completed" },
          toolLoopHistoryLimit(settings),
        ),
        settings,
      );
      const state = sessions.find(sessionID)?.toolLoop;
      // A call that does not go on with the armed chain disarms it.
      if (state?.armed && !(check.runs >= settings.threshold + 1 && state.armed.key === callKey(tool, input.args))) {
        state.armed = undefined;
        state.refused = undefined;
      }
      if (check.action === null) return;
      const stopping = settings.toolLoop === "stop";
      output.output = `${output.output}${toolLoopNotice(check.runs, stopping && check.runs >= settings.threshold + 1)}`;
      const key = callKey(tool, input.args);
      const current = state ?? stateOf(sessionID);
      const preview = previewCall(tool, input.args, deps.directory);
      if (current.logged !== key || check.runs === settings.threshold) {
        current.logged = key;
        await deps.log(
          "warn",
          `compaction-guard: tool loop in session ${sessionID}: the same ${tool} call (${preview}) returned the same result ${check.runs} times with nothing else done in between; the model was told to change approach or stop`,
          { sessionID, tool, runs: check.runs, toolLoop: settings.toolLoop },
        );
      }
      if (stopping && check.runs >= settings.threshold + 1) current.armed = { key, runs: check.runs, tool, preview };
    } catch (error) {
      await deps.log("warn", `compaction-guard could not check a tool call in session ${String(input?.sessionID)}: ${deps.reason(error)}`, {
        sessionID: input?.sessionID,
      });
    }
  };

  const sessionIdle = (sessionID: string): void => {
    const state = sessions.find(sessionID)?.toolLoop;
    if (state?.refused) {
      state.armed = undefined;
      state.refused = undefined;
    }
  };
  return { before, after, sessionIdle, sessions: () => sessions.holding("toolLoop") };
}

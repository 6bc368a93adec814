/**
 * Prevention, opencode glue: two hooks that change only what a model is sent, never what is
 * stored, both derived from the session's history read through `client.session.messages`.
 *
 * - `experimental.session.compacting` (opencode 1.18.33 session/compaction.ts, before every
 *   summary request): pushes the ledger (../decide/ledger.ts) to `output.context`, which
 *   opencode appends after its summary template. `output.prompt` is never set: that would
 *   drop the template.
 * - `experimental.chat.messages.transform` (the same file, on the clone the summarizer reads,
 *   and session/prompt.ts, before every model request): in the in-memory messages, the text
 *   of each synthetic continue part (`metadata.compaction_continue`) becomes the continue
 *   note. The summarizer then no longer reads an earlier continue turn as `[User]: Continue
 *   if you have next steps…`.
 *
 * Every failure leaves opencode's text as it was and logs one warn line; nothing is thrown.
 */
import type { Hooks } from "@opencode-ai/plugin";
import { buildTimeline } from "../decide/history.js";
import { completedCallsBefore, continueNote, LEDGER_HEADER, ledgerText, rewriteContinueText } from "../decide/ledger.js";
import { CONTINUE_TEXT_PREFIX } from "../decide/opencode-facts.js";
import { isRecord } from "../shared/record.js";

type CompactingHook = NonNullable<Hooks["experimental.session.compacting"]>;
type TransformHook = NonNullable<Hooks["experimental.chat.messages.transform"]>;

/** What the prevention hooks take from the guard. */
export interface PreventionDeps {
  /**
   * The newest `limit` messages of a session, oldest first (`client.session.messages` with
   * `query.limit`, under a timeout); rejects when the read fails or returns no list.
   */
  readonly readMessages: (sessionID: string) => Promise<readonly unknown[]>;
  /** How many messages `readMessages` asks for: fewer back means the whole session. */
  readonly limit: number;
  /** The project directory: file paths in previews are shown relative to it. */
  readonly directory: string | undefined;
  /** Logs one warn line about `error` (the guard masks secrets and keeps one line). Never rejects. */
  readonly warn: (message: string, error: unknown, sessionID: string) => Promise<void>;
}

/** A text part that is opencode's synthetic continue turn: the marker first, the text second (as history.ts reads it). */
function isContinuePart(part: unknown): part is { text: string } & Record<string, unknown> {
  return (
    isRecord(part) &&
    part.type === "text" &&
    typeof part.text === "string" &&
    ((isRecord(part.metadata) && part.metadata.compaction_continue === true) ||
      (part.synthetic === true && part.text.startsWith(CONTINUE_TEXT_PREFIX)))
  );
}

/**
 * The two prevention hooks. Stateless: each call reads the history it needs.
 *
 * @returns `experimental.session.compacting` and `experimental.chat.messages.transform`.
 */
export function createPrevention(
  deps: PreventionDeps,
): Pick<Hooks, "experimental.session.compacting" | "experimental.chat.messages.transform"> {
  const compacting: CompactingHook = async (input, output) => {
    const sessionID = typeof input?.sessionID === "string" ? input.sessionID : "unknown";
    try {
      if (!Array.isArray(output?.context)) throw new Error("the hook's output has no context list");
      // The plugin listed twice: the first copy already wrote it.
      if (output.context.some((text) => typeof text === "string" && text.startsWith(LEDGER_HEADER))) return;
      const data = await deps.readMessages(sessionID);
      const timeline = buildTimeline(data);
      const compaction = timeline.compactions.at(-1);
      if (!compaction) throw new Error(`no compaction among the ${data.length} newest messages`);
      const { calls } = completedCallsBefore(timeline, compaction.position, {
        directory: deps.directory,
        wholeSession: data.length < deps.limit,
      });
      // After an overflow compaction opencode re-sends the user's message instead of "Continue".
      const text = ledgerText(calls, compaction.auto && !compaction.overflow);
      if (text !== null) output.context.push(text);
    } catch (error) {
      await deps.warn(
        `compaction-guard could not write its ledger for the summary of session ${sessionID}; opencode's prompt left as it was`,
        error,
        sessionID,
      );
    }
  };

  const transform: TransformHook = async (_input, output) => {
    let sessionID = "unknown";
    try {
      const messages: unknown = output?.messages;
      if (!Array.isArray(messages)) return;
      const targets: Array<{ message: { parts: unknown[] }; messageID: string; part: { text: string } }> = [];
      for (const message of messages) {
        if (!isRecord(message) || !isRecord(message.info) || !Array.isArray(message.parts)) continue;
        for (const part of message.parts) {
          if (isContinuePart(part) && typeof message.info.id === "string") {
            targets.push({ message: message as { parts: unknown[] }, messageID: message.info.id, part });
            if (typeof message.info.sessionID === "string") sessionID = message.info.sessionID;
          }
        }
      }
      if (targets.length === 0) return;
      if (sessionID === "unknown") throw new Error("the continue turn names no session");
      const data = await deps.readMessages(sessionID);
      const timeline = buildTimeline(data);
      const wholeSession = data.length < deps.limit;
      // Every new text first, then every change: a failure half-way changes nothing.
      const changes: Array<() => void> = [];
      for (const { message, messageID, part } of targets) {
        const position = timeline.entries.findIndex((entry) => entry.id === messageID);
        const found = position < 0 ? null : completedCallsBefore(timeline, position, { directory: deps.directory, wholeSession });
        const text = rewriteContinueText(part.text, continueNote(found?.complete ? found.calls : null));
        if (text === null) continue;
        // A new part object in a new list: whatever else holds the old ones is not touched.
        changes.push(() => {
          message.parts = message.parts.map((p) => (p === part ? { ...part, text } : p));
        });
      }
      for (const change of changes) change();
    } catch (error) {
      await deps.warn(
        `compaction-guard could not rewrite the continue turn of session ${sessionID}; opencode's text left as it was`,
        error,
        sessionID,
      );
    }
  };

  return { "experimental.session.compacting": compacting, "experimental.chat.messages.transform": transform };
}

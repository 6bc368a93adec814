/**
 * opencode's synthetic continue turn in the in-memory messages of
 * `experimental.chat.messages.transform` (opencode 1.18.33 session/prompt.ts and
 * session/compaction.ts): finding its text parts, and rewriting one without touching what
 * else holds the old objects.
 */
import { isRecord } from "../../shared/record.js";
import { CONTINUE_TEXT, CONTINUE_TEXT_PREFIX } from "./facts.js";

/** One text part of a continue turn among the messages. */
export interface ContinuePart {
  /** The id of the user message holding it. */
  readonly messageID: string;
  /** Its text. */
  readonly text: string;
  /** Puts `text` in place of the part's: a new part object in a new part list of its message. */
  replace(text: string): void;
}

/** A text part that is opencode's synthetic continue turn: the marker first, the text second (as ./v1.ts reads it). */
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
 * The continue turns' text parts among `messages` (`Array<{ info, parts }>`), in order, and
 * the session they belong to (`info.sessionID` of the last message holding one; undefined
 * when none names it). Messages of any other shape are skipped; never throws.
 */
export function continueParts(messages: readonly unknown[]): { readonly sessionID: string | undefined; readonly parts: ContinuePart[] } {
  let sessionID: string | undefined;
  const parts: ContinuePart[] = [];
  for (const message of messages) {
    if (!isRecord(message) || !isRecord(message.info) || !Array.isArray(message.parts)) continue;
    const holder = message as { info: Record<string, unknown>; parts: unknown[] };
    for (const part of holder.parts) {
      if (isContinuePart(part) && typeof holder.info.id === "string") {
        parts.push({
          messageID: holder.info.id,
          text: part.text,
          replace: (text) => {
            holder.parts = holder.parts.map((p) => (p === part ? { ...part, text } : p));
          },
        });
        if (typeof holder.info.sessionID === "string") sessionID = holder.info.sessionID;
      }
    }
  }
  return { sessionID, parts };
}

/**
 * The text of a continue part rewritten: opencode's {@link CONTINUE_TEXT} replaced by `note`,
 * whatever opencode put before it kept (after a media overflow it prepends an explanation).
 *
 * @returns the new text, or null when the text does not hold opencode's continue text (then
 *   it is left as it is: another wording, or already rewritten).
 */
export function rewriteContinueText(text: string, note: string): string | null {
  const at = text.lastIndexOf(CONTINUE_TEXT);
  if (at < 0) return null;
  return text.slice(0, at) + note + text.slice(at + CONTINUE_TEXT.length);
}

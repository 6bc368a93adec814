/**
 * opencode's V1 messages → the session model's {@link Timeline}, every field read defensively.
 *
 * The input is what `client.session.messages()` returns and what `opencode export` writes
 * under `messages`: `Array<{ info, parts }>`, oldest first (opencode 1.18.33
 * session/message-v2.ts). A message the guard cannot understand becomes an `other` entry and
 * is otherwise ignored, so that no shape of history makes the guard throw.
 */
import { isRecord } from "../../shared/record.js";
import { CONTINUE_TEXT_PREFIX } from "./facts.js";
import {
  MAX_PHYSICAL_TOKENS,
  withoutToolLoopNotice,
  type AssistantEntry,
  type Entry,
  type ToolCall,
  type UserEntry,
} from "../../model/entry.js";
import { timelineOf, type Timeline } from "../../model/timeline.js";
import { guardStopOf } from "./guard-note.js";
import { openCodeAction } from "./actions.js";

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** A token count opencode could have written: finite, ≥ 0 and at most {@link MAX_PHYSICAL_TOKENS}; anything else reads as 0 (missing). */
const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 && value <= MAX_PHYSICAL_TOKENS ? value : 0;

/** A number no model could have counted: negative, NaN, infinite (`1e400` parses so) or over {@link MAX_PHYSICAL_TOKENS}. */
const unphysical = (value: unknown): boolean =>
  typeof value === "number" && !(Number.isFinite(value) && value >= 0 && value <= MAX_PHYSICAL_TOKENS);

/**
 * Whether a step's `tokens` holds a count no model could have made (see {@link unphysical}) in
 * `total`, `input`, `output`, `reasoning`, `cache.read` or `cache.write`. Such a field reads
 * as missing (0), as an absent one does; this tells `replay` and `audit` to say so.
 */
export function hasUnphysicalTokens(tokens: unknown): boolean {
  if (!isRecord(tokens)) return false;
  if (unphysical(tokens.total) || unphysical(tokens.input) || unphysical(tokens.output) || unphysical(tokens.reasoning)) return true;
  const cache = tokens.cache;
  return isRecord(cache) && (unphysical(cache.read) || unphysical(cache.write));
}

/**
 * How many messages of a session (`Array<{ info, parts }>`) hold a token count no model could
 * have made in `info.tokens` (see {@link hasUnphysicalTokens}): their sizes are read as missing,
 * and `replay` and `audit` say so once.
 */
export function unphysicalTokenMessages(messages: readonly unknown[]): number {
  let found = 0;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (isRecord(message) && isRecord(message.info) && hasUnphysicalTokens(message.info.tokens)) found += 1;
  }
  return found;
}

/**
 * opencode's context size of one step, in tokens:
 * `tokens.total || input + output + cache.read + cache.write`
 * (session/overflow.ts, `isOverflow`). Non-numeric fields, and counts no model could have
 * made (negative, NaN, infinite, over {@link MAX_PHYSICAL_TOKENS}), read as 0: missing.
 *
 * @returns the size, or null when it is missing or zero (the rules treat both as "no data").
 */
export function contextTokens(tokens: unknown): number | null {
  return tokenSizes(tokens).context;
}

/**
 * The prompt size of one step, in tokens: `input + cache.read + cache.write`, else
 * {@link contextTokens} when only `total` is recorded. Null when missing or zero.
 */
export function promptTokens(tokens: unknown): number | null {
  return tokenSizes(tokens).prompt;
}

/**
 * The output a step leaves in the context, in tokens: `tokens.output` (opencode records
 * hidden reasoning apart, in `tokens.reasoning`, e.g. output 100 and reasoning 3,800 for a
 * reply of 3,900 completion tokens). 0 when missing or invalid (as for {@link contextTokens}).
 */
export function outputTokens(tokens: unknown): number {
  return tokenSizes(tokens).output;
}

/**
 * {@link contextTokens}, {@link promptTokens} and {@link outputTokens} of one `tokens`, its
 * fields read once: a timeline reads all three for every assistant message.
 */
export function tokenSizes(tokens: unknown): { context: number | null; prompt: number | null; output: number } {
  if (!isRecord(tokens)) return { context: null, prompt: null, output: 0 };
  const cache = isRecord(tokens.cache) ? tokens.cache : undefined;
  const input = count(tokens.input);
  const output = count(tokens.output);
  const read = cache === undefined ? 0 : count(cache.read);
  const write = cache === undefined ? 0 : count(cache.write);
  const total = count(tokens.total) || input + output + read + write;
  const context = total > 0 ? total : null;
  const prompt = input + read + write;
  return { context, prompt: prompt > 0 ? prompt : context, output };
}

/** Part types that mark steps and snapshots rather than carry what the model produced. */
const BOOKKEEPING_PARTS = new Set(["step-start", "step-finish", "snapshot", "patch"]);

/** What a step's parts hold, read in one pass. */
export function readParts(parts: readonly unknown[]): Pick<AssistantEntry, "toolCalls" | "toolParts" | "text" | "empty"> {
  const calls: ToolCall[] = [];
  // The model's text: most steps have one text part or none, so a list is made only for more.
  let text: string | undefined;
  let texts: string[] | undefined;
  let toolParts = 0;
  let empty = true;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (!isRecord(part)) {
      empty = false;
      continue;
    }
    const type = part.type;
    if (!BOOKKEEPING_PARTS.has(type as string)) empty = false;
    if (type === "text") {
      // The model's own text: opencode's synthetic and ignored parts are not.
      if (part.synthetic !== true && part.ignored !== true) {
        const piece = str(part.text) ?? "";
        if (text === undefined) text = piece;
        else (texts ??= [text]).push(piece);
      }
    } else if (type === "tool") {
      toolParts += 1;
      const state = part.state;
      if (!isRecord(state)) continue;
      const { status } = state;
      if (status !== "completed" && status !== "error") continue;
      const tool = str(part.tool) ?? "";
      calls.push({
        tool,
        action: openCodeAction(tool, state.input),
        input: state.input,
        output: status === "completed" ? withoutToolLoopNotice(state.output) : state.error,
        status,
      });
    }
  }
  return { toolCalls: calls, toolParts, text: texts ? texts.join("\n") : (text ?? ""), empty };
}

/**
 * Is this user message opencode's synthetic continue turn? The marker
 * `metadata.compaction_continue` comes first; opencode says it is not a stable contract,
 * so a synthetic text part starting with the continue text counts too.
 */
function isContinueTurn(parts: readonly unknown[]): boolean {
  return parts.some(
    (part) =>
      isRecord(part) &&
      part.type === "text" &&
      ((isRecord(part.metadata) && part.metadata.compaction_continue === true) ||
        (part.synthetic === true && str(part.text)?.startsWith(CONTINUE_TEXT_PREFIX) === true)),
  );
}

/**
 * No person's words in it: every part is marked `synthetic: true` or is a text part marked
 * `ignored: true` (shown to the user, never sent to the model, such as the guard's own note
 * after it stopped a loop), and there is at least one part.
 */
const isSynthetic = (parts: readonly unknown[]): boolean =>
  parts.length > 0 && parts.every((part) => isRecord(part) && (part.synthetic === true || (part.type === "text" && part.ignored === true)));

/** `providerID/modelID agent` of an assistant message's info, or null when it names none of them. */
function modelOf(info: Record<string, unknown>): string | null {
  const provider = str(info.providerID);
  const model = str(info.modelID);
  const agent = str(info.agent) ?? str(info.mode);
  return provider === undefined && model === undefined && agent === undefined ? null : `${provider ?? "?"}/${model ?? "?"} ${agent ?? "?"}`;
}

const finite = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

/** A message's `time` (ms since the epoch): `completed`, else `created`; null without one. */
export function timeOf(time: unknown): number | null {
  return isRecord(time) ? (finite(time.completed) ?? finite(time.created)) : null;
}

/** One opencode message as an entry of the session model. */
function toEntry(message: unknown): Entry {
  const info = isRecord(message) && isRecord(message.info) ? message.info : undefined;
  const id = str(info?.id);
  const time = timeOf(info?.time);
  if (!info || id === undefined) return { kind: "other", id, time };
  const parts = isRecord(message) && Array.isArray(message.parts) ? message.parts : [];

  if (info.role === "assistant") {
    const { toolCalls, toolParts, text, empty } = readParts(parts);
    const sizes = tokenSizes(info.tokens);
    return {
      kind: "assistant",
      id,
      summary: info.summary === true,
      compactionID: str(info.parentID),
      succeeded: info.finish !== undefined && info.finish !== null && !info.error,
      finish: str(info.finish) ?? null,
      contextTokens: sizes.context,
      promptTokens: sizes.prompt,
      outputTokens: sizes.output,
      model: modelOf(info),
      toolCalls,
      toolParts,
      text,
      empty,
      time,
    };
  }
  if (info.role === "user") {
    const entry = userEntry(id, parts, time);
    const stop = guardStopOf(message);
    return stop === null ? entry : { ...entry, guardNote: stop };
  }
  return { kind: "other", id, time };
}

/** A user message (`info.role: "user"`) as an entry, by its parts. */
function userEntry(id: string, parts: readonly unknown[], time: number | null): UserEntry {
  const compaction = parts.find((part) => isRecord(part) && part.type === "compaction");
  if (isRecord(compaction)) {
    return {
      kind: "user",
      id,
      role: "compaction",
      text: "",
      auto: compaction.auto === true,
      overflow: compaction.overflow === true,
      tailStartID: str(compaction.tail_start_id),
      time,
    };
  }
  const role = isContinueTurn(parts) ? "continue" : isSynthetic(parts) ? "synthetic" : "real";
  let sentChars = 0;
  let sentBytes = 0;
  let unsized = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (isRecord(part) && part.type === "text") {
      if (part.ignored !== true) {
        const text = str(part.text) ?? "";
        sentChars += text.length;
        sentBytes += Buffer.byteLength(text, "utf8");
      }
    } else unsized = true;
  }
  return { kind: "user", id, role, text: readParts(parts).text, auto: false, overflow: false, sentChars, sentBytes, unsized, time };
}

/**
 * Builds the timeline of a session's messages.
 *
 * @param messages `Array<{ info, parts }>`, oldest first, as opencode returns them.
 *   Entries of any other shape are kept as `other` and ignored by the rules.
 * @returns entries in input order and every compaction found; never throws.
 */
export function buildTimeline(messages: readonly unknown[]): Timeline {
  return timelineOf(messages.map(toEntry));
}

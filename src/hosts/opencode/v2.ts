/**
 * OpenCode's V2 session runner → the session model's {@link Timeline}, directly.
 *
 * The V2 runner (opencode 1.18.33's `/api/session/*` API; OpenCode 2.x) records a session as
 * typed messages (`GET /api/session/{id}/message`, newest first by default) and as a durable
 * event log (`GET /api/session/{id}/history`, oldest first). Its compaction comes *before* a
 * model request and the same turn goes on after it: no synthetic continue turn. Each message
 * becomes the entries the rules read:
 *
 * - `user {text, files?}` → a real user entry (its files make it `unsized`); `synthetic
 *   {text}` and `system {text}` → a synthetic one (a continue turn when the text is opencode's
 *   continue text); `shell {command, output}` (the user ran `!command`) → a real one, `!command`.
 * - `assistant {agent, model, content, finish, tokens, error}` → a step: `text` content is its
 *   text, `tool {id, name, state}` a tool call whose output is the text of `state.content`
 *   (joined by newlines) and whose error is `state.error.message`; its context size is what
 *   the step left, its tool results included (see {@link v2StepTokens}).
 * - `compaction {reason, summary, recent}` → two entries: the compaction (`auto` when `reason`
 *   is `auto`) and its summary (id `<compaction id>:summary`, see {@link SUMMARY_ID_SUFFIX}).
 * - `agent-switched`, `model-switched` and anything unknown → an `other` entry.
 *
 * The V2 meaning of the rules follows from where the compaction sits: the step before compaction
 * k is what set it off, the steps after it (until k+1) are its cycle. no-progress reads "the
 * previous compaction did not make room", repeated-tool-call and no-new-work "the same calls
 * after the compaction as before it". There is no continue turn to deny: the glue interrupts
 * the session instead (plugin/opencode-v2/v2-runner.ts, plugin/opencode-v2/v2-plugin.ts), and only for a stopped loop
 * (severity `warning`; turn-finished cannot arise, as V2 compacts only before a request).
 *
 * Message and event shapes: `@opencode-ai/sdk/v2` 1.18.33 (`SessionMessage`,
 * `SessionDurableEvent`), checked against the recorded runs in test/fixtures/v2/. Pure; every
 * field read defensively; never throws.
 */
import { isRecord } from "../../shared/record.js";
import { CHARS_PER_TOKEN, CONTINUE_TEXT_PREFIX } from "./facts.js";
import { withoutToolLoopNotice, type AssistantEntry, type Entry, type ToolCall, type UserEntry } from "../../model/entry.js";
import { timelineOf, type Timeline } from "../../model/timeline.js";
import { hasUnphysicalTokens, timeOf, tokenSizes } from "./v1.js";
import { openCodeAction } from "./actions.js";

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** The text of a V2 tool result's `content` (`text` items joined by newlines; a file as `[file <name>]`). */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((item) =>
      isRecord(item) ? (item.type === "text" ? (str(item.text) ?? "") : `[file ${str(item.name) ?? str(item.uri) ?? ""}]`) : "",
    )
    .join("\n");
}

/** What an assistant message's `content` holds, read in one pass: its text, its finished calls, and the characters of their results. */
function readContent(content: readonly unknown[]): Pick<AssistantEntry, "toolCalls" | "toolParts" | "text" | "empty"> & {
  readonly resultChars: number;
} {
  const toolCalls: ToolCall[] = [];
  const texts: string[] = [];
  let toolParts = 0;
  let empty = true;
  let resultChars = 0;
  for (const item of content) {
    if (!isRecord(item)) continue;
    if (item.type === "text") texts.push(str(item.text) ?? "");
    else if (item.type !== "reasoning" && item.type !== "tool") continue;
    empty = false;
    if (item.type !== "tool") continue;
    toolParts += 1;
    const state = isRecord(item.state) ? item.state : {};
    const status = str(state.status);
    if (status !== "completed" && status !== "error") continue;
    const result =
      status === "completed"
        ? contentText(state.content)
        : isRecord(state.error)
          ? (str(state.error.message) ?? "")
          : (str(state.error) ?? "");
    resultChars += result.length;
    const tool = str(item.name) ?? "";
    toolCalls.push({
      tool,
      action: openCodeAction(tool, state.input),
      input: state.input,
      output: status === "completed" ? withoutToolLoopNotice(result) : result,
      status,
    });
  }
  return { toolCalls, toolParts, text: texts.join("\n"), empty, resultChars };
}

/**
 * A V2 step's tokens (a count in tokens) with `total` set to the context it left: its prompt
 * and output as the provider reported them, plus its tool results (`resultChars` characters)
 * at {@link CHARS_PER_TOKEN} characters a token. The V2 runner compacts on the estimated size
 * of the *next* request (`JSON.stringify(request).length / 4`, opencode's
 * `session/compaction.ts`), which holds those results (V1 compacts on the finished step's own
 * count): this is what set off a compaction that follows the step. Undefined stays
 * undefined; a step with no reported count keeps none.
 */
export function v2StepTokens(tokens: unknown, resultChars: number): unknown {
  if (!isRecord(tokens)) return tokens;
  const cache = isRecord(tokens.cache) ? tokens.cache : {};
  const counts = [tokens.input, tokens.output, cache.read, cache.write].map((n) =>
    typeof n === "number" && Number.isFinite(n) && n > 0 ? n : 0,
  );
  const reported = counts.reduce((a, b) => a + b, 0);
  if (reported === 0) return tokens;
  return { ...tokens, total: reported + Math.round(resultChars / CHARS_PER_TOKEN) };
}

/** The suffix that marks a compaction's summary entry id: `<compaction id>:summary`. */
export const SUMMARY_ID_SUFFIX = ":summary";

/** A user entry of a V2 message that sends `text` (and `unsized` when it carries files) to the model. */
function userEntry(id: string, text: string, synthetic: boolean, unsized: boolean, time: number | null): UserEntry {
  const role = !synthetic ? "real" : text.startsWith(CONTINUE_TEXT_PREFIX) ? "continue" : "synthetic";
  const sentBytes = Buffer.byteLength(text, "utf8");
  return {
    kind: "user",
    id,
    role,
    text: synthetic ? "" : text,
    auto: false,
    overflow: false,
    sentChars: text.length,
    sentBytes,
    unsized,
    time,
  };
}

/** The entries of one V2 message (two for a compaction), and whether its token counts are ones no model could have made. */
function toEntries(message: unknown): { readonly entries: readonly Entry[]; readonly unphysical: boolean } {
  if (!isRecord(message)) return { entries: [{ kind: "other", id: undefined, time: null }], unphysical: false };
  const id = str(message.id) ?? "";
  const time = timeOf(message.time);
  const one = (entry: Entry) => ({ entries: [entry], unphysical: false });
  switch (message.type) {
    case "user":
      return one(userEntry(id, str(message.text) ?? "", false, Array.isArray(message.files) && message.files.length > 0, time));
    case "synthetic":
    case "system":
      return one(userEntry(id, str(message.text) ?? "", true, false, time));
    case "shell":
      return one(userEntry(id, `!${str(message.command) ?? ""}`, false, false, time));
    case "assistant": {
      const model = isRecord(message.model) ? message.model : {};
      const { resultChars, ...content } = readContent(Array.isArray(message.content) ? message.content : []);
      const tokens = v2StepTokens(message.tokens, resultChars);
      const sizes = tokenSizes(tokens);
      const providerID = str(model.providerID);
      const modelID = str(model.id);
      const agent = str(message.agent);
      const finish = str(message.finish);
      const entry: AssistantEntry = {
        kind: "assistant",
        id,
        summary: false,
        compactionID: undefined,
        succeeded: finish !== undefined && !message.error,
        finish: finish ?? null,
        contextTokens: sizes.context,
        promptTokens: sizes.prompt,
        outputTokens: sizes.output,
        model:
          providerID === undefined && modelID === undefined && agent === undefined
            ? null
            : `${providerID ?? "?"}/${modelID ?? "?"} ${agent ?? "?"}`,
        ...content,
        time,
      };
      return { entries: [entry], unphysical: hasUnphysicalTokens(tokens) };
    }
    case "compaction": {
      const summary = str(message.summary) ?? "";
      const compaction: UserEntry = {
        kind: "user",
        id,
        role: "compaction",
        text: "",
        auto: message.reason === "auto",
        overflow: false,
        tailStartID: undefined,
        time,
      };
      const answer: AssistantEntry = {
        kind: "assistant",
        id: `${id}${SUMMARY_ID_SUFFIX}`,
        summary: true,
        compactionID: id,
        succeeded: true,
        finish: "stop",
        contextTokens: null,
        promptTokens: null,
        outputTokens: 0,
        model: "?/? compaction",
        toolCalls: [],
        toolParts: 0,
        text: summary,
        empty: false,
        time,
      };
      return { entries: [compaction, answer], unphysical: false };
    }
    default:
      return one({ kind: "other", id, time });
  }
}

/** A V2 session as the session model reads it. */
export interface V2Session {
  readonly timeline: Timeline;
  /** How many of its steps hold a token count no model could have made (read as missing). */
  readonly unphysicalTokens: number;
}

/**
 * The timeline of a V2 session's messages (oldest first, see {@link v2InOrder}); a compaction
 * becomes two entries, its compaction and its summary.
 * @param options.roleless `keep` (default) keeps an `other` entry for each message that is
 *   no one's words (agent or model switched, unknown, malformed); `drop` leaves them out, as a
 *   session export does.
 */
export function v2Session(messages: readonly unknown[], options: { readonly roleless?: "keep" | "drop" } = {}): V2Session {
  const entries: Entry[] = [];
  let unphysicalTokens = 0;
  for (const message of messages) {
    const read = toEntries(message);
    if (read.unphysical) unphysicalTokens += 1;
    for (const entry of read.entries) if (options.roleless !== "drop" || entry.kind !== "other") entries.push(entry);
  }
  return { timeline: timelineOf(entries), unphysicalTokens };
}

/** {@link v2Session}'s timeline, every message kept. */
export function buildV2Timeline(messages: readonly unknown[]): Timeline {
  return v2Session(messages).timeline;
}

/** `time.created` of a V2 message (ms), or undefined. */
const created = (message: unknown): number | undefined =>
  isRecord(message) && isRecord(message.time) && typeof message.time.created === "number" ? message.time.created : undefined;

/**
 * V2 messages oldest first: `/message` answers newest first unless asked `order=asc`, and a
 * saved file may hold either. Reversed when the first message was created after the last;
 * left as given when the times do not say.
 */
export function v2InOrder(messages: readonly unknown[]): unknown[] {
  const first = created(messages[0]);
  const last = created(messages.at(-1));
  return first !== undefined && last !== undefined && first > last ? [...messages].reverse() : [...messages];
}

/**
 * A V2 event's kind without its prefix (`compaction.ended` for `session.next.compaction.ended`
 * and for `session.compaction.ended`, the name later 2.x builds use), and its payload (`data`
 * in the durable log and 2.x's event stream, `properties` on 1.18.33's V1 bus); undefined for
 * an event that is not a V2 session event.
 */
export function v2Event(event: unknown): { readonly kind: string; readonly data: Record<string, unknown> } | undefined {
  if (!isRecord(event) || typeof event.type !== "string") return undefined;
  const match = /^session\.(?:next\.)?(.+)$/.exec(event.type);
  if (!match) return undefined;
  const data = isRecord(event.data) ? event.data : isRecord(event.properties) ? event.properties : undefined;
  return data ? { kind: match[1]!, data } : undefined;
}

/**
 * Rebuilds V2 messages (oldest first, the shapes `/message` returns) from a session's durable
 * events (`/history`'s `data`, or events a plugin received), oldest first. A user's words come
 * from 1.18.33's `prompted` (or `prompt.admitted`), or from later builds' `input.admitted`
 * (`{ inputID, input: { type: "user" | "synthetic", data: { text, files? } } }`) once its
 * `input.promoted { inputID }` puts it in the history (upstream `packages/schema/src/
 * session-event.ts`, `session-pending.ts`). Events of other kinds, and events about a message
 * never started (or an input never admitted), are skipped.
 */
export function v2MessagesFromEvents(events: readonly unknown[]): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [];
  const byID = new Map<string, Record<string, unknown>>();
  /** Inputs admitted and not yet promoted into the history, by input id. */
  const admitted = new Map<string, Record<string, unknown>>();
  const add = (message: Record<string, unknown>) => {
    const id = message.id as string;
    if (byID.has(id)) return byID.get(id)!;
    byID.set(id, message);
    messages.push(message);
    return message;
  };
  const assistant = (data: Record<string, unknown>) => {
    const found = byID.get(str(data.assistantMessageID) ?? "");
    return found?.type === "assistant" ? (found as { content: Record<string, unknown>[] } & Record<string, unknown>) : undefined;
  };
  const tool = (data: Record<string, unknown>) => {
    const message = assistant(data);
    const callID = str(data.callID);
    if (!message || callID === undefined) return undefined;
    let part = message.content.find((item) => item.type === "tool" && item.id === callID);
    if (!part) message.content.push((part = { type: "tool", id: callID, name: str(data.tool) ?? str(data.name) ?? "", state: {} }));
    return part as { state: Record<string, unknown> } & Record<string, unknown>;
  };
  for (const event of events) {
    const parsed = v2Event(event);
    if (!parsed) continue;
    const { kind, data } = parsed;
    const time = { created: typeof data.timestamp === "number" ? data.timestamp : undefined };
    const messageID = str(data.messageID);
    switch (kind) {
      case "prompted":
      case "prompt.admitted": {
        if (messageID === undefined) break;
        const prompt = isRecord(data.prompt) ? data.prompt : {};
        add({
          id: messageID,
          type: "user",
          time,
          text: str(prompt.text) ?? "",
          ...(Array.isArray(prompt.files) ? { files: prompt.files } : {}),
        });
        break;
      }
      case "input.admitted": {
        // Later 2.x builds: an input waits as `input.admitted` and joins the history when promoted.
        const inputID = str(data.inputID);
        if (inputID !== undefined && isRecord(data.input)) admitted.set(inputID, data.input);
        break;
      }
      case "input.promoted": {
        const inputID = str(data.inputID);
        const input = inputID === undefined ? undefined : admitted.get(inputID);
        if (inputID === undefined || input === undefined) break;
        admitted.delete(inputID);
        const given = isRecord(input.data) ? input.data : {};
        const text = str(given.text) ?? "";
        if (input.type === "user")
          add({ id: inputID, type: "user", time, text, ...(Array.isArray(given.files) ? { files: given.files } : {}) });
        else if (input.type === "synthetic") add({ id: inputID, type: "synthetic", time, text });
        break;
      }
      case "synthetic":
        if (messageID !== undefined) add({ id: messageID, type: "synthetic", time, text: str(data.text) ?? "" });
        break;
      case "shell.started":
        if (messageID !== undefined)
          add({ id: messageID, type: "shell", time, callID: data.callID, command: str(data.command) ?? "", output: "" });
        break;
      case "step.started": {
        const id = str(data.assistantMessageID);
        if (id !== undefined) add({ id, type: "assistant", time, agent: data.agent, model: data.model, content: [] });
        break;
      }
      case "text.ended":
      case "reasoning.ended": {
        const message = assistant(data);
        const id = str(kind === "text.ended" ? data.textID : data.reasoningID);
        message?.content.push({ type: kind === "text.ended" ? "text" : "reasoning", id, text: str(data.text) ?? "" });
        break;
      }
      case "tool.input.started":
        tool(data);
        break;
      case "tool.called": {
        const part = tool(data);
        if (part) part.state = { status: "running", input: data.input, content: [] };
        break;
      }
      case "tool.success": {
        const part = tool(data);
        if (part) part.state = { status: "completed", input: part.state.input, content: data.content, structured: data.structured };
        break;
      }
      case "tool.failed": {
        const part = tool(data);
        if (part) part.state = { status: "error", input: part.state.input, content: [], error: data.error };
        break;
      }
      case "step.ended": {
        const message = assistant(data);
        if (message) Object.assign(message, { finish: data.finish, tokens: data.tokens, cost: data.cost });
        break;
      }
      case "step.failed": {
        const message = assistant(data);
        if (message) Object.assign(message, { finish: "error", error: data.error });
        break;
      }
      case "compaction.ended":
        if (messageID !== undefined) {
          add({
            id: messageID,
            type: "compaction",
            time,
            reason: data.reason,
            summary: str(data.text) ?? "",
            recent: str(data.recent) ?? "",
          });
        }
        break;
    }
  }
  return messages;
}

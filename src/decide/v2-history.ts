/**
 * OpenCode's V2 session runner → the same messages the rules read.
 *
 * The V2 runner (opencode 1.18.33's `/api/session/*` API; OpenCode 2.x) records a session as
 * typed messages (`GET /api/session/{id}/message`, newest first by default) and as a durable
 * event log (`GET /api/session/{id}/history`, oldest first). Its compaction comes *before* a
 * model request and the same turn goes on after it: no synthetic continue turn. This module
 * maps both records to the V1 shape `Array<{ info, parts }>` (oldest first) that
 * ./history.ts reads, so that `decide` and every rule run unchanged:
 *
 * - `user {text, files?}` → a user message with one text part (and one `file` part per file);
 *   `synthetic {text}` and `system {text}` → a user message whose parts are all synthetic;
 *   `shell {command, output}` (the user ran `!command`) → a real user message.
 * - `assistant {agent, model, content, finish, tokens, error}` → an assistant message: `text`
 *   and `reasoning` content become parts of those types, `tool {id, name, state}` a tool part
 *   whose `state.output` is the text of `state.content` (joined by newlines) and whose
 *   `state.error` is `state.error.message`; `tokens.total` is the context the step left, its
 *   tool results included (see {@link v2StepTokens}).
 * - `compaction {reason, summary, recent}` → the two V1 messages of a compaction: a user
 *   message holding a `compaction` part (`auto` when `reason` is `auto`), and its summary (an
 *   assistant message, `summary: true`, `parentID` = the compaction's id, id
 *   `<compaction id>:summary`).
 * - `agent-switched`, `model-switched` and anything unknown → a message of no role, which the
 *   timeline keeps as `other`.
 *
 * The V2 meaning of the rules follows from where the compaction sits: the step before compaction
 * k is what set it off, the steps after it (until k+1) are its cycle. no-progress reads "the
 * previous compaction did not make room", repeated-tool-call and no-new-work "the same calls
 * after the compaction as before it". There is no continue turn to deny: the glue interrupts
 * the session instead (plugin/v2-runner.ts, plugin/v2-plugin.ts), and only for a stopped loop
 * (severity `warning`; turn-finished cannot arise, as V2 compacts only before a request).
 *
 * Message and event shapes: `@opencode-ai/sdk/v2` 1.18.33 (`SessionMessage`,
 * `SessionDurableEvent`), checked against the recorded runs in test/fixtures/v2/. Pure; every
 * field read defensively; never throws.
 */
import { isRecord } from "../shared/record.js";
import { buildTimeline, type Timeline } from "./history.js";
import { CHARS_PER_TOKEN } from "./opencode-facts.js";
import type { GuardSettings } from "./settings.js";
import { decide, findDecisionPoint, historyLimit, type DecideOptions, type Verdict } from "./verdict.js";

/** A V1-shaped message, as ./history.ts reads it. */
export interface V1Message {
  readonly info: Record<string, unknown>;
  readonly parts: readonly Record<string, unknown>[];
}

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

/** One V2 assistant content item as a V1 part, or undefined when it is of no known type. */
function toPart(item: unknown): Record<string, unknown> | undefined {
  if (!isRecord(item)) return undefined;
  if (item.type === "text") return { type: "text", text: str(item.text) ?? "" };
  if (item.type === "reasoning") return { type: "reasoning", text: str(item.text) ?? "" };
  if (item.type !== "tool") return undefined;
  const state = isRecord(item.state) ? item.state : {};
  const status = str(state.status) ?? "pending";
  const error = isRecord(state.error) ? (str(state.error.message) ?? "") : str(state.error);
  return {
    type: "tool",
    callID: str(item.id),
    tool: str(item.name) ?? "",
    state: {
      status,
      input: state.input,
      ...(status === "completed" ? { output: contentText(state.content) } : {}),
      ...(status === "error" ? { error: error ?? "" } : {}),
    },
  };
}

/**
 * A V2 step's tokens (a count in tokens) with `total` set to the context it left: its prompt
 * and output as the provider reported them, plus its tool results at {@link CHARS_PER_TOKEN}
 * characters a token. The V2 runner compacts on the estimated size of the *next* request
 * (`JSON.stringify(request).length / 4`, opencode's `session/compaction.ts`), which holds those
 * results (V1 compacts on the finished step's own count): this is what set off a compaction
 * that follows the step. Undefined stays undefined; a step with no reported count keeps none.
 */
function v2StepTokens(tokens: unknown, parts: readonly Record<string, unknown>[]): unknown {
  if (!isRecord(tokens)) return tokens;
  const cache = isRecord(tokens.cache) ? tokens.cache : {};
  const counts = [tokens.input, tokens.output, cache.read, cache.write].map((n) =>
    typeof n === "number" && Number.isFinite(n) && n > 0 ? n : 0,
  );
  const reported = counts.reduce((a, b) => a + b, 0);
  if (reported === 0) return tokens;
  let chars = 0;
  for (const part of parts) {
    const state = isRecord(part.state) ? part.state : undefined;
    if (part.type === "tool" && state) chars += String(state.output ?? state.error ?? "").length;
  }
  return { ...tokens, total: reported + Math.round(chars / CHARS_PER_TOKEN) };
}

/** The suffix that marks a compaction's summary message id: `<compaction id>:summary`. */
export const SUMMARY_ID_SUFFIX = ":summary";

/**
 * Maps V2 messages (oldest first) to V1 messages (oldest first); a compaction becomes two.
 * @param messages V2 `SessionMessage`s, oldest first (see {@link v2InOrder}).
 */
export function v2ToV1Messages(messages: readonly unknown[]): V1Message[] {
  const out: V1Message[] = [];
  for (const message of messages) {
    if (!isRecord(message)) {
      out.push({ info: {}, parts: [] });
      continue;
    }
    const id = str(message.id) ?? "";
    const time = isRecord(message.time) ? message.time : undefined;
    switch (message.type) {
      case "user": {
        const files = Array.isArray(message.files) ? message.files : [];
        out.push({
          info: { id, role: "user", time },
          parts: [{ type: "text", text: str(message.text) ?? "" }, ...files.map((file) => ({ type: "file", file }))],
        });
        break;
      }
      case "synthetic":
      case "system":
        out.push({ info: { id, role: "user", time }, parts: [{ type: "text", text: str(message.text) ?? "", synthetic: true }] });
        break;
      case "shell":
        out.push({ info: { id, role: "user", time }, parts: [{ type: "text", text: `!${str(message.command) ?? ""}` }] });
        break;
      case "assistant": {
        const model = isRecord(message.model) ? message.model : {};
        const content = Array.isArray(message.content) ? message.content : [];
        const parts = content.map(toPart).filter((part): part is Record<string, unknown> => part !== undefined);
        out.push({
          info: {
            id,
            role: "assistant",
            time,
            agent: str(message.agent),
            providerID: str(model.providerID),
            modelID: str(model.id),
            finish: str(message.finish),
            ...(message.error !== undefined ? { error: message.error } : {}),
            tokens: v2StepTokens(message.tokens, parts),
          },
          parts,
        });
        break;
      }
      case "compaction":
        out.push({ info: { id, role: "user", time }, parts: [{ type: "compaction", auto: message.reason === "auto", overflow: false }] });
        out.push({
          info: {
            id: `${id}${SUMMARY_ID_SUFFIX}`,
            role: "assistant",
            time,
            summary: true,
            parentID: id,
            agent: "compaction",
            mode: "compaction",
            finish: "stop",
          },
          parts: [{ type: "text", text: str(message.summary) ?? "" }],
        });
        break;
      default:
        out.push({ info: { id, time }, parts: [] });
    }
  }
  return out;
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
 * events (`/history`'s `data`, or events a plugin received), oldest first. Events of other
 * kinds, and events about a message never started, are skipped.
 */
export function v2MessagesFromEvents(events: readonly unknown[]): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [];
  const byID = new Map<string, Record<string, unknown>>();
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

/**
 * The guard's decision at one V2 compaction, on the session's V2 messages as they stood when
 * it ended: the same `decide` as the V1 hook, on the mapped timeline.
 *
 * @param messages V2 messages, oldest first (the newest `historyLimit(settings)` are enough).
 * @param compactionID the compaction message's id (`compaction.ended`'s `messageID`).
 * @param options as for `decide`; `wholeSession` defaults to "fewer messages than the limit".
 *   Pass no `limits`: V2 draws its compaction line otherwise than V1 (the request's estimated
 *   size against `context − max(output, buffer)`), so the V1 usable line would mislead.
 * @returns the verdict and the mapped timeline, or undefined when no automatic compaction of
 *   that id (or none at all) is among the messages.
 */
export function decideV2(
  messages: readonly unknown[],
  compactionID: string | undefined,
  settings: GuardSettings,
  options: DecideOptions = {},
): { readonly verdict: Verdict; readonly timeline: Timeline } | undefined {
  const timeline = buildTimeline(v2ToV1Messages(messages));
  const point = findDecisionPoint(timeline, compactionID);
  if (!point || (compactionID !== undefined && point.messageID !== compactionID)) return undefined;
  const wholeSession = options.wholeSession ?? messages.length < historyLimit(settings);
  return { verdict: decide(timeline, point, settings, { wholeSession, ...options }), timeline };
}

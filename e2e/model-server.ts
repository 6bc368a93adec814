/**
 * A scripted OpenAI-compatible model server for end-to-end runs of the real opencode.
 *
 * Plain `node:http` on 127.0.0.1, a random free port. `POST /v1/chat/completions` answers
 * with a `chat.completion.chunk` SSE stream (text or `tool_calls` deltas, then a finish
 * chunk, then a `usage` chunk) or with an HTTP error, as the scenario says. Every request
 * is classified, counted and recorded. After `maxRequests` model requests (titles not
 * counted) every request is refused with a 4xx, which opencode does not retry, so a run
 * that nothing stops still ends by itself.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  chatReply,
  compactionReply,
  COUNTED_SCENARIOS,
  priorReply,
  titleReply,
  type Reply,
  type RequestKind,
  type ScenarioContext,
  type ScenarioName,
  type ScenarioState,
} from "./scenarios.js";
import { CHARS4, type Tokenizer } from "./tokenizers.js";

/** One request as the server saw and answered it. */
export interface RecordedRequest {
  /** 1-based order of arrival. */
  seq: number;
  kind: RequestKind;
  /** Milliseconds since the server started. */
  atMs: number;
  /** HTTP status answered. */
  status: number;
  /** What was answered: a tool call (its tool name), text, an answer with no content, or an error. */
  reply: "tool-call" | "text" | "empty" | "error" | "cap";
  tool?: string;
  /** Prompt tokens reported in the `usage` chunk (null when the answer was an error). */
  promptTokens: number | null;
  completionTokens: number | null;
}

/** A running server. `baseURL` ends in `/v1`, as `@ai-sdk/openai-compatible` wants it. */
export interface ModelServer {
  baseURL: string;
  port: number;
  /** Every request so far, in order of arrival (the live array). */
  requests: RecordedRequest[];
  /** Requests so far by kind. */
  counts(): Record<RequestKind, number>;
  close(): Promise<void>;
}

/** Options of `startModelServer`. */
export interface ModelServerOptions {
  scenario: ScenarioName;
  /** Absolute path the `read` tool calls use. */
  readPath: string;
  /** The project dir the scenario's files are in (default: readPath's dir). */
  projectDir?: string;
  /** Model requests (chat, continue, compaction; titles and the warm-up not counted) answered before the cap. Default 24. */
  maxRequests?: number;
  /**
   * A prompt answered with plain text (`PRIOR_ANSWER`, stop) whenever it is the last user
   * message of a chat request, outside the scenario's counts: the first turn of a session
   * whose second turn plays the scenario.
   */
  warmupPrompt?: string;
  /** Called with every parsed request body and its kind (for debugging a scenario). */
  onRequest?: (kind: RequestKind, body: unknown) => void;
  /**
   * Count the tokens each request carries instead of reporting the scenario's fixed figures:
   * `prompt_tokens` = {@link countPromptTokens} of the request, `completion_tokens` = the
   * reply's text or tool call (and reasoning) with the same tokenizer. Default: on for the
   * scenarios in scenarios.ts `COUNTED_SCENARIOS` and whenever `tokenizer` is given, else off.
   */
  countTokens?: boolean;
  /** The tokenizer the counting mode counts with (tokenizers.ts `loadTokenizer`); default {@link CHARS4}. */
  tokenizer?: Tokenizer;
}

/**
 * Every text of a message as the model reads it: its content, its tool calls (name and
 * arguments) and any reasoning sent back with it (`reasoning_content`, `reasoning`).
 */
function messageTexts(message: ChatMessage): string[] {
  const texts = [textOf(message.content)];
  for (const call of message.tool_calls ?? []) texts.push(call.function?.name ?? "", call.function?.arguments ?? "");
  for (const reasoning of [message.reasoning_content, message.reasoning]) if (typeof reasoning === "string") texts.push(reasoning);
  return texts;
}

/**
 * The prompt tokens a request carries, counted with `tokenizer`: every message's texts (system
 * prompt, user and assistant text, tool calls, tool results) and the tool definitions as JSON,
 * plus the family's chat template (tokenizers.ts: per message, and once per request). With
 * {@link CHARS4}: ⌈characters / 4⌉ of it all, so sizes add up as a real tokenizer's roughly do.
 */
export function countPromptTokens(body: ChatRequest, tokenizer: Tokenizer = CHARS4): number {
  const messages = body.messages ?? [];
  const texts = messages.flatMap(messageTexts);
  if (body.tools) texts.push(JSON.stringify(body.tools));
  return tokenizer.countTexts(texts) + tokenizer.perMessage * messages.length + tokenizer.perRequest;
}

/** The completion tokens of a reply, counted with `tokenizer`: its text or tool call (name and arguments), at least 1; reasoning not included. */
export function countCompletionTokens(
  reply: Extract<Reply, { type: "tool-call" | "text" | "empty" }>,
  tokenizer: Tokenizer = CHARS4,
): number {
  const texts = reply.type === "text" ? [reply.text] : reply.type === "tool-call" ? [reply.call.name, JSON.stringify(reply.call.args)] : [];
  return Math.max(1, tokenizer.countTexts(texts));
}

/** The error body the server sends once the request cap is reached (HTTP 400, not retried). */
export function capErrorBody(max: number): unknown {
  return { error: { message: `fake model server: request cap of ${max} reached`, type: "invalid_request_error", code: "request_cap" } };
}

/** The synthetic turn text opencode adds after a compaction (its prefix is enough). */
const CONTINUE_PREFIX = "Continue if you have next steps";
/** The guard's rewrite of that turn (src/guard/ledger.ts `NOTE_HEADER`), with `prevent` on. */
const NOTE_PREFIX = "[compaction-guard note]";

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ function?: { name?: string; arguments?: string } }>;
  reasoning_content?: unknown;
  reasoning?: unknown;
}
interface ChatRequest {
  messages?: ChatMessage[];
  tools?: unknown[];
}

/** The plain text of a message's `content` (string, or an array of text parts). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === "object" && "text" in p ? String((p as { text: unknown }).text) : "")).join("\n");
  }
  return "";
}

/** The text of the last user message of a request, or "". */
function lastUserText(body: ChatRequest): string {
  const lastUser = [...(body.messages ?? [])].reverse().find((m) => m.role === "user");
  return lastUser ? textOf(lastUser.content) : "";
}

/**
 * Classify one chat-completions request body.
 * - `chat` / `continue`: tools offered; `continue` when the last user message is opencode's
 *   synthetic "Continue if you have next steps…" turn.
 * - `title` / `compaction`: no tools; `title` when the system prompt is opencode's title
 *   generator, otherwise `compaction` (opencode's summarising prompt with a `<conversation>` block).
 */
export function classifyRequest(body: ChatRequest): RequestKind {
  const messages = body.messages ?? [];
  if (body.tools && body.tools.length > 0) {
    const last = lastUserText(body);
    return last.includes(CONTINUE_PREFIX) || last.includes(NOTE_PREFIX) ? "continue" : "chat";
  }
  const system = messages
    .filter((m) => m.role === "system")
    .map((m) => textOf(m.content))
    .join("\n");
  return /title generator/i.test(system) ? "title" : "compaction";
}

/** The SSE events for a successful reply, each a `chat.completion.chunk` object. */
function chunksFor(reply: Extract<Reply, { type: "tool-call" | "text" | "empty" }>, id: string, callId: string): unknown[] {
  const base = { id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: "fakemodel" };
  const reasoning =
    reply.reasoningText !== undefined
      ? [{ ...base, choices: [{ index: 0, delta: { role: "assistant", reasoning_content: reply.reasoningText }, finish_reason: null }] }]
      : [];
  const delta =
    reply.type === "text"
      ? { role: "assistant", content: reply.text }
      : reply.type === "empty"
        ? { role: "assistant" }
        : {
            role: "assistant",
            content: null,
            tool_calls: [
              { index: 0, id: callId, type: "function", function: { name: reply.call.name, arguments: JSON.stringify(reply.call.args) } },
            ],
          };
  const finish = reply.finishReason !== undefined ? reply.finishReason : reply.type === "tool-call" ? "tool_calls" : "stop";
  const usage = {
    prompt_tokens: reply.promptTokens,
    completion_tokens: reply.completionTokens,
    total_tokens: reply.promptTokens + reply.completionTokens,
    ...(reply.reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: reply.reasoningTokens } } : {}),
  };
  return [
    ...reasoning,
    { ...base, choices: [{ index: 0, delta, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] },
    { ...base, choices: [], usage },
  ];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/**
 * Start the scripted server for one scenario.
 * @returns the running server; call `close()` when the run is over.
 */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const maxRequests = options.maxRequests ?? 24;
  const counting = options.countTokens ?? (COUNTED_SCENARIOS.has(options.scenario) || options.tokenizer !== undefined);
  const tokenizer = options.tokenizer ?? CHARS4;
  const ctx: ScenarioContext = { readPath: options.readPath, ...(options.projectDir ? { projectDir: options.projectDir } : {}) };
  const requests: RecordedRequest[] = [];
  const state: ScenarioState = { step: 0, compactions: 0, stepsSinceCompaction: 0 };
  const started = Date.now();
  let modelRequests = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      sendJson(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
      return;
    }
    const body = JSON.parse(await readBody(req)) as ChatRequest;
    const kind = classifyRequest(body);
    options.onRequest?.(kind, body);
    const seq = requests.length + 1;
    const record = (r: Omit<RecordedRequest, "seq" | "kind" | "atMs">) => requests.push({ seq, kind, atMs: Date.now() - started, ...r });

    const warmup = kind === "chat" && options.warmupPrompt !== undefined && lastUserText(body).includes(options.warmupPrompt);
    if (kind !== "title" && !warmup && ++modelRequests > maxRequests) {
      record({ status: 400, reply: "cap", promptTokens: null, completionTokens: null });
      sendJson(res, 400, capErrorBody(maxRequests));
      return;
    }
    let reply: Reply;
    if (kind === "title") reply = titleReply();
    else if (warmup) reply = priorReply();
    else if (kind === "compaction") {
      state.compactions += 1;
      state.stepsSinceCompaction = 0;
      reply = compactionReply(options.scenario, state);
    } else {
      state.step += 1;
      state.stepsSinceCompaction += 1;
      reply = chatReply(options.scenario, state, ctx);
    }

    if (reply.type === "error") {
      record({ status: reply.status, reply: "error", promptTokens: null, completionTokens: null });
      sendJson(res, reply.status, reply.body);
      return;
    }
    if (counting) {
      const reasoningTokens = reply.reasoningText !== undefined ? tokenizer.countTexts([reply.reasoningText]) : reply.reasoningTokens;
      reply = {
        ...reply,
        promptTokens: countPromptTokens(body, tokenizer),
        completionTokens: countCompletionTokens(reply, tokenizer) + (reasoningTokens ?? 0),
        ...(reasoningTokens !== undefined ? { reasoningTokens } : {}),
      };
    }
    record({
      status: 200,
      reply: reply.type,
      ...(reply.type === "tool-call" ? { tool: reply.call.name } : {}),
      promptTokens: reply.promptTokens,
      completionTokens: reply.completionTokens,
    });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    for (const chunk of chunksFor(reply, `chatcmpl-${seq}`, `call_${seq}`)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    res.end("data: [DONE]\n\n");
  };

  const server = createServer((req, res) => {
    // A 4xx, not a 5xx: opencode retries 5xx with back-off, which would hide the bug in a timeout.
    handle(req, res).catch((err: unknown) => sendJson(res, 400, { error: { message: `fake model server failed: ${String(err)}` } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    counts() {
      const c: Record<RequestKind, number> = { title: 0, compaction: 0, continue: 0, chat: 0 };
      for (const r of requests) c[r.kind] += 1;
      return c;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

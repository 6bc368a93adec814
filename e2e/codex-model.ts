/**
 * A scripted model for end-to-end runs of the real Codex CLI: an OpenAI Responses API server
 * (`POST /v1/responses`, a `text/event-stream` of `response.created`,
 * `response.output_item.done` and `response.completed`) on 127.0.0.1, a random free port.
 * Codex reaches it as a model provider of its own (`base_url`, `wire_api = "responses"`), so
 * no request leaves the machine.
 *
 * Each request is told apart by what Codex put last in its `input`: Codex's compaction
 * request ends with its summarization prompt (a user message), a turn's next step ends with
 * a tool's output. The scenario answers a compaction request with a summary text, and every
 * other request with the next shell call or the final answer. Every answer reports
 * `inputTokens` as its usage, so Codex's automatic compaction (`model_auto_compact_token_limit`)
 * fires when the scenario says. After `maxRequests` requests the server answers 400 (Codex
 * does not retry a 4xx), so a run that nothing stops still ends by itself.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What one request was. */
export type CodexRequestKind = "compaction" | "step";

/** One request as the server saw and answered it. */
export interface CodexRequest {
  readonly seq: number;
  readonly kind: CodexRequestKind;
  /** What was answered: a shell call (its command), a text, or a refusal. */
  readonly reply: { readonly call: string } | { readonly text: string } | { readonly refused: number };
  /** `input_tokens` reported in the usage. */
  readonly inputTokens: number;
}

/** What the scripted model does at a step that is not a compaction request. */
export type CodexStep = { readonly call: string } | { readonly text: string };

/** Where a session is when the scripted model answers a step. */
export interface CodexProgress {
  /** Steps answered so far (compaction requests not counted). */
  readonly done: number;
  /** Compaction requests answered so far. */
  readonly compactions: number;
  /** Steps answered since the latest compaction (or the start). */
  readonly sinceCompaction: number;
}

/** A scripted model: its next step from where the session is. */
export interface CodexScenario {
  step(at: CodexProgress): CodexStep;
  /** `input_tokens` to report for a step (tokens): over the auto-compact limit, Codex compacts before its next request. */
  inputTokens(at: CodexProgress): number;
}

/** A running server. */
export interface CodexModelServer {
  /** The provider's `base_url` (ends in `/v1`). */
  readonly baseURL: string;
  /** Every request so far, in order (the live array). */
  readonly requests: CodexRequest[];
  /** Every request's body as parsed JSON, in order (for a test that looks into what Codex sent). */
  readonly bodies: unknown[];
  close(): Promise<void>;
}

/** The start of Codex's summarization prompt (codex-rs templates/compact/prompt.md). */
const COMPACT_PROMPT = /CONTEXT CHECKPOINT COMPACTION|handoff summary|summar(y|ize) (of )?the conversation/i;

/** The text of a Responses input item (a message's `input_text` parts), or "". */
function itemText(item: unknown): string {
  if (typeof item !== "object" || item === null) return "";
  const content = (item as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof part?.text === "string" ? (part.text as string) : "")).join("\n");
}

/** Is this request body Codex's compaction request? Its last input item is the summarization prompt. */
export function isCompactionRequest(body: unknown): boolean {
  const input = (body as { input?: unknown })?.input;
  if (!Array.isArray(input) || input.length === 0) return false;
  const last = input[input.length - 1] as { type?: string; role?: string };
  return (last.type === "message" || last.type === undefined) && last.role === "user" && COMPACT_PROMPT.test(itemText(last));
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...(data as object) })}\n\n`);
}

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    return null;
  }
}

/**
 * Starts the server.
 * @param maxRequests requests answered before every further one is refused (400).
 * @param summary the text answered to a compaction request.
 */
export async function startCodexModel(
  scenario: CodexScenario,
  maxRequests = 40,
  summary = "Summary: ran the check.",
): Promise<CodexModelServer> {
  const requests: CodexRequest[] = [];
  const bodies: unknown[] = [];
  let steps = 0;
  let compactions = 0;
  let sinceCompaction = 0;
  let lastTokens = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      if (req.method !== "POST" || !req.url?.endsWith("/responses")) {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
        return;
      }
      bodies.push(body);
      const seq = requests.length + 1;
      const kind: CodexRequestKind = isCompactionRequest(body) ? "compaction" : "step";
      if (seq > maxRequests) {
        requests.push({ seq, kind, reply: { refused: 400 }, inputTokens: 0 });
        res
          .writeHead(400, { "content-type": "application/json" })
          .end('{"error":{"message":"scripted model: request cap reached","type":"invalid_request_error"}}');
        return;
      }
      const id = `resp_${seq}`;
      let item: Record<string, unknown>;
      let reply: CodexRequest["reply"];
      let inputTokens: number;
      if (kind === "compaction") {
        compactions += 1;
        sinceCompaction = 0;
        // The compaction request sends the whole history: its size is the context's, as a real model reports it.
        inputTokens = lastTokens + 200;
        reply = { text: summary };
        item = { type: "message", role: "assistant", id: `msg_${seq}`, content: [{ type: "output_text", text: summary, annotations: [] }] };
      } else {
        const at = { done: steps, compactions, sinceCompaction };
        const step = scenario.step(at);
        inputTokens = scenario.inputTokens(at);
        lastTokens = inputTokens;
        steps += 1;
        sinceCompaction += 1;
        if ("call" in step) {
          reply = { call: step.call };
          item = {
            type: "function_call",
            id: `fc_${seq}`,
            call_id: `call_${seq}`,
            name: "exec_command",
            arguments: JSON.stringify({ cmd: step.call }),
          };
        } else {
          reply = { text: step.text };
          item = {
            type: "message",
            role: "assistant",
            id: `msg_${seq}`,
            content: [{ type: "output_text", text: step.text, annotations: [] }],
          };
        }
      }
      requests.push({ seq, kind, reply, inputTokens });
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      sse(res, "response.created", { response: { id } });
      sse(res, "response.output_item.done", { item });
      sse(res, "response.completed", {
        response: {
          id,
          usage: {
            input_tokens: inputTokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: 20,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: inputTokens + 20,
          },
        },
      });
      res.end();
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

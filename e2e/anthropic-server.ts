/**
 * A scripted Anthropic Messages API server for end-to-end runs of the real Claude Code
 * (`ANTHROPIC_BASE_URL=http://127.0.0.1:<port>`). Plain `node:http` on 127.0.0.1, a random
 * free port. `POST /v1/messages` answers with a streamed message (SSE: `message_start`, one
 * content block, `message_delta`, `message_stop`): Claude Code's summary request (its last
 * user text asks for "plain text only") gets a short `<summary>`; any other request gets the
 * scenario's next step: a Bash `tool_use`, or, after `calls` of them, a final text. Usage is
 * counted as the request's characters / 4, so the context grows as the transcript does.
 * `POST /v1/messages/count_tokens` answers the same count. After `maxRequests` every request
 * gets a 400, which Claude Code does not retry, so a run that nothing stops still ends.
 *
 * {@link startTrapProxy} is the proxy the run's `HTTPS_PROXY`/`HTTP_PROXY` name (with
 * `NO_PROXY` for 127.0.0.1): it refuses and records whatever Claude Code tries to reach beyond
 * the scripted server, so a run can show that nothing left the machine.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** What the scripted model does. */
export interface AnthropicScript {
  /** The Bash command of every tool call (the loop repeats it; the healthy run numbers it). */
  readonly command: (call: number) => string;
  /** Tool calls before the final text. */
  readonly calls: number;
  /** The final text. */
  readonly answer: string;
  /** Requests answered before the cap. Default 80. */
  readonly maxRequests?: number;
}

/** One request as the server saw it. */
export interface SeenRequest {
  readonly kind: "step" | "summary" | "count" | "cap";
  /** The request body's characters / 4. */
  readonly tokens: number;
  /** The request body as sent (JSON text). */
  readonly body: string;
  /** A step answered with a tool call: that call's id (`toolu_<n>`, n counting from 1). */
  readonly toolUseID?: string;
}

/** A running server. */
export interface AnthropicServer {
  readonly baseURL: string;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown };

/** The text of a message's content (string or blocks). */
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((b: { type?: string; text?: string }) => (b.type === "text" ? (b.text ?? "") : "")).join("\n")
      : "";

/** One streamed message: SSE events as the Messages API sends them. */
function stream(id: string, block: Block, stop: string, inputTokens: number): string {
  const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const start = block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} };
  const delta =
    block.type === "text"
      ? { type: "text_delta", text: block.text }
      : { type: "input_json_delta", partial_json: JSON.stringify(block.input) };
  return [
    event("message_start", {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5-20250929",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: 1 },
      },
    }),
    event("content_block_start", { type: "content_block_start", index: 0, content_block: start }),
    event("content_block_delta", { type: "content_block_delta", index: 0, delta }),
    event("content_block_stop", { type: "content_block_stop", index: 0 }),
    event("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } }),
    event("message_stop", { type: "message_stop" }),
  ].join("");
}

/** Starts the server on 127.0.0.1 and a free port. */
export async function startAnthropicServer(script: AnthropicScript): Promise<AnthropicServer> {
  const requests: SeenRequest[] = [];
  let calls = 0;
  const max = script.maxRequests ?? 80;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const tokens = Math.ceil(body.length / 4);
      if (requests.length >= max) {
        requests.push({ kind: "cap", tokens, body });
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: `request cap of ${max} reached` } }));
        return;
      }
      if (req.url?.includes("count_tokens")) {
        requests.push({ kind: "count", tokens, body });
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ input_tokens: tokens }));
        return;
      }
      let parsed: { messages?: Array<{ content: unknown }> } = {};
      try {
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        // An unreadable body is answered as a step.
      }
      const last = textOf(parsed.messages?.at(-1)?.content);
      const id = `msg_${requests.length + 1}`;
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (/Respond with plain text only|create a detailed summary of the conversation/.test(last)) {
        requests.push({ kind: "summary", tokens, body });
        res.end(
          stream(id, { type: "text", text: "<summary>The user asked to check big.txt; it was printed.</summary>" }, "end_turn", tokens),
        );
        return;
      }
      calls += 1;
      if (calls > script.calls) {
        requests.push({ kind: "step", tokens, body });
        res.end(stream(id, { type: "text", text: script.answer }, "end_turn", tokens));
        return;
      }
      const input = { command: script.command(calls), description: "show the file" };
      requests.push({ kind: "step", tokens, body, toolUseID: `toolu_${calls}` });
      res.end(stream(id, { type: "tool_use", id: `toolu_${calls}`, name: "Bash", input }, "tool_use", tokens));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A proxy that lets nothing through: every request and `CONNECT` gets a 403 and is recorded. */
export interface TrapProxy {
  readonly url: string;
  /** What was tried, in order: `CONNECT host:port` or `METHOD url`. */
  readonly seen: string[];
  close(): Promise<void>;
}

/** Starts the trap proxy on 127.0.0.1 and a free port. */
export async function startTrapProxy(): Promise<TrapProxy> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(403);
    res.end();
  });
  server.on("connect", (req, socket) => {
    seen.push(`CONNECT ${req.url}`);
    socket.on("error", () => {});
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

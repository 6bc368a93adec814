/**
 * Drives opencode 1.18.33's V2 session runner (`opencode serve`'s `/api/session/*` API)
 * against a scripted model on 127.0.0.1, in a sandbox (./sandbox.ts).
 *
 * The scripted model answers a chat request with a `bash` tool call and a summary request
 * with a short summary. Two behaviours, chosen by a marker in the conversation (so that
 * sessions of one server can differ; the summary carries the marker on):
 * - `MODE=loop`: `cat big.txt` (5,390 bytes) every step, never a final answer: the runner
 *   then compacts before every step (14 compactions in 16 steps, unguarded);
 * - `MODE=healthy`: `cat part<n>.txt` for n = 1, 2, … (2,500 distinct bytes each), then the
 *   final answer "done" after {@link HEALTHY_CALLS} calls: the context grows, compacts every
 *   few steps and each compaction cuts it.
 * Every chat answer reports `prompt_tokens` = request characters / 4, the size the V2 runner
 * itself estimates. After `cap` requests every request is refused with HTTP 400.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createSandbox, writeOpencodeConfig, type Sandbox } from "./sandbox.js";

/** Calls of the healthy session before its final answer. */
export const HEALTHY_CALLS = 6;

/** One request the scripted model received. */
export interface V2Request {
  readonly kind: "chat" | "compaction" | "title" | "other";
  readonly mode: "loop" | "healthy";
  readonly chars: number;
}

interface ChatBody {
  messages?: { role?: string; content?: unknown }[];
  tools?: unknown[];
}

const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((c) => (c as { text?: string }).text ?? "").join("\n") : "";

/** Starts the scripted model; `requests` grows as it answers. */
export async function startV2Model(cap: number): Promise<{ url: string; requests: V2Request[]; close(): Promise<void> }> {
  const requests: V2Request[] = [];
  let healthyCalls = 0;
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d: Buffer) => (raw += d.toString()));
    req.on("end", () => {
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "fakemodel" }] }));
        return;
      }
      let body: ChatBody = {};
      try {
        body = JSON.parse(raw || "{}") as ChatBody;
      } catch {
        // An unreadable body is answered like any other.
      }
      const messages = body.messages ?? [];
      const all = messages.map((m) => textOf(m.content)).join("\n");
      const tools = Array.isArray(body.tools) && body.tools.length > 0;
      const kind: V2Request["kind"] = tools ? "chat" : /<conversation>/.test(all) ? "compaction" : /title/i.test(all) ? "title" : "other";
      const mode = /MODE=healthy/.test(all) ? "healthy" : "loop";
      const chars = JSON.stringify({ m: body.messages, t: body.tools }).length;
      requests.push({ kind, mode, chars });
      if (requests.length > cap) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "scripted server request cap reached", type: "invalid_request_error" } }));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const id = `chatcmpl-${requests.length}`;
      const send = (o: unknown) => res.write(`data: ${JSON.stringify(o)}\n\n`);
      const chunk = (delta: unknown, finish: string | null = null) =>
        send({
          id,
          object: "chat.completion.chunk",
          created: 0,
          model: "fakemodel",
          choices: [{ index: 0, delta, finish_reason: finish }],
        });
      const end = (prompt: number, completion: number) => {
        send({
          id,
          object: "chat.completion.chunk",
          created: 0,
          model: "fakemodel",
          choices: [],
          usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
        });
        res.end("data: [DONE]\n\n");
      };
      const text = (t: string, prompt: number) => {
        chunk({ role: "assistant", content: t });
        chunk({}, "stop");
        end(prompt, 5);
      };
      const estimate = Math.round(chars / 4);
      if (kind === "compaction") {
        return text(
          `## Objective\n- run the commands (MODE=${mode})\n\n## Work State\n- summary of request ${requests.length}\n`,
          estimate,
        );
      }
      if (kind !== "chat") return text("Fake title", 50);
      // One healthy session per model server: its calls are counted here.
      if (mode === "healthy" && healthyCalls >= HEALTHY_CALLS) return text("done", estimate);
      if (mode === "healthy") healthyCalls += 1;
      const command = mode === "healthy" ? `cat part${healthyCalls}.txt` : "cat big.txt";
      const args = JSON.stringify({ command });
      chunk({
        role: "assistant",
        content: null,
        tool_calls: [{ index: 0, id: `call_${requests.length}`, type: "function", function: { name: "bash", arguments: "" } }],
      });
      chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] });
      chunk({}, "tool_calls");
      end(estimate, 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A running `opencode serve` in a sandbox, and the V2 calls a test makes. */
export interface V2Serve {
  readonly sandbox: Sandbox;
  /** Everything opencode wrote to standard error so far (its `--print-logs` lines). */
  stderr(): string;
  /** Creates a V2 session, sends `text` as its prompt and resolves once it is idle (or `waitMs` passed). */
  run(text: string, waitMs: number): Promise<{ sessionID: string; ms: number }>;
  /** `GET /api/session/{id}/<path>` as JSON. */
  get(sessionID: string, path: "message" | "history", query?: string): Promise<unknown>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `opencode serve --print-logs` in a fresh sandbox with `plugin` in its `opencode.json`,
 * the scripted model's provider, `compaction: { reserved: 1000, preserve_recent_tokens: 1000 }`
 * and the files the scripted model reads, and boots the project's V1 instance (which loads the
 * plugins) by opening the V1 event stream.
 */
export async function startV2Serve(options: {
  modelURL: string;
  plugin: Array<string | [string, Record<string, unknown>]>;
  env?: Record<string, string>;
}): Promise<V2Serve> {
  const sandbox = await createSandbox();
  await writeOpencodeConfig(sandbox, {
    baseURL: options.modelURL,
    plugin: options.plugin,
    compaction: { reserved: 1000, preserve_recent_tokens: 1000 },
  });
  await writeFile(join(sandbox.project, "big.txt"), ("x".repeat(80) + "\n").repeat(66).slice(0, 5390));
  for (let n = 1; n <= HEALTHY_CALLS; n++) {
    const lines = Array.from(
      { length: 40 },
      (_, i) => `part ${n} line ${i} ${((n * 7919 + i * 104729) % 1000003).toString(36).padEnd(60, "-")}`,
    );
    await writeFile(join(sandbox.project, `part${n}.txt`), lines.join("\n").slice(0, 2500));
  }
  await new Promise<void>((resolve, reject) =>
    spawn("git", ["init", "-q"], { cwd: sandbox.project, stdio: "ignore" }).once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error("git init failed")),
    ),
  );
  const port = 20000 + Math.floor(Math.random() * 20000);
  let stderr = "";
  const child: ChildProcess = spawn(sandbox.opencodeBin, ["serve", "--port", String(port), "--print-logs", "--log-level", "INFO"], {
    cwd: sandbox.project,
    env: { ...sandbox.env, ...options.env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const base = `http://127.0.0.1:${port}`;
  const q = `directory=${encodeURIComponent(sandbox.project)}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(1000) })).ok) break;
    } catch {
      // Not up yet.
    }
    if (i > 150 || child.exitCode !== null) throw new Error(`opencode serve did not start: ${stderr.slice(-500)}`);
    await sleep(200);
  }
  // The V1 event stream boots the directory's V1 instance, which is what loads the plugins.
  const v1Events = new AbortController();
  void fetch(`${base}/event?${q}`, { signal: v1Events.signal })
    .then((r) => r.body?.pipeTo(new WritableStream()))
    .catch(() => undefined);
  for (let i = 0; i < 100 && !stderr.includes("compaction-guard"); i++) await sleep(100);

  const json = async (path: string, init?: RequestInit): Promise<unknown> => {
    const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(60_000) });
    return response.status === 204 ? undefined : response.json();
  };
  const run = async (text: string, waitMs: number) => {
    const started = Date.now();
    const created = (await json(`/api/session?${q}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent: "build", model: { providerID: "fake", id: "fakemodel" }, location: { directory: sandbox.project } }),
    })) as { data: { id: string } };
    const sessionID = created.data.id;
    // The session's own event stream, open while it runs (as a client would hold it).
    const events = new AbortController();
    void fetch(`${base}/api/session/${sessionID}/event?${q}`, { signal: events.signal })
      .then((r) => r.body?.pipeTo(new WritableStream()))
      .catch(() => undefined);
    await sleep(500);
    await json(`/api/session/${sessionID}/prompt?${q}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: { text } }),
    });
    // Idle: not listed as active, and no message added or changed, on four polls in a row
    // (a second apart: on a loaded machine one model request can take several seconds).
    let last = "";
    for (let quiet = 0; quiet < 4 && Date.now() - started < waitMs; ) {
      await sleep(1000);
      const active = JSON.stringify(await json(`/api/session/active?${q}`));
      const messages = JSON.stringify(await json(`/api/session/${sessionID}/message?${q}&limit=3`));
      quiet = active.includes(sessionID) || messages !== last ? 0 : quiet + 1;
      last = messages;
    }
    events.abort();
    return { sessionID, ms: Date.now() - started };
  };
  return {
    sandbox,
    stderr: () => stderr,
    run,
    get: (sessionID, path, query = "") => json(`/api/session/${sessionID}/${path}?${q}${query ? `&${query}` : ""}`),
    stop: async () => {
      v1Events.abort();
      child.kill("SIGTERM");
      await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.once("exit", resolve)));
      await sandbox.dispose();
    },
  };
}

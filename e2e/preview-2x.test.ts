/**
 * The OpenCode 2.x entry (dist/v2.js, and the same module as the folder dist/v2/) in a real 2.x-API host: the npm "OpenCode 2.0 preview"
 * CLI (`@opencode-ai/cli-<platform>` 1.18.18, binary `lildax`, installed into
 * .cache/opencode/cli-1.18.18/ by e2e/install-opencode.sh when missing). It has no `run`:
 * `lildax serve` runs in a sandbox with the entry listed in `opencode.json`, and one session is
 * prompted through its `/api/session` API against the scripted model. That host hands plugins
 * no `session` and no `event`: the guard must load, say so in one warn line per feature left
 * off, and leave the session to run as without it. The module's `tui` part must not stop it
 * loading; the preview has no TUI (no `tui` subcommand), so the part itself is not run here.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelServer, type ModelServer } from "./model-server.js";
import { createSandbox, installedOpencode, OPENCODE_PREVIEW, PROJECT_ROOT, writeOpencodeConfig, type Sandbox } from "./sandbox.js";
import { PRIOR_ANSWER } from "./scenarios.js";

const V2_ENTRY = join(PROJECT_ROOT, "dist", "v2.js");
/** The same module as a folder's entry (`dist/v2/index.js`), listed as the folder. */
const V2_FOLDER = join(PROJECT_ROOT, "dist", "v2");
/** The prompt, answered by the scripted model with {@link PRIOR_ANSWER} in plain text. */
const PROMPT = "say hello";
/** `lildax serve` wants HTTP basic auth (user `opencode`) on every request, with the password `lildax service password` stores. */
const PASSWORD = "preview-2x-test";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const guardLines = (text: string) => text.split("\n").filter((line) => line.includes("compaction-guard"));

let sandbox: Sandbox;
let model: ModelServer;
let serve: ChildProcess;
let stdout = "";
let stderr = "";
let exited: { code: number | null; signal: string | null } | undefined;
let sessionID: string;
let messages: Array<{
  type?: string;
  text?: string;
  finish?: string;
  time?: { completed?: number };
  content?: Array<{ type?: string; text?: string }>;
}> = [];

/** Starts `lildax serve` with `entry` listed as the plugin, and prompts one session. */
async function boot(entry: string): Promise<void> {
  stdout = "";
  stderr = "";
  exited = undefined;
  messages = [];
  let bin: string;
  try {
    bin = installedOpencode(OPENCODE_PREVIEW);
  } catch (error) {
    throw new Error(
      `could not install the OpenCode 2.0 preview (@opencode-ai/cli-<platform>@${OPENCODE_PREVIEW.slice(4)}, published for ` +
        `linux-x64 only) with e2e/install-opencode.sh ${OPENCODE_PREVIEW}; this test needs it: ${(error as Error).message}`,
    );
  }
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build`);
  sandbox = await createSandbox({ opencodeBin: bin });
  model = await startModelServer({ scenario: "healthy", readPath: sandbox.readPath, warmupPrompt: PROMPT });
  // The 1.x form `plugin: [[entry, options]]`; the preview migrates it to `plugins: [{ package, options }]`.
  await writeOpencodeConfig(sandbox, { baseURL: model.baseURL, plugin: [[pathToFileURL(entry).href, { threshold: 4 }]] });
  await promisify(execFile)(bin, ["service", "password", PASSWORD], { env: sandbox.env, cwd: sandbox.project, timeout: 20_000 });

  serve = spawn(bin, ["serve"], { cwd: sandbox.project, env: sandbox.env, stdio: ["ignore", "pipe", "pipe"] });
  serve.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  serve.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  serve.once("exit", (code, signal) => (exited = { code, signal }));
  // With no --port it takes the first free port from 4096 and says which.
  let base: string | undefined;
  for (let i = 0; i < 150 && !base && !exited; i++) {
    base = /server listening on (http:\/\/\S+)/.exec(stdout)?.[1];
    if (!base) await sleep(100);
  }
  if (!base) throw new Error(`lildax serve did not start (${JSON.stringify(exited)}): ${stdout.slice(-500)}${stderr.slice(-500)}`);

  const auth = { authorization: `Basic ${Buffer.from(`opencode:${PASSWORD}`).toString("base64")}` };
  const call = async (path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${base}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(40_000),
    });
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${await response.text()}`);
    return response.status === 204 ? undefined : response.json();
  };
  // The first request at the project's location boots it (its config, catalog and plugins); the
  // catalog is empty until that is done, and a prompt sent before it lists the model fails with
  // "Model unavailable".
  const location = `location%5Bdirectory%5D=${encodeURIComponent(sandbox.project)}`;
  let models: string[] = [];
  for (let started = Date.now(); !models.includes("fake/fakemodel"); await sleep(250)) {
    if (Date.now() - started > 30_000) throw new Error(`the preview's catalog never listed fake/fakemodel: ${models.join(", ")}`);
    const listed = (await call(`/api/model?${location}`)) as { data: Array<{ providerID: string; id: string }> };
    models = listed.data.map((m) => `${m.providerID}/${m.id}`);
  }
  const created = (await call("/api/session", {
    agent: "build",
    model: { providerID: "fake", id: "fakemodel" },
    location: { directory: sandbox.project },
  })) as { data: { id: string } };
  sessionID = created.data.id;
  await call(`/api/session/${sessionID}/prompt`, { prompt: { text: PROMPT } });
  // This build answers `/wait` with 503 "Session wait is not available yet": poll until the
  // session is no longer active and its newest message is a completed answer.
  for (let started = Date.now(); Date.now() - started < 45_000; await sleep(250)) {
    messages = ((await call(`/api/session/${sessionID}/message`)) as { data: typeof messages }).data;
    const active = JSON.stringify(await call("/api/session/active"));
    if (!active.includes(sessionID) && messages[0]?.type === "assistant" && messages[0].time?.completed) break;
  }
  // The location loads its plugins in the background: their lines may come a little later.
  for (let i = 0; i < 100 && guardLines(stderr).length < 3; i++) await sleep(100);
}

/** Stops the server and removes the sandbox. */
async function shutdown(): Promise<void> {
  if (serve && !exited) {
    serve.kill("SIGTERM");
    await new Promise((resolve) => (exited ? resolve(undefined) : serve.once("exit", resolve)));
  }
  await model?.close();
  await sandbox?.dispose();
}

describe.each([
  ["dist/v2.js", V2_ENTRY],
  ["the folder dist/v2/ (its index.js)", V2_FOLDER],
])("%s in the OpenCode 2.0 preview (lildax 1.18.18), whose plugin context has no session nor event", (_name, entry) => {
  beforeAll(() => boot(entry), 150_000);
  afterAll(shutdown);

  it("loads with its options and says, one warn line per feature, what it cannot do there", () => {
    expect(guardLines(stderr)).toEqual([
      expect.stringMatching(
        /^INFO compaction-guard \d+\.\d+\.\d+\S* loaded \(OpenCode 2\.x entry\): threshold 4 \(option\), window 8 \(default\), /,
      ),
      "WARN compaction-guard: this host's plugin context has no event.subscribe nor session: loops in its sessions are not stopped; opencode behaves as without the guard there",
      "WARN compaction-guard: this host's plugin context has no event.subscribe nor session: no ledger for the summary and no note after a compaction (prevention off)",
    ]);
  });

  it("the module it loaded is { id, setup, tui }: the preview takes it with its TUI part (which it has no TUI to run)", async () => {
    const loaded = (await import(pathToFileURL(entry === V2_FOLDER ? join(V2_FOLDER, "index.js") : entry).href)) as {
      default: Record<string, unknown>;
    };
    expect(Object.keys(loaded.default).sort()).toEqual(["id", "setup", "tui"]);
    expect(typeof loaded.default.tui).toBe("function");
  });

  it("does not crash the host: the server is still up and logged no error", () => {
    expect(exited).toBeUndefined();
    expect(`${stdout}\n${stderr}`.split("\n").filter((line) => /\bERROR\b|uncaught|unhandled/i.test(line))).toEqual([]);
  });

  it("leaves the prompt to complete as without the guard", () => {
    // Newest first: the answer, then the prompt.
    expect(messages.map((m) => m.type)).toEqual(["assistant", "user"]);
    expect(messages[1]!.text).toBe(PROMPT);
    expect(messages[0]!.finish).toBe("stop");
    expect(messages[0]!.content).toEqual([expect.objectContaining({ type: "text", text: PRIOR_ANSWER })]);
    expect(model.requests.map((r) => [r.kind, r.reply])).toEqual([["chat", "text"]]);
  });
});

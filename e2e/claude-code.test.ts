/**
 * The guard inside the real Claude Code 2.1.328 (`claude -p`, headless), installed with
 * `opencode-compaction-guard install claude-code` into a temporary home, against the scripted
 * Messages API server of anthropic-server.ts on 127.0.0.1. Every other request Claude Code
 * might make goes to a proxy that refuses and records it: each run checks that it saw none.
 * `CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000` makes Claude Code compact at about 63,000 tokens,
 * nine 20 KB tool results after its ~22,000-token system prompt and tools. The binary comes
 * from e2e/install-claude-code.sh (cached in .cache/claude-code/<version>/).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../src/config/settings.js";
import { NOTE_HEADER } from "../src/guard/ledger.js";
import { replaySession } from "../src/guard/replay.js";
import { readExport } from "../src/sources/export.js";
import { sessionInputs } from "../src/sources/sources.js";
import { startAnthropicServer, startTrapProxy, type AnthropicScript, type SeenRequest } from "./anthropic-server.js";

const ROOT = new URL("..", import.meta.url).pathname;
const VERSION = "2.1.328";
let claude = "";

beforeAll(() => {
  const line = execFileSync(join(ROOT, "e2e/install-claude-code.sh"), [VERSION], { encoding: "utf8" }).trim();
  claude = line.split(" ").slice(1).join(" ");
});

/** 20 KB of lines that differ by `seed`. */
function filler(seed: number): string {
  let x = seed * 7919 + 1;
  const lines: string[] = [];
  for (let i = 0; i < 250; i++) {
    let line = "";
    for (let j = 0; j < 79; j++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      line += "abcdefghijklmnopqrstuvwxyz "[x % 27];
    }
    lines.push(line);
  }
  return lines.join("\n");
}

/** The output forms of `claude -p`: its default text, one JSON result, or a stream of JSON events. */
type Format = "text" | "json" | "stream-json";

interface Run {
  readonly stdout: string;
  readonly stderr: string;
  readonly status: number | null;
  readonly requests: readonly SeenRequest[];
  /** The session's transcript as Claude Code wrote it. */
  readonly transcriptPath: string;
  readonly transcript: string;
  readonly compactions: number;
  /** What the trap proxy was asked to reach (nothing, when no request left the machine). */
  readonly escaped: readonly string[];
  readonly ms: number;
}

/** Runs `claude -p` in a fresh home and project, with the guard installed or not. */
async function run(script: AnthropicScript, guarded: boolean, format: Format): Promise<Run> {
  const home = mkdtempSync(join(tmpdir(), "cc-home-"));
  const project = join(home, "proj");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(project);
  writeFileSync(join(home, ".claude", "settings.json"), `${JSON.stringify({ model: "claude-sonnet-4-5-20250929" })}\n`);
  writeFileSync(join(project, "big.txt"), filler(0));
  for (let i = 1; i <= 16; i++) writeFileSync(join(project, `part${i}.txt`), filler(i));
  if (guarded) {
    const installed = execFileSync(process.execPath, [join(ROOT, "dist/cli/bin.js"), "install", "claude-code"], {
      env: { ...process.env, HOME: home },
      encoding: "utf8",
    });
    expect(installed).toContain("added hooks.PreToolUse");
  }
  const server = await startAnthropicServer(script);
  const proxy = await startTrapProxy();
  const started = Date.now();
  try {
    const args = [
      "-p",
      "check big.txt",
      "--allowedTools",
      "Bash",
      ...(format === "text" ? [] : ["--output-format", format]),
      ...(format === "stream-json" ? ["--verbose"] : []),
    ];
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      ANTHROPIC_BASE_URL: server.baseURL,
      ANTHROPIC_API_KEY: "sk-ant-dummy-e2e",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_AUTO_COMPACT_WINDOW: "100000",
      HTTPS_PROXY: proxy.url,
      HTTP_PROXY: proxy.url,
      NO_PROXY: "127.0.0.1",
    };
    // spawnSync would block the server's event loop: run it asynchronously.
    const child = spawn(claude, args, { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    clearTimeout(timer);
    const folder = join(home, ".claude", "projects");
    const transcripts = readdirSync(folder).flatMap((d) =>
      readdirSync(join(folder, d))
        .filter((f) => f.endsWith(".jsonl"))
        .map((f) => join(folder, d, f)),
    );
    expect(transcripts).toHaveLength(1);
    const transcript = readFileSync(transcripts[0]!, "utf8");
    const compactions = transcript.match(/"subtype":"compact_boundary"/g)?.length ?? 0;
    const ms = Date.now() - started;
    return {
      stdout,
      stderr,
      status,
      requests: [...server.requests],
      transcriptPath: transcripts[0]!,
      transcript,
      compactions,
      escaped: proxy.seen,
      ms,
    };
  } finally {
    await Promise.all([server.close(), proxy.close()]);
  }
}

/** The tool results in a transcript (`user` lines' `tool_result` blocks), in order. */
function toolResults(transcript: string): Array<{ tool_use_id?: string; content?: unknown }> {
  return transcript
    .split("\n")
    .filter((line) => line.includes('"tool_result"'))
    .flatMap((line) => {
      const content = (JSON.parse(line) as { message?: { content?: unknown } }).message?.content;
      type Block = { type?: string; tool_use_id?: string; content?: unknown };
      return Array.isArray(content) ? (content as Block[]).filter((b) => b.type === "tool_result") : [];
    });
}

const STOP = /Compaction loop stopped by compaction-guard after compaction (\d+): (repeated-tool-call|no-new-work): /;

describe(`Claude Code ${VERSION} with the guard's hooks`, () => {
  it("stops a session that runs the same call after every compaction by its third compaction; the reason shows in stream-json only", async () => {
    const loop = { command: () => "cat big.txt", calls: 60, answer: "DONE" };
    const [stream, json, text] = await Promise.all([run(loop, true, "stream-json"), run(loop, true, "json"), run(loop, true, "text")]);
    for (const [format, result] of [
      ["stream-json", stream],
      ["json", json],
      ["text", text],
    ] as const) {
      console.log(`loop (${format}): ${result.compactions} compactions, ${result.requests.length} requests, ${result.ms} ms`);
      expect(result.status).toBe(0);
      expect(result.escaped).toEqual([]);
      expect([2, 3]).toContain(result.compactions);
      // The refused call was the model's last reply: no request followed the stop.
      const last = result.requests.at(-1)!;
      expect(last.kind).toBe("step");
      const refused = toolResults(result.transcript).find((r) => r.tool_use_id === last.toolUseID);
      expect(refused?.content).toMatch(new RegExp(`^PreToolUse:Bash hook error: ${STOP.source}`));
      // The stop's reason in the transcript: as the refused call's result (for the model) and as the turn's stop.
      const stopped = result.transcript.split("\n").find((line) => line.includes('"hook_stopped_continuation"'));
      expect(JSON.parse(stopped!).attachment.message).toMatch(new RegExp(`^${STOP.source}`));
      expect(Number(STOP.exec(stopped!)![1])).toBe(result.compactions);
      // The SessionStart hook's note reached the model after the first compaction.
      const firstSummary = result.requests.findIndex((r) => r.kind === "summary");
      expect(result.requests.slice(0, firstSummary).some((r) => r.body.includes(NOTE_HEADER))).toBe(false);
      expect(result.requests.find((r, i) => i > firstSummary && r.kind === "step")!.body).toContain(NOTE_HEADER);
      // Replay of the transcript Claude Code wrote denies the compaction the live guard stopped at.
      const session = await readExport(result.transcriptPath);
      const rows = replaySession(session, sessionInputs(session, { settings: DEFAULT_SETTINGS }), { toolLoop: false }).rows;
      expect(rows).toHaveLength(result.compactions);
      expect(rows.at(-1)!.decision).toBe("deny");
      expect(rows.slice(0, -1).map((r) => r.decision)).not.toContain("deny");
    }

    // stream-json: a system/informational event carries the hook's systemMessage, the reason in words.
    const events = stream.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const said = events.filter((e) => e.type === "system" && e.subtype === "informational");
    expect(said).toHaveLength(1);
    expect(said[0]!.content).toMatch(new RegExp(`^PreToolUse:Bash says: ${STOP.source}.*Next: `));
    const final = events.find((e) => e.type === "result")!;
    expect(final).toMatchObject({ terminal_reason: "hook_stopped", result: "", is_error: false });

    // json: only that a hook stopped the turn and which call was refused; not why.
    const result = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ terminal_reason: "hook_stopped", result: "", is_error: false });
    expect(result.permission_denials).toEqual([
      expect.objectContaining({ tool_name: "Bash", tool_input: expect.objectContaining({ command: "cat big.txt" }) }),
    ]);
    expect(json.stdout).not.toContain("compaction-guard");

    // text: nothing at all, on either stream; the exit code is 0.
    expect(text.stdout.trim()).toBe("");
    expect(text.stderr).not.toContain("compaction-guard");
  });

  it("leaves a healthy session that compacts as it was: the same answer and requests with and without the hooks", async () => {
    const healthy = { command: (n: number) => `cat part${n}.txt`, calls: 14, answer: "All sixteen parts checked." };
    const [bare, guarded] = await Promise.all([run(healthy, false, "json"), run(healthy, true, "json")]);
    console.log(
      `healthy: ${guarded.compactions} compactions, ${guarded.requests.length} requests, ${bare.ms} ms bare, ${guarded.ms} ms guarded`,
    );
    for (const result of [bare, guarded]) {
      expect(result.status).toBe(0);
      expect(result.escaped).toEqual([]);
    }
    expect(guarded.compactions).toBeGreaterThanOrEqual(1);
    const bareResult = JSON.parse(bare.stdout) as Record<string, unknown>;
    const guardedResult = JSON.parse(guarded.stdout) as Record<string, unknown>;
    expect(guardedResult.result).toBe("All sixteen parts checked.");
    expect(guardedResult.result).toBe(bareResult.result);
    expect(guardedResult.terminal_reason).toBe("completed");
    expect(guardedResult.permission_denials).toEqual([]);
    expect(guarded.requests.map((r) => r.kind)).toEqual(bare.requests.map((r) => r.kind));
    expect(guarded.compactions).toBe(bare.compactions);
    // The hooks ran: the guarded session's requests after its compaction carry the note, the bare one's do not.
    expect(guarded.requests.some((r) => r.body.includes(NOTE_HEADER))).toBe(true);
    expect(bare.requests.some((r) => r.body.includes(NOTE_HEADER))).toBe(false);
  });
});

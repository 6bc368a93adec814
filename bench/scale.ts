/**
 * Scale bench: how the replay and the hook cope with long sessions.
 *
 * 1. Replay of synthetic exports of 1k, 10k and 50k messages (support/synthetic.ts: tool
 *    outputs of 200 B to 4 KB, a compaction cycle every 20 messages), plus 50k messages of
 *    a tight loop (a compaction every 4 messages), written to a temp dir. Each figure comes
 *    from fresh processes (median of 3), so memory and GC are those of one run:
 *    bare `readFile` + `JSON.parse` of the file, against the replay command's path,
 *    `readExport` (read + parse + validate + timeline) then `replayTimeline` (every decision).
 *    Goal: replay ≤ 2× the bare parse.
 * 2. The hook's cost per call against session length (a fake client that honours
 *    `query.limit` as opencode does, and one that ignores it), N = 100, 1k, 10k messages.
 * 3. The tool-loop check (judge/tool-loop.ts `checkToolCall`, run on every tool call) against
 *    session length: healthy work (synthetic, every call different) and a loop (the same echo
 *    every step), 100, 1k and 10k steps. Goal: well under 1 ms at 1,000 steps.
 *
 * `tsx bench/scale.ts` prints the tables; bench/index.ts calls {@link scaleBench}.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { formatInt, formatMs, formatTable, median } from "../e2e/table.js";
import { readExport } from "../src/sources/export.js";
import { createGuard } from "../src/plugin/opencode-v1/guard.js";
import { DEFAULT_SETTINGS } from "../src/config/settings.js";
import { replayTimeline } from "../src/core.js";
import { checkToolCall, toolLoopHistoryLimit } from "../src/judge/tool-loop.js";
import { timelineWithCall, type FinishedCall } from "../src/hosts/opencode/tool-call.js";
import { SessionBuilder } from "../test/support/session.js";
import { syntheticMessages, writeSyntheticExport, type SyntheticOptions } from "../test/support/synthetic.js";

const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const REPEATS = 3;

/** What one measuring process reports. Times in ms, memory in bytes. */
interface Measure {
  readMs: number;
  replayMs: number;
  decisions: number;
  maxRssBytes: number;
}

/** Runs in a fresh process: `parse` (bare) or `replay` (the replay command's path) of one file. */
async function measure(mode: "parse" | "replay", path: string): Promise<Measure> {
  const started = performance.now();
  if (mode === "parse") {
    JSON.parse(readFileSync(path, "utf8"));
    return { readMs: performance.now() - started, replayMs: 0, decisions: 0, maxRssBytes: process.resourceUsage().maxRSS * 1024 };
  }
  const session = await readExport(path);
  const read = performance.now();
  const rows = replayTimeline(session.timeline, DEFAULT_SETTINGS);
  return {
    readMs: read - started,
    replayMs: performance.now() - read,
    decisions: rows.length,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

const run = promisify(execFile);

async function inFreshProcess(mode: "parse" | "replay", path: string): Promise<Measure> {
  const { stdout } = await run(process.execPath, ["--import", "tsx", SELF, "--measure", mode, path], {
    cwd: PROJECT_ROOT,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as Measure;
}

interface Case {
  label: string;
  messages: number;
  options?: SyntheticOptions;
}

const CASES: Case[] = [
  { label: "1,000", messages: 1_000 },
  { label: "10,000", messages: 10_000 },
  { label: "50,000", messages: 50_000 },
  { label: "50,000 loop", messages: 50_000, options: { cycleLength: 4, outputBytes: [200, 600] } },
];

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

async function replayTable(dir: string): Promise<string> {
  const rows: string[][] = [];
  for (const c of CASES) {
    const path = join(dir, `synthetic-${c.messages}-${c.options?.cycleLength ?? 20}.json`);
    const bytes = writeSyntheticExport(path, c.messages, c.options);
    const parse: Measure[] = [];
    const replay: Measure[] = [];
    for (let i = 0; i < REPEATS; i++) {
      parse.push(await inFreshProcess("parse", path));
      replay.push(await inFreshProcess("replay", path));
    }
    const bare = median(parse.map((m) => m.readMs))!;
    const read = median(replay.map((m) => m.readMs))!;
    const decide = median(replay.map((m) => m.replayMs))!;
    const total = median(replay.map((m) => m.readMs + m.replayMs))!;
    const decisions = replay[0]!.decisions;
    rows.push([
      c.label,
      formatInt(decisions),
      mb(bytes),
      formatMs(bare),
      formatMs(read),
      formatMs(decide),
      formatMs(total),
      formatMs(decisions > 0 ? decide / decisions : null),
      `${(total / bare).toFixed(2)}x`,
      mb(median(parse.map((m) => m.maxRssBytes))!),
      mb(median(replay.map((m) => m.maxRssBytes))!),
    ]);
  }
  return formatTable(
    [
      "messages",
      "decisions",
      "file",
      "parse (bare)",
      "readExport",
      "decide all",
      "replay total",
      "per decision",
      "replay / parse",
      "peak RSS parse",
      "peak RSS replay",
    ],
    rows,
  );
}

/** A minimal client: `session.messages` answers `messages`, honouring `query.limit` or not. */
function client(messages: unknown[], honourLimit: boolean) {
  return {
    session: {
      messages: async (options: { query?: { limit?: number } }) => ({
        data: honourLimit && options.query?.limit !== undefined ? messages.slice(-options.query.limit) : messages,
      }),
    },
    app: { log: async () => ({ data: true }) },
    tui: { showToast: async () => ({ data: true }) },
    config: { get: async () => ({ data: {} }) },
  };
}

/** Median and 95th percentile of the hook's time per call, ms. */
async function hookCost(messages: unknown[], honourLimit: boolean, calls: number) {
  const hook = createGuard({ client: client(messages, honourLimit) as never }, undefined, { env: {} })[
    "experimental.compaction.autocontinue"
  ]!;
  const compaction = [...messages]
    .reverse()
    .find((m) => (m as { parts: Array<{ type: string }> }).parts.some((p) => p.type === "compaction"));
  const input = {
    sessionID: "ses_synthetic",
    model: { limit: { context: 200_000, output: 32_000 } },
    message: (compaction as { info: unknown }).info,
  } as never;
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const output = { enabled: true };
    const started = performance.now();
    await hook(input, output);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: median(times)!, p95: times[Math.floor(times.length * 0.95)]! };
}

async function hookTable(): Promise<string> {
  const rows: string[][] = [];
  for (const n of [100, 1_000, 10_000]) {
    const messages = [...syntheticMessages(n)];
    const limited = await hookCost(messages, true, 300);
    const unlimited = await hookCost(messages, false, n >= 10_000 ? 30 : 300);
    rows.push([
      formatInt(n),
      formatInt(Math.min(n, 200)),
      formatMs(limited.median),
      formatMs(limited.p95),
      formatMs(unlimited.median),
      formatMs(unlimited.p95),
    ]);
  }
  return formatTable(["session messages", "messages read", "hook median", "hook p95", "limit ignored: median", "limit ignored: p95"], rows);
}

/** The last tool part of `messages`, as `tool.execute.after` would report it. */
function lastCall(messages: readonly unknown[]): FinishedCall {
  for (let i = messages.length - 1; i >= 0; i--) {
    const parts = (messages[i] as { parts: Array<Record<string, unknown>> }).parts;
    const part = [...parts].reverse().find((p) => p.type === "tool");
    if (part) {
      const state = part.state as { status: string; input: unknown; output?: unknown; error?: unknown };
      return {
        callID: String(part.callID),
        tool: String(part.tool),
        input: state.input,
        output: state.status === "error" ? state.error : state.output,
        status: state.status === "error" ? "error" : "completed",
      };
    }
  }
  throw new Error("no tool call");
}

/** Median and 95th percentile of `checkToolCall` on `messages` and its last call, ms. */
function checkCost(messages: readonly unknown[], calls: number) {
  const call = lastCall(messages);
  const times: number[] = [];
  let runs = 0;
  // Warm up first: the hook runs on every tool call of a long-lived process.
  for (let i = 0; i < 50; i++) checkToolCall(timelineWithCall(messages, call, toolLoopHistoryLimit(DEFAULT_SETTINGS)), DEFAULT_SETTINGS);
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    runs = checkToolCall(timelineWithCall(messages, call, toolLoopHistoryLimit(DEFAULT_SETTINGS)), DEFAULT_SETTINGS).runs;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: median(times)!, p95: times[Math.floor(times.length * 0.95)]!, runs };
}

export async function toolLoopTable(): Promise<string> {
  const rows: string[][] = [];
  for (const steps of [100, 1_000, 10_000]) {
    const healthy = [...syntheticMessages(steps * 2)];
    const loop = new SessionBuilder().user("run echo hi");
    for (let i = 0; i < steps; i++)
      loop.step({ tool: "bash", input: { command: "echo hi", description: "echo hi" }, output: "hi\n" }, 1000);
    const a = checkCost(healthy, 1_000);
    const b = checkCost(loop.messages, 1_000);
    rows.push([
      formatInt(steps),
      formatInt(Math.min(steps * 2, toolLoopHistoryLimit(DEFAULT_SETTINGS))),
      formatMs(a.median),
      formatMs(a.p95),
      formatMs(b.median),
      formatMs(b.p95),
      formatInt(b.runs),
    ]);
  }
  return formatTable(["steps", "messages read", "healthy median", "healthy p95", "loop median", "loop p95", "loop runs counted"], rows);
}

/**
 * Runs every part of the scale bench.
 * @returns the printed tables, with a heading each.
 */
export async function scaleBench(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "ocg-scale-bench-"));
  try {
    const replay = await replayTable(dir);
    const hook = await hookTable();
    const toolLoop = await toolLoopTable();
    return [
      `replay of synthetic exports (Node ${process.version}; median of ${REPEATS} fresh processes; replay = readExport + replayTimeline):`,
      replay,
      "",
      "hook cost per call vs session length (fake client; opencode honours query.limit = 200):",
      hook,
      "",
      "tool-loop check per tool call vs session length (checkToolCall on the newest messages; default settings):",
      toolLoop,
    ].join("\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--measure") {
  process.stdout.write(JSON.stringify(await measure(process.argv[3] as "parse" | "replay", process.argv[4]!)));
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await scaleBench());
}

/**
 * `/guard stats` bench: how long the command takes over a store the size of fixtures/.
 *
 * 1. In one process: `projectStats` (src/plugin/opencode-v1/stats.ts) over every opencode
 *    export under fixtures/ held in memory, each session's messages parsed from its file's
 *    text when asked for (as the SDK decodes opencode's answer): the deciding alone.
 * 2. In the real opencode 1.18.33: the same exports imported into one sandbox's storage, each
 *    as a session of the sandbox's project (`opencode import`; an export it reports an error
 *    for, e.g. a hand-written one missing a field it requires, is counted: it may still leave
 *    a session behind, which the command then reads like the others), then
 *    `opencode run --session <id> --command guard stats` three times; the figure is the one
 *    the answer itself states (`… read in N ms`: listing, reading every session through the
 *    SDK, deciding), and the run's wall time besides (opencode's start-up included).
 *
 * `tsx bench/guard-stats.ts` prints both; run `npm run build` first (the plugin is dist/index.js).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { lastNote } from "../e2e/guard-command-flow.js";
import { exportSession, runOpencode } from "../e2e/harness.js";
import { PLUGIN_ENTRY } from "../e2e/replay.js";
import { createSandbox, writeOpencodeConfig } from "../e2e/sandbox.js";
import { scenarioSetup } from "../e2e/scenarios.js";
import { formatInt, formatMs, formatTable, median } from "../e2e/table.js";
import { DEFAULT_SETTINGS } from "../src/config/settings.js";
import { projectStats, type StatsStore } from "../src/plugin/opencode-v1/stats.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));

/** Every `*.json` under `dir` that is an opencode export (`{ info: { id }, messages: [] }`). */
function opencodeExports(dir: string): Array<{ file: string; text: string }> {
  const found: Array<{ file: string; text: string }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...opencodeExports(path));
    else if (entry.name.endsWith(".json")) {
      const text = readFileSync(path, "utf8");
      try {
        const json = JSON.parse(text) as { info?: { id?: unknown }; messages?: unknown };
        if (typeof json.info?.id === "string" && Array.isArray(json.messages)) found.push({ file: path, text });
      } catch {
        // Not JSON: not an export.
      }
    }
  }
  return found;
}

/** The deciding alone, in this process: median of `runs` over the exports held as text. */
async function inProcess(files: Array<{ text: string }>, runs = 5): Promise<{ sessions: number; ms: number | null }> {
  const byID = new Map(files.map((f) => [(JSON.parse(f.text) as { info: { id: string } }).info.id, f.text]));
  const store: StatsStore = {
    list: async () => [...byID.keys()].map((id) => (JSON.parse(byID.get(id)!) as { info: unknown }).info),
    messages: async (id) => (JSON.parse(byID.get(id)!) as { messages: unknown[] }).messages,
    limits: async () => null,
    reserved: async () => undefined,
  };
  const times: number[] = [];
  let sessions = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    sessions = (await projectStats(store, DEFAULT_SETTINGS)).audit.totals.sessions;
    times.push(performance.now() - started);
  }
  return { sessions, ms: median(times) };
}

/** The real opencode: import every export into one project, then `/guard stats` three times. */
async function inOpencode(files: Array<{ file: string; text: string }>) {
  const sandbox = await createSandbox();
  const staging = await mkdtemp(join(tmpdir(), "ocg-stats-"));
  try {
    await writeOpencodeConfig(sandbox, {
      baseURL: "http://127.0.0.1:9/v1",
      limits: scenarioSetup("healthy").limits,
      plugin: [pathToFileURL(PLUGIN_ENTRY).href],
    });
    let imported = 0;
    let refused = 0;
    let bytes = 0;
    let first: string | undefined;
    const queue = [...files];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const json = JSON.parse(next.text) as { info: Record<string, unknown>; messages: unknown[] };
        const created =
          typeof (json.info.time as { created?: unknown })?.created === "number" ? (json.info.time as { created: number }).created : 1;
        // A session of this sandbox's project (a folder without git: opencode's "global" project).
        json.info = {
          slug: "fixture",
          title: "fixture",
          version: "1.18.33",
          time: { created, updated: created },
          ...json.info,
          projectID: "global",
          directory: sandbox.project,
        };
        const file = join(staging, `${json.info.id as string}.json`);
        await writeFile(file, JSON.stringify(json));
        const f = await runOpencode(["import", file], sandbox, 60_000);
        if (f.code === 0 && /Imported session/.test(f.stdout + f.stderr)) {
          imported += 1;
          bytes += Buffer.byteLength(next.text);
          first ??= json.info.id as string;
        } else refused += 1;
      }
    };
    await Promise.all([worker(), worker()]);
    if (!first) throw new Error("opencode imported no export");
    const runs: Array<{ ms: number; wallMs: number; sessions: number }> = [];
    for (let i = 0; i < 3; i++) {
      const f = await runOpencode(["run", "--session", first, "--command", "guard", "stats"], sandbox, 300_000);
      const note = lastNote(await exportSession(first, sandbox, 60_000));
      const m = /: ([\d,]+) sessions? read in ([\d,]+) ms/.exec(note);
      if (!m) throw new Error(`no stats answer (exit ${f.code}): ${note.slice(0, 300)} ${f.stderr.slice(-300)}`);
      runs.push({ sessions: Number(m[1]!.replace(/,/g, "")), ms: Number(m[2]!.replace(/,/g, "")), wallMs: f.wallMs });
    }
    return { imported, refused, bytes, runs };
  } finally {
    await rm(staging, { recursive: true, force: true });
    await sandbox.dispose();
  }
}

/** Runs both measures; returns the table. */
export async function guardStatsBench(): Promise<string> {
  const files = opencodeExports(FIXTURES);
  const totalBytes = files.reduce((sum, f) => sum + statSync(f.file).size, 0);
  const here = await inProcess(files);
  const real = await inOpencode(files);
  const rows = [
    ["in one process (deciding only)", formatInt(here.sessions), `${formatInt(Math.round(totalBytes / 1024))} KB`, formatMs(here.ms), "-"],
    ...real.runs.map((r, i) => [`opencode 1.18.33, run ${i + 1}`, formatInt(r.sessions), "-", formatMs(r.ms), formatMs(r.wallMs)]),
  ];
  return (
    `/guard stats over the opencode exports of fixtures/ (${files.length} files, ${formatInt(Math.round(totalBytes / 1024))} KB; ` +
    `\`opencode import\` exited 0 for ${real.imported} (${formatInt(Math.round(real.bytes / 1024))} KB), reported an error for ${real.refused}):\n` +
    formatTable(["where", "sessions", "exports", "stats (ms, as answered)", "opencode run (wall)"], rows)
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await guardStatsBench());

/**
 * What each hook of the guard costs in the real opencode (e2e/sandbox.ts's release) on a long
 * session, as a user waits for it. Per size N: a session of N steps, each a bash call with a
 * different 45,000-byte output and an automatic compaction every {@link STEPS_PER_CYCLE}
 * steps, built with the tests' SessionBuilder and put into a sandboxed opencode with
 * `opencode import`; then `opencode run --session` carries it on against the scripted model
 * server's host-hooks scenario (e2e/scenarios.ts: 38 steps of different calls and outputs, two
 * automatic compactions, so continue turns and both compaction hooks, then the final answer).
 *
 * The opencode config lists a generated shim instead of the plugin: it loads the plugin's
 * `server` and wraps each hook it returns to append `{ hook, ms, sessionID }` (the hook's
 * `performance.now()` time until its promise settled) to a JSONL file. The same work runs
 * first with a shim that returns no hooks (the baseline), then with each plugin build.
 *
 * Figures, in ms unless named: the plugin's load (its module's import and `server()`, inside
 * opencode's start-up); per hook median, p99, max; the decision's own `elapsedMs` from
 * the guard's log line, and its `phasesMs` (median and max of each phase) with `messagesFrom`; a step is the gap between two chat or continue requests the model
 * server received (the answer, the tool, the hooks, opencode's own work between them); the
 * first request, from spawning `opencode run` (start-up, loading the session, the first
 * transform); peak RSS, opencode's VmHWM (/proc/<pid>/status, sampled until it exits); the
 * event loop's stalls, as the shim sees them in both runs: a timer due every
 * {@link STALL_TICK_MS} ms that fires {@link STALL_MIN_MS} ms or more late was held up by
 * synchronous work of opencode's or of the guard's (a user waits for any of it: the server
 * answers the TUI on the same loop).
 *
 * `tsx bench/host-hooks.ts [--sizes 100,400,2000] [--plugin label=path/to/dist/index.js …]`;
 * default plugin: this checkout's dist/index.js (`npm run build` first).
 */
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { guardLogLines, liveDecisions } from "../e2e/guard-log.js";
import { runArgs, runOpencode } from "../e2e/harness.js";
import { startModelServer } from "../e2e/model-server.js";
import { PLUGIN_ENTRY } from "../e2e/replay.js";
import { createSandbox, OPENCODE_VERSION, writeOpencodeConfig, writeProjectFiles, type Sandbox } from "../e2e/sandbox.js";
import { PROMPTS, scenarioSetup } from "../e2e/scenarios.js";
import { formatInt, formatMs, formatSeconds, formatTable, median, quantile } from "../e2e/table.js";
import { bash, SessionBuilder } from "../test/support/session.js";
import { outputOf } from "./hooks.js";
import { importFile } from "./support/opencode-import.js";

/** The hooks the table reports, in its order. */
export const TIMED_HOOKS = [
  "experimental.chat.messages.transform",
  "tool.execute.after",
  "event",
  "experimental.session.compacting",
  "experimental.compaction.autocontinue",
] as const;
/** The sizes of the imported sessions, in steps, when none are given. */
export const DEFAULT_SIZES = [100, 400, 2000] as const;
/** Bytes of each imported step's tool output. */
const OUTPUT_BYTES = 45_000;
/** Steps between two automatic compactions of the imported history (about 200k tokens of outputs). */
const STEPS_PER_CYCLE = 17;
/** Context sizes the history's steps report, in tokens: under the line, and over it before each compaction. */
const STEP_TOKENS = 1000;
const OVER_LINE_TOKENS = 7020;
/** The shim's stall timer ticks this often (ms). */
const STALL_TICK_MS = 10;
/** A tick this late or later (ms) is a stall of the event loop. */
const STALL_MIN_MS = 20;
/** One `opencode run` (or import) is killed after this long, in ms. */
const RUN_TIMEOUT_MS = 15 * 60_000;

/** One timed hook call, as the shim writes it. */
interface HookCall {
  hook: string;
  ms: number;
  sessionID: string | null;
}

/** One run of the continued session: a plugin build, or the baseline (`plugin` null). Times in ms, memory in KiB. */
export interface HostRun {
  size: number;
  label: string;
  plugin: string | null;
  /** Messages in the session after the import. */
  messages: number;
  importMs: number;
  exitCode: number | null;
  /** Chat, continue and compaction requests the model server received. */
  requests: number;
  compactions: number;
  firstRequestMs: number | null;
  steps: number[];
  calls: HookCall[];
  /** The guard's `elapsedMs` of each compaction decision it logged. */
  decisions: number[];
  /** Each logged decision's `phasesMs` (ms by phase) and `messagesFrom`, in order. */
  phases: Array<{ ms: Record<string, number>; from: string }>;
  peakRssKb: number | null;
  /** The 1-minute load average when the run started. */
  load: number;
}

/**
 * The shim plugin module: loads `plugin`'s `server` (its default export's, or a named
 * `server`) and wraps every hook it returns to append each call's time to `logPath`; with
 * `plugin` null, a plugin with no hooks.
 */
export function shimSource(plugin: string | null, logPath: string): string {
  return `import { appendFileSync } from "node:fs";
const LOG = ${JSON.stringify(logPath)};
const sessionOf = (name, input, output) =>
  name === "event"
    ? (input?.event?.properties?.sessionID ?? input?.event?.properties?.info?.sessionID ?? input?.event?.properties?.part?.sessionID ?? null)
    : name === "experimental.chat.messages.transform"
      ? (output?.messages?.[0]?.info?.sessionID ?? null)
      : (input?.sessionID ?? null);
export default {
  id: "compaction-guard-timed",
  server: async (input, options) => {
    let last = performance.now();
    setInterval(() => {
      const now = performance.now();
      const late = now - last - ${STALL_TICK_MS};
      last = now;
      if (late >= ${STALL_MIN_MS}) appendFileSync(LOG, JSON.stringify({ hook: "stall", ms: late, sessionID: null }) + "\\n");
    }, ${STALL_TICK_MS}).unref?.();
    ${
      plugin === null
        ? "return {};"
        : `const loading = performance.now();
    const mod = await import(${JSON.stringify(pathToFileURL(plugin).href)});`
    }
    const hooks = await (mod.server ?? mod.default.server)(input, options);
    appendFileSync(LOG, JSON.stringify({ hook: "load", ms: performance.now() - loading, sessionID: null }) + "\\n");
    const timed = {};
    for (const [name, hook] of Object.entries(hooks)) {
      timed[name] = typeof hook !== "function" ? hook : async (a, b) => {
        const started = performance.now();
        try {
          return await hook(a, b);
        } finally {
          const ms = performance.now() - started;
          appendFileSync(LOG, JSON.stringify({ hook: name, ms, sessionID: sessionOf(name, a, b) }) + "\\n");
        }
      };
    }
    return timed;
  },
};
`;
}

/**
 * The long session of `size` steps as an `opencode import` file: a user message, `size` bash
 * steps with different 45,000-byte outputs, an automatic compaction after every
 * {@link STEPS_PER_CYCLE}th, then a final answer.
 */
export function longSession(size: number, directory: string): ReturnType<typeof importFile> {
  const builder = new SessionBuilder("ses_long").user("run the test shards and fix what fails");
  for (let s = 1; s <= size; s++) {
    const compacts = s % STEPS_PER_CYCLE === 0;
    builder.step(bash(`npm test -- --shard ${s}`, outputOf(s, OUTPUT_BYTES)), compacts ? OVER_LINE_TOKENS : STEP_TOKENS);
    if (compacts) builder.compact();
  }
  builder.say("The shards are done.", STEP_TOKENS);
  return importFile(builder.messages, Date.now() - 3_600_000, directory);
}

/** Polls a process's /proc status until it is gone. `stop()` gives its VmHWM (peak RSS, KiB), or null if never read. */
function sampleMemory(pid: number): { stop(): number | null } {
  let peak: number | null = null;
  const read = () => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
      if (hwm) peak = Math.max(peak ?? 0, Number(hwm));
    } catch {
      // The process has exited; the last sample stands.
    }
  };
  read();
  const timer = setInterval(read, 100);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

/** The `phasesMs.<phase>=<ms>` fields of a logfmt decision line (opencode prints a nested object as dotted keys). */
function phasesOf(fields: Record<string, unknown>): Record<string, number> {
  const phases: Record<string, number> = {};
  for (const [key, value] of Object.entries(fields))
    if (key.startsWith("phasesMs.") && typeof value === "number") phases[key.slice("phasesMs.".length)] = value;
  return phases;
}

/** Import `file` into a fresh sandbox and carry the session on with `plugin` (null: the baseline shim). */
async function runOnce(size: number, file: string, messages: number, label: string, plugin: string | null): Promise<HostRun> {
  const sandbox: Sandbox = await createSandbox();
  const arrivals: Array<{ kind: string; at: number }> = [];
  const server = await startModelServer({
    scenario: "host-hooks",
    readPath: sandbox.readPath,
    projectDir: sandbox.project,
    maxRequests: 100,
    onRequest: (kind) => arrivals.push({ kind, at: performance.now() }),
  });
  try {
    await writeProjectFiles(sandbox, scenarioSetup("host-hooks").files);
    const logPath = join(sandbox.root, "hooks.jsonl");
    await writeFile(logPath, "");
    const shim = join(sandbox.root, "timed-plugin.mjs");
    await writeFile(shim, shimSource(plugin, logPath));
    await writeOpencodeConfig(sandbox, { baseURL: server.baseURL, plugin: [pathToFileURL(shim).href] });

    const imported = await runOpencode(["import", file], sandbox, RUN_TIMEOUT_MS);
    const sessionID = /Imported session: (\S+)/.exec(imported.stdout)?.[1];
    if (imported.code !== 0 || !sessionID)
      throw new Error(`opencode import failed (exit ${imported.code}): ${imported.stderr.slice(-500)}`);

    const load = loadavg()[0]!;
    let spawnedAt = 0;
    let memory: { stop(): number | null } | undefined;
    const run = await runOpencode(runArgs(PROMPTS["host-hooks"], sessionID), sandbox, RUN_TIMEOUT_MS, undefined, (pid) => {
      spawnedAt = performance.now();
      memory = sampleMemory(pid);
    });
    const peakRssKb = memory?.stop() ?? null;
    const asks = arrivals.filter((a) => a.kind === "chat" || a.kind === "continue").map((a) => a.at);
    const decisionLines = guardLogLines(run.stderr).filter((l) => l.fields.decision === "allow" || l.fields.decision === "deny");
    const calls = (await readFile(logPath, "utf8"))
      .split("\n")
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as HookCall);
    return {
      size,
      label,
      plugin,
      messages,
      importMs: imported.wallMs,
      exitCode: run.code,
      requests: arrivals.filter((a) => a.kind !== "title").length,
      compactions: arrivals.filter((a) => a.kind === "compaction").length,
      firstRequestMs: asks[0] === undefined ? null : asks[0] - spawnedAt,
      steps: asks.slice(1).map((at, i) => at - asks[i]!),
      calls,
      decisions: liveDecisions(decisionLines).flatMap((d) => (d.elapsedMs === null ? [] : [d.elapsedMs])),
      phases: decisionLines.map((l) => ({ ms: phasesOf(l.fields), from: String(l.fields.messagesFrom ?? "-") })),
      peakRssKb,
      load,
    };
  } finally {
    await server.close();
    await sandbox.dispose();
  }
}

/**
 * Per size, the baseline then each plugin build, one run at a time.
 * @param plugins `[label, path to the plugin module]` pairs.
 * @returns one run per size and build, the baseline first in each size.
 */
export async function hostHooksBench(
  sizes: readonly number[],
  plugins: ReadonlyArray<readonly [string, string]>,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<HostRun[]> {
  const runs: HostRun[] = [];
  for (const size of sizes) {
    // The import writes the sandbox's own project dir into the session; the messages keep this one.
    const session = longSession(size, "/home/dev/project");
    const dir = await mkdtemp(join(tmpdir(), "ocg-host-hooks-"));
    const file = join(dir, `session-${size}.json`);
    try {
      await writeFile(file, JSON.stringify(session));
      for (const [label, plugin] of [["without guard", null] as const, ...plugins]) {
        const run = await runOnce(size, file, session.messages.length, label, plugin);
        log(
          `  host-hooks ${size} steps, ${label}: exit ${run.exitCode}, ${run.requests} requests, ${run.compactions} compactions, import ${formatSeconds(run.importMs)}`,
        );
        runs.push(run);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return runs;
}

const mib = (kb: number | null) => (kb === null ? "-" : `${formatInt(kb / 1024)} MiB`);
const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? "-" : `${(a / b).toFixed(2)}×`);

/** The per-hook table: calls, median, p99 and max (ms) of each timed hook and of the guard's decision, per size and build. */
export function hookTable(runs: readonly HostRun[]): string {
  const rows = runs
    .filter((r) => r.plugin !== null)
    .flatMap((r) => {
      const of = (hook: string) => r.calls.filter((c) => c.hook === hook).map((c) => c.ms);
      const row = (name: string, ms: number[]) => [
        String(r.size),
        r.label,
        name,
        String(ms.length),
        formatMs(median(ms)),
        formatMs(quantile(ms, 0.99)),
        formatMs(quantile(ms, 1)),
      ];
      return [
        row("loading the plugin (import + server())", of("load")),
        ...TIMED_HOOKS.map((hook) => row(hook, of(hook))),
        row("decision (elapsedMs logged)", r.decisions),
      ];
    });
  return formatTable(["steps", "build", "hook", "calls", "median", "p99", "max"], rows);
}

/**
 * The decision's phases (ms): per size and build, each phase's median and max over the
 * logged decisions, and where the messages came from (`mirror` or `opencode`, per decision).
 */
export function phaseTable(runs: readonly HostRun[]): string {
  const rows = runs
    .filter((r) => r.plugin !== null && r.phases.length > 0)
    .map((r) => {
      const names = [...new Set(r.phases.flatMap((p) => Object.keys(p.ms)))];
      const cells = names.map((name) => {
        const ms = r.phases.flatMap((p) => (p.ms[name] === undefined ? [] : [p.ms[name]!]));
        return `${name} ${formatMs(median(ms))} / ${formatMs(quantile(ms, 1))}`;
      });
      return [String(r.size), r.label, String(r.phases.length), r.phases.map((p) => p.from).join(", "), cells.join("; ")];
    });
  return formatTable(["steps", "build", "decisions", "messages from", "phase median / max"], rows);
}

/** The event loop's stalls of a run (ms late, each {@link STALL_MIN_MS} ms or more), from the shim's log. */
const stallsOf = (run: HostRun): number[] => run.calls.filter((c) => c.hook === "stall").map((c) => c.ms);

/** The step table: each run's steps (ms) and their ratio to the baseline of its size, and peak RSS. */
export function stepTable(runs: readonly HostRun[]): string {
  return formatTable(
    [
      "steps",
      "run",
      "load",
      "messages",
      "requests",
      "first request",
      "step median",
      "step p99",
      "median ratio",
      "p99 ratio",
      "peak RSS",
      "RSS ratio",
      "stalls",
      "longest stall",
    ],
    runs.map((r) => {
      const base = runs.find((b) => b.size === r.size && b.plugin === null);
      const med = median(r.steps);
      const p99 = quantile(r.steps, 0.99);
      const isBase = r === base;
      return [
        String(r.size),
        r.label,
        r.load.toFixed(1),
        formatInt(r.messages),
        `${r.requests} (${r.compactions} compactions)`,
        formatMs(r.firstRequestMs),
        formatMs(med),
        formatMs(p99),
        isBase ? "" : ratio(med, median(base?.steps ?? [])),
        isBase ? "" : ratio(p99, quantile(base?.steps ?? [], 0.99)),
        mib(r.peakRssKb),
        isBase ? "" : ratio(r.peakRssKb, base?.peakRssKb ?? null),
        formatInt(stallsOf(r).length),
        formatMs(stallsOf(r).length === 0 ? null : Math.max(...stallsOf(r))),
      ];
    }),
  );
}

/** Both tables under a heading naming the release, the machine's load and the sizes. */
export function hostHooksReport(runs: readonly HostRun[]): string {
  const sizes = [...new Set(runs.map((r) => r.size))].join(", ");
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  return [
    `Hooks in the real opencode ${OPENCODE_VERSION} (Node ${process.version} for the bench, load average ${load}): sessions of ${sizes} imported steps of 45,000-byte outputs, carried on for 38 steps with 2 compactions`,
    hookTable(runs),
    "",
    "The decision's phases (the guard's `phasesMs`):",
    phaseTable(runs),
    "",
    `Steps (gap between two model requests), opencode's peak RSS and its event loop's stalls (a ${STALL_TICK_MS} ms timer ${STALL_MIN_MS} ms or more late), without and with the guard:`,
    stepTable(runs),
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { sizes: { type: "string", default: DEFAULT_SIZES.join(",") }, plugin: { type: "string", multiple: true } },
  });
  const sizes = values.sizes.split(",").map(Number);
  const plugins = (values.plugin ?? [`with guard=${PLUGIN_ENTRY}`]).map((arg): [string, string] => {
    const at = arg.indexOf("=");
    return at < 0 ? [arg, resolve(arg)] : [arg.slice(0, at), resolve(arg.slice(at + 1))];
  });
  console.log(hostHooksReport(await hostHooksBench(sizes, plugins)));
}

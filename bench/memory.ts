/**
 * What the V1 guard holds per session, measured: a session of N steps, each a
 * bash call with a different 45,000-byte output (an automatic compaction every 17th, decided
 * by the autocontinue hook), goes through one guard as opencode hands it over: every message
 * and part as a `message.updated` / `message.part.updated` event, `tool.execute.after` after
 * each call, `session.messages` answered with a structured clone of the newest messages. Each
 * event is a structured clone too: in opencode the bus's objects are the store's copies,
 * dropped once handed on, so what the guard keeps of them is what it alone holds.
 *
 * The tool parts carry what opencode 1.18.33's bash tool stores besides the output (see
 * fixtures/e2e-truncated-big-output.json): `state.metadata.output`, the output again up to
 * 30,000 characters (`MAX_METADATA_LENGTH`, then `\n\n...`), `exit`, `description`,
 * `truncated`, the part's `state.title` and `state.time`.
 *
 * Figures, per case (steps, output bytes):
 * - retained: `process.memoryUsage().heapUsed` after a full collection with the guard alive,
 *   minus the same after the guard is let go (the harness's own copy of the session is in
 *   both), MB (10^6 bytes);
 * - the mirror's share, by field: the characters of the strings the mirror of that session
 *   holds (./../src/plugin/opencode-v1/mirror.ts, after the same events), each string counted
 *   once (one byte a character: the outputs are ASCII), grouped as tool output, tool
 *   metadata, tool input, other;
 * - least exact digests: what digests of the kept outputs would hold at the least, if they
 *   replaced the outputs without changing a verdict (see {@link digestFloor}), MB.
 *
 * The collections need `global.gc`: the script re-runs itself under `node --expose-gc` when it
 * is missing (a flag of this measurement, not of the plugin).
 *
 * `tsx bench/memory.ts [<steps>x<output bytes> …]` prints the table (default {@link CASES});
 * bench/index.ts calls {@link memoryBench}.
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Hooks } from "@opencode-ai/plugin";
import { formatTable } from "../e2e/table.js";
import { createGuard } from "../src/plugin/opencode-v1/guard.js";
import { createMirror } from "../src/plugin/opencode-v1/mirror.js";
import { resolveSettings } from "../src/config/settings.js";
import { historyLimit } from "../src/judge/verdict.js";
import { factsOf } from "../src/judge/information.js";
import { contentLines } from "../src/hosts/answers.js";
import { bash, SessionBuilder, type Message } from "../test/support/session.js";
import { outputOf } from "./hooks.js";

/** Bytes of each step's tool output in the main cases. */
const OUTPUT_BYTES = 45_000;
/** opencode's bash tool keeps this much of the output again in `state.metadata.output` (characters). */
const METADATA_OUTPUT_CHARS = 30_000;
/** Steps between two automatic compactions. */
const STEPS_PER_CYCLE = 17;
const LIMITS = { context: 200_000, output: 32_000 };
/** Messages the guard's mirror keeps of a session with the default settings (judge/verdict.ts `historyLimit`). */
const KEPT = historyLimit(resolveSettings(undefined, {}).settings);

/** The tool part of a bash step with what opencode 1.18.33 stores besides the output. */
function asStored(part: Record<string, unknown>, at: number): Record<string, unknown> {
  if (part.type !== "tool") return part;
  const state = part.state as { status: string; input: { command?: string }; output?: string };
  const output = state.output ?? "";
  const preview = output.length > METADATA_OUTPUT_CHARS ? `${output.slice(0, METADATA_OUTPUT_CHARS)}\n\n...` : output;
  return {
    ...part,
    state: {
      ...state,
      title: state.input.command ?? "",
      metadata: { output: preview, exit: 0, description: "Runs the test shard", truncated: false },
      time: { start: at, end: at + 1_000 },
    },
  };
}

/** The session: `steps` bash steps with different outputs of `outputBytes`, an automatic compaction after every 17th. */
function buildSession(id: string, steps: number, outputBytes: number): Message[] {
  const builder = new SessionBuilder(id).user("run the test shards and fix what fails");
  for (let s = 1; s <= steps; s++) {
    builder.step(bash(`npm test -- --shard ${s}`, outputOf(s, outputBytes)), s % STEPS_PER_CYCLE === 0 ? 7020 : 1000);
    if (s % STEPS_PER_CYCLE === 0) builder.compact();
  }
  const start = Date.now();
  return builder.messages.map((m, i) => ({ info: m.info, parts: m.parts.map((p) => asStored(p, start + i * 2_000)) }));
}

const heapAfterCollection = (): number => {
  for (let i = 0; i < 3; i++) globalThis.gc!();
  return process.memoryUsage().heapUsed;
};

/** The session's events, one message at a time, as clones (see the module's comment). */
async function send(hooks: Hooks, message: Message): Promise<void> {
  await hooks.event!({ event: structuredClone({ type: "message.updated", properties: { info: message.info } }) as never });
  for (const part of message.parts)
    await hooks.event!({ event: structuredClone({ type: "message.part.updated", properties: { part } }) as never });
}

/** Runs the session through a guard; returns the heap retained by the guard (bytes). */
async function retainedByGuard(messages: Message[], id: string): Promise<number> {
  let stored = 0;
  const client = {
    session: {
      messages: async (options: { query?: { limit?: number } }) => {
        const limit = options.query?.limit ?? stored;
        return { data: structuredClone(messages.slice(Math.max(0, stored - limit), stored)) };
      },
      get: async () => ({ data: { id, title: "memory" } }),
      prompt: async () => ({ data: true }),
      abort: async () => ({ data: true }),
    },
    config: { get: async () => ({ data: {} }) },
    app: { log: async () => ({ data: true }) },
    tui: { showToast: async () => ({ data: true }) },
  };
  let hooks: Hooks | undefined = createGuard({ client: client as never }, undefined, { env: {} });
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    stored = i + 1;
    await send(hooks, message);
    const tool = message.parts.find((p) => p.type === "tool");
    if (tool) {
      const state = tool.state as { input: unknown; output: string };
      await hooks["tool.execute.after"]!(
        { tool: "bash", sessionID: id, callID: String(tool.callID), args: state.input },
        { title: "", output: state.output, metadata: {} },
      );
    }
    if (message.info.summary === true) {
      const compaction = messages[i - 1]!;
      await hooks["experimental.compaction.autocontinue"]!(
        { sessionID: id, agent: "build", model: { id: "m", providerID: "p", limit: LIMITS }, message: compaction.info } as never,
        { enabled: true },
      );
    }
  }
  const alive = heapAfterCollection();
  await hooks.dispose?.();
  hooks = undefined;
  return alive - heapAfterCollection();
}

/**
 * The least digests of the kept outputs could hold and still judge as the guard does: the
 * judgement reads each output by its content lines (what was seen since the last effect) and
 * its facts (the names and numbers a repeated answer is compared by; ../src/judge/information.ts),
 * so an exact digest keeps at least one 64-bit hash per content line and per fact (bytes).
 */
function digestFloor(outputs: readonly string[]): number {
  let items = 0;
  for (const output of outputs) items += contentLines(output).length + factsOf(output).size;
  return items * 8;
}

/** The characters of the strings the mirror holds of the session, by kind (each string once), and its tool outputs. */
async function mirrorStrings(messages: Message[], id: string): Promise<{ sizes: Record<string, number>; outputs: string[] }> {
  const mirror = createMirror();
  await mirror.seed(id, KEPT, async () => structuredClone(messages.slice(0, 1)));
  for (const message of messages.slice(1)) {
    mirror.event(structuredClone({ type: "message.updated", properties: { info: message.info } }));
    for (const part of message.parts) mirror.event(structuredClone({ type: "message.part.updated", properties: { part } }));
  }
  const sizes: Record<string, number> = { "tool output": 0, "tool metadata": 0, "tool input": 0, other: 0 };
  const seen = new Set<string>();
  const walk = (value: unknown, kind: string): void => {
    if (typeof value === "string") {
      if (!seen.has(value)) sizes[kind]! += value.length;
      seen.add(value);
    } else if (value !== null && typeof value === "object") for (const item of Object.values(value)) walk(item, kind);
  };
  const KINDS: Record<string, string> = { output: "tool output", metadata: "tool metadata", input: "tool input" };
  const outputs: string[] = [];
  for (const message of mirror.newest(id, KEPT) ?? []) {
    const { info, parts } = message as Message;
    walk(info, "other");
    for (const part of parts) {
      const { state, ...rest } = part as { state?: Record<string, unknown> };
      walk(rest, "other");
      for (const [key, value] of Object.entries(state ?? {})) walk(value, KINDS[key] ?? "other");
      if (typeof state?.output === "string") outputs.push(state.output);
    }
  }
  return { sizes, outputs };
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(2)} MB`;

/** The cases measured when none are given: `[steps, output bytes]`. */
export const CASES: ReadonlyArray<readonly [number, number]> = [
  [1_000, OUTPUT_BYTES],
  [2_000, OUTPUT_BYTES],
  [1_000, OUTPUT_BYTES / 10],
];

/** One case, in this process (it needs `global.gc`): its row of the table. */
async function measure(steps: number, outputBytes: number): Promise<string[]> {
  const id = "ses_memory";
  const messages = buildSession(id, steps, outputBytes);
  const retained = await retainedByGuard(messages, id);
  const { sizes: strings, outputs } = await mirrorStrings(messages, id);
  const held = Object.values(strings).reduce((a, b) => a + b, 0);
  return [
    steps.toLocaleString("en-US"),
    outputBytes.toLocaleString("en-US"),
    mb(retained),
    mb(held),
    ...["tool output", "tool metadata", "tool input", "other"].map((kind) => mb(strings[kind]!)),
    mb(digestFloor(outputs)),
  ];
}

/** The table of `cases` (see {@link CASES}), in this process. */
async function table(cases: ReadonlyArray<readonly [number, number]>): Promise<string> {
  const rows: string[][] = [];
  for (const [steps, bytes] of cases) rows.push(await measure(steps, bytes));
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  return [
    `What one V1 guard holds of a session (Node ${process.version}, load average ${load}): bash steps of different outputs, a compaction every ${STEPS_PER_CYCLE}; the mirror keeps the newest ${KEPT} messages`,
    formatTable(
      [
        "steps",
        "output bytes",
        "heap retained by the guard",
        "strings the mirror holds",
        "tool output",
        "tool metadata",
        "tool input",
        "other",
        "least exact digests",
      ],
      rows,
    ),
  ].join("\n");
}

/** Runs {@link CASES} in a child `node --expose-gc` (see the module's comment); returns the table. */
export function memoryBench(cases: ReadonlyArray<readonly [number, number]> = CASES): string {
  const child = spawnSync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), ...cases.map(([steps, bytes]) => `${steps}x${bytes}`)],
    { encoding: "utf8", maxBuffer: 1 << 24 },
  );
  if (child.status !== 0) throw new Error(`bench/memory.ts failed (exit ${child.status}): ${child.stderr.slice(-500)}`);
  return child.stdout.trimEnd();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const given = process.argv.slice(2).map((arg) => arg.split("x").map(Number) as [number, number]);
  const cases = given.length > 0 ? given : CASES;
  console.log(typeof globalThis.gc === "function" ? await table(cases) : memoryBench(cases));
}

/**
 * What the guard's V1 hooks cost in one process, without opencode: `createGuard` over a fake
 * client whose `session.messages` answers a structured clone of the newest `query.limit`
 * messages of a session (no HTTP, no database), the session built with the tests'
 * SessionBuilder. A step is what opencode does for one tool call: the model request (the
 * `experimental.chat.messages.transform` hook on the messages since the last compaction), the
 * assistant message and its running tool part sent to the `event` hook, the
 * `tool.execute.after` hook with the tool's output, then the finished message sent to the
 * `event` hook (`message.updated`, `message.part.updated`, as test/plugin/publish.ts sends
 * them). The first steps include the guard's first reads (its mirror of the session is empty).
 *
 * Figures, all in ms (median, p99, max over every step or call):
 * 1. each hook per call, the `event` hook per step (every event of the step), and a whole step
 *    with the guard and without it (the same loop, no hook called): with minus without is what
 *    the guard adds;
 * 2. the same with three sessions, one step of each in turn, one guard;
 * 3. the `session.messages` calls the per-step hooks made (with a limit, for the whole
 *    session) and the time the fake client took to answer them;
 * 4. `experimental.compaction.autocontinue` (median, max; how many denied) at
 *    {@link COMPACTIONS} compactions after the steps, each after
 *    {@link STEPS_BETWEEN_COMPACTIONS} more steps (it reads the newest 200 messages), and of
 *    it the time `session.messages` took to answer.
 *
 * Sessions: 400 steps of a different 45,000-byte bash output each, one automatic compaction
 * after the second; and 20,000 messages of history (cycles of 17 steps of 2,000-byte outputs
 * and a compaction) followed by the same 400 steps with 2,000-byte outputs.
 *
 * `tsx bench/hooks.ts` prints the tables (about 15 s); bench/index.ts calls {@link hooksBench}.
 */
import type { Hooks } from "@opencode-ai/plugin";
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { formatInt, formatMs, formatTable, median, quantile } from "../e2e/table.js";
import { createGuard } from "../src/plugin/opencode-v1/guard.js";
import { publish } from "../test/plugin/publish.js";
import { bash, SessionBuilder, type Message } from "../test/support/session.js";

/** Compactions decided after the steps of each case. */
const COMPACTIONS = 7;
const STEPS_BETWEEN_COMPACTIONS = 3;
/** The model's limits sent with each compaction. */
const LIMITS = { context: 200_000, output: 32_000 };

/** A tool output of exactly `bytes` ASCII bytes, different for every `step`. */
export function outputOf(step: number, bytes: number): string {
  let text = "";
  for (let line = 0; text.length < bytes; line++) text += `step ${step} line ${line}: PASS src/module${line % 37}.test.ts (12 tests)\n`;
  return text.slice(0, bytes);
}

/** One session: its messages, how many of them opencode has stored, where its last compaction starts. */
class Session {
  readonly builder: SessionBuilder;
  /** Messages opencode has stored (`session.messages` answers from these). */
  stored = 0;
  /** Index of the last compaction's user message: the model request starts there. */
  compactedAt = 0;
  steps = 0;

  constructor(
    readonly id: string,
    readonly outputBytes: number,
    history: number,
  ) {
    this.builder = new SessionBuilder(id).user("run the test shards and fix what fails");
    while (this.builder.messages.length < history) {
      for (let s = 0; s < 17; s++) this.toolStep();
      this.builder.compact();
    }
    this.stored = this.builder.messages.length;
    this.compactedAt = this.stored;
  }

  get messages(): Message[] {
    return this.builder.messages;
  }

  /** Adds one assistant step with a different bash call and output; returns its message. */
  toolStep(): Message {
    const n = this.steps++;
    this.builder.step(bash(`npm test -- --shard ${n}`, outputOf(n, this.outputBytes)));
    return this.messages.at(-1)!;
  }
}

/** What the guard asked of `session.messages`: calls with a limit, calls for the whole session, and the time spent answering (ms). */
interface Reads {
  bounded: number;
  whole: number;
  ms: number;
}

/**
 * A fake opencode V1 client over `sessions`: `session.messages` answers a clone of the newest
 * `query.limit` stored messages (all of them without a limit), counted in `reads`.
 */
function fakeClient(sessions: ReadonlyMap<string, Session>, reads: Reads, times: Times) {
  const ok = async () => ({ data: true });
  return {
    session: {
      messages: async (options: { path: { id: string }; query?: { limit?: number } }) => {
        const started = performance.now();
        const session = sessions.get(options.path.id);
        const stored = session ? session.messages.slice(0, session.stored) : [];
        const limit = options.query?.limit;
        if (limit === undefined) reads.whole += 1;
        else reads.bounded += 1;
        const data = structuredClone(stored.slice(Math.max(0, stored.length - (limit ?? stored.length))));
        reads.ms += performance.now() - started;
        return { data };
      },
      get: async (options: { path: { id: string } }) => ({ data: { id: options.path.id, title: "bench" } }),
      prompt: ok,
      abort: ok,
    },
    config: { get: async () => ({ data: {} }) },
    app: {
      // Each decision's line says what judging its steps ahead took (null: not done).
      log: async (options: { body?: { extra?: { judgedAheadMs?: unknown } } }) => {
        const ms = options.body?.extra?.judgedAheadMs;
        if (typeof ms === "number") times.judgedAhead.push(ms);
        return { data: true };
      },
    },
    tui: { showToast: ok },
  };
}

/** Times in ms of each hook per call and of each step. */
interface Times {
  after: number[];
  transform: number[];
  events: number[];
  step: number[];
  decision: number[];
  /** Of each decision, the time `session.messages` took to answer. */
  decisionRead: number[];
  /** Of each decision, what judging its steps took while the summary was written (the guard's `judgedAheadMs`). */
  judgedAhead: number[];
  /** Decisions that denied the continue turn. */
  denied: number;
}
const noTimes = (): Times => ({
  after: [],
  transform: [],
  events: [],
  step: [],
  decision: [],
  decisionRead: [],
  judgedAhead: [],
  denied: 0,
});

/** One run of a case: its guard's hooks (undefined: without the guard), its reads, its times. */
interface Run {
  readonly hooks: Hooks | undefined;
  readonly reads: Reads;
  readonly times: Times;
}

const timed = async (call: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await call();
  return performance.now() - started;
};

/** One step of `session` (see the module's docstring); without hooks, the same work with no hook called. */
async function step(session: Session, { hooks, times }: Run): Promise<void> {
  const started = performance.now();
  // The model request: opencode sends the messages since the last compaction, copies it may change.
  const request = { messages: session.messages.slice(session.compactedAt).map((m) => ({ ...m })) };
  if (hooks) times.transform.push(await timed(() => hooks["experimental.chat.messages.transform"]!({}, request as never)));
  const message = session.toolStep();
  session.stored = session.messages.length;
  const tool = message.parts[1]!;
  const state = tool.state as { input: unknown; output: string };
  if (hooks) {
    const running = { info: message.info, parts: [message.parts[0]!, { ...tool, state: { status: "running", input: state.input } }] };
    let events = await timed(() => publish(hooks, [running]));
    const output = { title: "", output: state.output, metadata: {} };
    const input = { tool: "bash", sessionID: session.id, callID: String(tool.callID), args: state.input };
    times.after.push(await timed(() => hooks["tool.execute.after"]!(input, output)));
    events += await timed(() => publish(hooks, [message]));
    times.events.push(events);
  }
  times.step.push(performance.now() - started);
}

/**
 * An automatic compaction of `session`: its user message and summary stored and sent as
 * events, the decision, then the continue turn.
 */
async function compact(session: Session, { hooks, reads, times }: Run): Promise<void> {
  session.builder.compact();
  const [compaction, summary, continueTurn] = session.messages.slice(-3) as [Message, Message, Message];
  session.compactedAt = session.messages.length - 3;
  session.stored = session.messages.length - 1;
  if (hooks) {
    // The compaction's message, then its summary: opencode waits for the model in between
    // (seconds); here one turn of the event loop, in which the guard judges ahead.
    await publish(hooks, [compaction]);
    await new Promise((resolve) => setTimeout(resolve, 1));
    await publish(hooks, [summary]);
    const input = { sessionID: session.id, agent: "build", model: { id: "m", providerID: "p", limit: LIMITS }, message: compaction.info };
    const readBefore = reads.ms;
    const output = { enabled: true };
    times.decision.push(await timed(() => hooks["experimental.compaction.autocontinue"]!(input as never, output)));
    times.decisionRead.push(reads.ms - readBefore);
    if (!output.enabled) times.denied += 1;
    await publish(hooks, [continueTurn]);
  }
  session.stored = session.messages.length;
}

/** One case: `count` sessions of `history` messages, then `steps` steps of each in turn. */
interface Case {
  label: string;
  count: number;
  history: number;
  steps: number;
  outputBytes: number;
}

/**
 * Runs a case with the guard (or without it: `guard` false).
 * @returns its times, the reads made during the steps, and the messages of a session at the end.
 */
async function runCase(c: Case, guard: boolean): Promise<{ times: Times; stepReads: Reads; messages: number }> {
  const sessions = new Map<string, Session>();
  for (let i = 0; i < c.count; i++) sessions.set(`ses_bench${i}`, new Session(`ses_bench${i}`, c.outputBytes, c.history));
  const reads: Reads = { bounded: 0, whole: 0, ms: 0 };
  const times = noTimes();
  const hooks = guard ? createGuard({ client: fakeClient(sessions, reads, times) as never }, undefined, { env: {} }) : undefined;
  const run: Run = { hooks, reads, times };
  const all = [...sessions.values()];
  for (let s = 0; s < c.steps; s++) {
    // One automatic compaction early: every later request carries its continue turn.
    if (s === 2) {
      // Its decision's read is not a step's: taken out of the reads counted.
      const before = { ...reads };
      for (const session of all) await compact(session, { ...run, times: noTimes() });
      Object.assign(reads, before);
    }
    for (const session of all) await step(session, run);
  }
  const stepReads = { ...reads };
  for (let k = 0; k < COMPACTIONS; k++) {
    for (const session of all) for (let s = 0; s < STEPS_BETWEEN_COMPACTIONS; s++) await step(session, { ...run, times: noTimes() });
    for (const session of all) await compact(session, run);
  }
  await hooks?.dispose?.();
  return { times: run.times, stepReads, messages: all[0]!.stored };
}

const CASES: Case[] = [
  { label: "400 steps × 45,000 B", count: 1, history: 0, steps: 400, outputBytes: 45_000 },
  { label: "20,000 msgs + 400 steps × 2,000 B", count: 1, history: 20_000, steps: 400, outputBytes: 2_000 },
  { label: "3 sessions × 400 steps × 45,000 B", count: 3, history: 0, steps: 400, outputBytes: 45_000 },
];

/** Count, median, p99 and max of `values` (ms), formatted. */
const figures = (values: number[]): string[] => [
  formatInt(values.length),
  formatMs(median(values)),
  formatMs(quantile(values, 0.99)),
  formatMs(quantile(values, 1)),
];

/**
 * Runs every case without the guard, then with it.
 * @returns the printed tables, with a heading each.
 */
export async function hooksBench(): Promise<string> {
  const steps: string[][] = [];
  const reads: string[][] = [];
  const decisions: string[][] = [];
  for (const c of CASES) {
    const without = (await runCase(c, false)).times;
    const { times, stepReads, messages } = await runCase(c, true);
    const added = (q: number) => formatMs(quantile(times.step, q)! - quantile(without.step, q)!);
    steps.push(
      [c.label, "tool.execute.after", ...figures(times.after)],
      ["", "chat.messages.transform", ...figures(times.transform)],
      ["", "event (a step's events)", ...figures(times.events)],
      ["", "step with guard", ...figures(times.step)],
      ["", "step without guard", ...figures(without.step)],
      ["", "added (with − without)", "", added(0.5), added(0.99), ""],
    );
    reads.push([c.label, formatInt(stepReads.bounded), formatInt(stepReads.whole), formatMs(stepReads.ms)]);
    decisions.push([
      c.label,
      formatInt(messages),
      formatInt(times.decision.length),
      formatInt(times.denied),
      formatMs(median(times.decision)),
      formatMs(quantile(times.decision, 1)),
      formatMs(median(times.decisionRead)),
      formatMs(median(times.judgedAhead)),
      formatMs(quantile(times.judgedAhead, 1)),
    ]);
  }
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  return [
    `Hooks per step in one process (Node ${process.version}, load average ${load}; fake client: a structured clone of the newest query.limit messages):`,
    formatTable(["case", "hook", "calls", "median", "p99", "max"], steps),
    "",
    "session.messages calls made by the per-step hooks in the 400 steps (the rest came from the guard's mirror):",
    formatTable(["case", "with a limit", "whole session", "time answering"], reads),
    "",
    `Compaction decisions (experimental.compaction.autocontinue; reads the newest 200 messages), ${COMPACTIONS} per session, ${STEPS_BETWEEN_COMPACTIONS} steps apart:`,
    formatTable(
      ["case", "messages at the end", "decisions", "denied", "median", "max", "read median", "judged ahead median", "judged ahead max"],
      decisions,
    ),
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await hooksBench());
}

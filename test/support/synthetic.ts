/**
 * Synthetic opencode sessions of any length, in the shapes {@link SessionBuilder} writes:
 * a real user message, then compaction cycles of about 20 messages (steps whose context
 * grows from ~14K to ~52K tokens, each a tool call with an output of a few hundred bytes to
 * a few KB, then compaction, summary and the synthetic continue turn). Deterministic for a
 * seed; streamed, so a 300 MB export never has to be held in memory to be written.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { SessionBuilder, type Message, type ToolSpec } from "./session.js";

export interface SyntheticOptions {
  /** Seed of the pseudo-random choices. Default 1. */
  readonly seed?: number;
  /** Messages per compaction cycle (steps + compaction + summary + continue). Default 20. */
  readonly cycleLength?: number;
  /** Smallest and largest tool output, bytes. Default 200 to 4,000. */
  readonly outputBytes?: readonly [number, number];
  readonly sessionID?: string;
}

/** mulberry32: a small, fast, seedable generator in [0, 1). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Text tool outputs are cut from: source-like lines, some non-ASCII. */
const POOL = Array.from(
  { length: 400 },
  (_, i) => `src/module${i % 37}.ts:${i + 1}: const value${i} = compute("${"αβγ"[i % 3]}", ${i * 7}); // TODO check\n`,
).join("");

const TOOLS: ReadonlyArray<(i: number) => Omit<ToolSpec, "output">> = [
  (i) => ({ tool: "bash", input: { command: `npm test -- --shard ${i % 7}/7`, description: "Run the tests" } }),
  (i) => ({ tool: "read", input: { filePath: `/home/dev/project/src/module${i % 37}.ts`, offset: i % 400, limit: 200 } }),
  (i) => ({ tool: "grep", input: { pattern: `value${i % 97}`, path: "/home/dev/project/src", include: "*.ts" } }),
  (i) => ({
    tool: "edit",
    input: { filePath: `/home/dev/project/src/module${i % 37}.ts`, oldString: `value${i}`, newString: `value${i + 1}` },
  }),
];

/**
 * Yields `count` messages, oldest first. Every automatic compaction has a successful
 * summary; the steps of one cycle call distinct tools, so only no-progress can fire.
 */
export function* syntheticMessages(count: number, options: SyntheticOptions = {}): Generator<Message> {
  const next = random(options.seed ?? 1);
  const [minOut, maxOut] = options.outputBytes ?? [200, 4000];
  const steps = Math.max(1, (options.cycleLength ?? 20) - 3);
  const session = new SessionBuilder(options.sessionID ?? "ses_synthetic");
  session.user("refactor the parser and keep the tests green");
  let emitted = 0;
  let call = 0;
  for (;;) {
    for (let s = 0; s < steps; s++) {
      const bytes = Math.round(minOut + next() * (maxOut - minOut));
      const from = Math.floor(next() * (POOL.length - bytes));
      const tool = TOOLS[call % TOOLS.length]!(call);
      call += 1;
      session.step({ ...tool, output: POOL.slice(from, from + bytes) }, Math.round(14_000 + (38_000 * (s + 1)) / steps));
    }
    session.compact();
    for (const message of session.messages.splice(0)) {
      if (emitted === count) return;
      emitted += 1;
      yield message;
    }
  }
}

/** `{ info, messages }` with `count` synthetic messages, in memory. */
export function syntheticExport(count: number, options: SyntheticOptions = {}) {
  return {
    info: { id: options.sessionID ?? "ses_synthetic", version: "1.18.33" },
    messages: [...syntheticMessages(count, options)],
  };
}

/**
 * Writes an export of `count` synthetic messages to `path`, a chunk at a time.
 * @returns the file's size in bytes.
 */
export function writeSyntheticExport(path: string, count: number, options: SyntheticOptions = {}): number {
  const fd = openSync(path, "w");
  let bytes = 0;
  let chunk = "";
  const write = (text: string, flush = false) => {
    chunk += text;
    if (!flush && chunk.length < 1 << 20) return;
    bytes += writeSync(fd, chunk);
    chunk = "";
  };
  try {
    write(`{"info":${JSON.stringify({ id: options.sessionID ?? "ses_synthetic", version: "1.18.33" })},"messages":[`);
    let first = true;
    for (const message of syntheticMessages(count, options)) {
      write(`${first ? "" : ","}${JSON.stringify(message)}`);
      first = false;
    }
    write("]}", true);
  } finally {
    closeSync(fd);
  }
  return bytes;
}

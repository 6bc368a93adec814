/**
 * Speed bench: the whole process, before and after, on the same machine in the same run.
 *
 * "Before" is release 0.4.0 (commit {@link BEFORE_REV}, or `BENCH_BEFORE=<git rev>`), built
 * from git into a temporary folder; "after" is this checkout's dist/ (npm run bench builds
 * it). Every figure is the median of {@link ROUNDS} rounds in which the commands run in turn
 * (bare, before, after, bare, …), each in a fresh process, so a machine that slows down
 * slows all three alike; ratios are of medians. Peak RSS comes from each process itself
 * (support/rss.cjs, preloaded with --require).
 *
 * 1. replay <export> (the table) against a bare `readFileSync` + `JSON.parse` of the same
 *    file (support/parse.mjs), on synthetic exports (test/support/synthetic.ts) of 1k, 10k
 *    and 50k messages (a compaction every 20 messages) and loop-dense ones (every 4).
 *    Goal: ≤ 2× the bare parse at 1k to 50k messages, ≤ 3× on the loop-dense exports.
 * 2. Start-up: `--version` against a bare `node -e 0`. Goal: ≤ 2×.
 * 3. audit <folder> --json of the 1,000 sessions of bench/audit.ts against reading and
 *    parsing the same files. Goal: ≤ 2×.
 *
 * `tsx bench/speed.ts` prints the tables; bench/index.ts calls {@link speedBench}.
 */
import { execSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { formatTable, median } from "../e2e/table.js";
import { writeSyntheticExport, type SyntheticOptions } from "../test/support/synthetic.js";
import { writeCorpus } from "./audit.js";

const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));
const RSS = fileURLToPath(new URL("./support/rss.cjs", import.meta.url));
const PARSE = fileURLToPath(new URL("./support/parse.mjs", import.meta.url));
/** Release 0.4.0. */
const BEFORE_REV = "7ba5120";
const ROUNDS = 5;

/** One finished process: wall time from spawn to exit (ms) and its peak RSS (bytes). */
interface Run {
  readonly ms: number;
  readonly rssBytes: number;
}

/** Runs `node <args>` to the end, output thrown away; throws when it exits non-zero. */
function runNode(args: readonly string[]): Run {
  const started = performance.now();
  const result = spawnSync(process.execPath, ["--require", RSS, ...args], {
    cwd: PROJECT_ROOT,
    stdio: ["ignore", "ignore", "pipe", "pipe"],
    maxBuffer: 1 << 24,
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}: ${String(result.stderr).slice(0, 300)}`);
  return { ms, rssBytes: Number(String(result.output[3])) };
}

/** Medians (ms, bytes) of each command over ROUNDS rounds, the commands run in turn within a round. */
function alternate(commands: ReadonlyArray<readonly string[]>, rounds = ROUNDS): Run[] {
  const runs = commands.map(() => [] as Run[]);
  runNode(commands[0]!); // warm the file cache
  for (let round = 0; round < rounds; round++) commands.forEach((args, i) => runs[i]!.push(runNode(args)));
  return runs.map((list) => ({ ms: median(list.map((r) => r.ms))!, rssBytes: median(list.map((r) => r.rssBytes))! }));
}

/** Builds the executable of `rev` into a temporary folder (this checkout's node_modules); returns its bin.js and the folder. */
function buildBefore(rev: string): { bin: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "ocg-speed-before-"));
  execSync(`git archive ${rev} | tar -x -C ${JSON.stringify(dir)}`, { cwd: PROJECT_ROOT, stdio: "pipe" });
  symlinkSync(join(PROJECT_ROOT, "node_modules"), join(dir, "node_modules"));
  // The release's own sources and bundler, without type declarations (the bench runs JavaScript only).
  writeFileSync(
    join(dir, "tsup.config.ts"),
    `export default { entry: ["src/index.ts", "src/core.ts", "src/bin.ts"], format: ["esm"], target: "node20", platform: "node", clean: true, splitting: true };\n`,
  );
  execSync(`${JSON.stringify(process.execPath)} node_modules/tsup/dist/cli-default.js`, { cwd: dir, stdio: "pipe" });
  return { bin: join(dir, "dist", "bin.js"), dir };
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(0)} MB`;
const ms = (value: number): string => `${Math.round(value)} ms`;
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;

interface ReplayCase {
  readonly label: string;
  readonly messages: number;
  readonly options?: SyntheticOptions;
}

const REPLAY_CASES: readonly ReplayCase[] = [
  { label: "1k", messages: 1_000 },
  { label: "10k", messages: 10_000 },
  { label: "50k", messages: 50_000 },
  { label: "1k loop-dense", messages: 1_000, options: { cycleLength: 4, outputBytes: [200, 600] } },
  { label: "10k loop-dense", messages: 10_000, options: { cycleLength: 4, outputBytes: [200, 600] } },
];

function replayTable(dir: string, before: string, after: string): string {
  const rows = REPLAY_CASES.map((c) => {
    const file = join(dir, `replay-${c.messages}-${c.options?.cycleLength ?? 20}.json`);
    const bytes = writeSyntheticExport(file, c.messages, c.options);
    const [bare, old, now] = alternate([
      [PARSE, file],
      [before, "replay", file],
      [after, "replay", file],
    ]);
    return [
      c.label,
      mb(bytes),
      ms(bare!.ms),
      ms(old!.ms),
      ms(now!.ms),
      ratio(old!.ms, bare!.ms),
      ratio(now!.ms, bare!.ms),
      `${(old!.rssBytes / bytes).toFixed(1)}x`,
      `${(now!.rssBytes / bytes).toFixed(1)}x`,
      mb(now!.rssBytes),
    ];
  });
  return formatTable(
    [
      "messages",
      "file",
      "bare parse",
      "replay before",
      "replay after",
      "before / parse",
      "after / parse",
      "RSS / file before",
      "RSS / file after",
      "peak RSS after",
    ],
    rows,
  );
}

function startupTable(before: string, after: string): string {
  const [bare, old, now] = alternate(
    [
      ["-e", "0"],
      [before, "--version"],
      [after, "--version"],
    ],
    3 * ROUNDS,
  );
  return formatTable(
    ["node -e 0", "--version before", "--version after", "before / node", "after / node"],
    [[ms(bare!.ms), ms(old!.ms), ms(now!.ms), ratio(old!.ms, bare!.ms), ratio(now!.ms, bare!.ms)]],
  );
}

function auditTable(root: string, before: string, after: string): string {
  const corpus = writeCorpus(root);
  const [bare, old, now] = alternate([
    [PARSE, corpus.all],
    [before, "audit", corpus.all, "--json"],
    [after, "audit", corpus.all, "--json"],
  ]);
  return formatTable(
    ["sessions", "files", "read + parse", "audit before", "audit after", "before / parse", "after / parse", "peak RSS after"],
    [
      [
        "1,000",
        mb(corpus.totalBytes),
        ms(bare!.ms),
        ms(old!.ms),
        ms(now!.ms),
        ratio(old!.ms, bare!.ms),
        ratio(now!.ms, bare!.ms),
        mb(now!.rssBytes),
      ],
    ],
  );
}

/**
 * Runs the speed bench (needs `dist/`: npm run bench builds it, and git to build "before").
 * @returns the printed tables, with a heading each.
 */
export async function speedBench(): Promise<string> {
  const rev = process.env.BENCH_BEFORE ?? BEFORE_REV;
  const before = buildBefore(rev);
  const after = join(PROJECT_ROOT, "dist", "cli", "bin.js");
  const dir = mkdtempSync(join(tmpdir(), "ocg-speed-"));
  try {
    const heading = `(Node ${process.version}; before = ${rev}, after = this checkout; medians of ${ROUNDS} rounds of fresh processes run in turn)`;
    return [
      `replay <export> against a bare readFileSync + JSON.parse of the same file ${heading}; goal: after / parse <= 2x, loop-dense <= 3x:`,
      replayTable(dir, before.bin, after),
      "",
      `start-up, --version against a bare node -e 0 (${3 * ROUNDS} rounds); goal: after / node <= 2x:`,
      startupTable(before.bin, after),
      "",
      "audit <folder> --json against reading and parsing the same files; goal: after / parse <= 2x:",
      auditTable(dir, before.bin, after),
    ].join("\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(before.dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await speedBench());
}

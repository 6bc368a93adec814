/**
 * Audit bench: `audit <folder> --json` over 1,000 session exports, end to end.
 *
 * The corpus (written to a temp dir): 899 copies of the real exports under fixtures/
 * (e2e runs, judgement and review cases; 2–150 KB each, each copy with its own session id),
 * 100 synthetic sessions of 400 messages (~1 MB each: a long working session with a
 * compaction every 20 messages) and one synthetic session of 5,000 messages (~13 MB), the
 * largest. The first 100 files (the large one among them) are also audited alone.
 *
 * Each figure comes from a fresh process: the built executable (`node dist/cli/bin.js audit
 * <dir> --json`, wall time from spawn to exit), and the CLI's `main()` in a process of its
 * own reporting peak RSS and peak heap (sampled between sessions). Goal: 1,000 sessions in
 * under 30 s; memory bounded by the largest session, not the sum (100 vs 1,000 sessions).
 *
 * `tsx bench/audit.ts` prints the table; bench/index.ts calls {@link auditBench}.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { formatInt, formatTable } from "../e2e/table.js";
import { main } from "../src/cli/main.js";
import { writeSyntheticExport } from "../test/support/synthetic.js";

const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const BIN = join(PROJECT_ROOT, "dist", "cli", "bin.js");
const run = promisify(execFile);

/** What the measuring process reports. Times in ms, memory in bytes. */
interface Measure {
  wallMs: number;
  sessions: number;
  maxRssBytes: number;
  peakHeapBytes: number;
  /** Heap still used after the audit, after a full GC (what the audit retained plus the process's own). */
  retainedHeapBytes: number;
}

/** In a fresh process: `main(["audit", dir, "--json"])`, sampling the heap every 2 ms while it runs. */
async function measure(dir: string): Promise<Measure> {
  let peakHeap = process.memoryUsage().heapUsed;
  const timer = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 2);
  let stdout = "";
  const started = performance.now();
  const code = await main(
    ["audit", dir, "--json"],
    (t) => (stdout += t),
    () => undefined,
    {},
  );
  const wallMs = performance.now() - started;
  clearInterval(timer);
  if (code !== 0) throw new Error(`audit exited ${code}`);
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  const sessions = (JSON.parse(stdout) as { totals: { sessions: number } }).totals.sessions;
  (globalThis as { gc?: () => void }).gc?.();
  const retainedHeapBytes = process.memoryUsage().heapUsed;
  return { wallMs, sessions, maxRssBytes: process.resourceUsage().maxRSS * 1024, peakHeapBytes: peakHeap, retainedHeapBytes };
}

/** Every export file under fixtures/ (the expectation and note files are not exports). */
function fixtureExports(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".json") && !["expect.json", "notes.json"].includes(entry.name)) found.push(path);
    }
  };
  walk(join(PROJECT_ROOT, "fixtures"));
  return found.sort();
}

/**
 * Writes the corpus: `large.json` first (5,000 messages), then synthetic and fixture copies interleaved.
 * @returns the folder of all 1,000 and the folder of the first 100, and the largest file's size in bytes.
 */
export function writeCorpus(root: string): { all: string; first100: string; largestBytes: number; totalBytes: number } {
  const all = join(root, "all");
  const first100 = join(root, "first100");
  mkdirSync(all);
  mkdirSync(first100);
  const names: string[] = [];
  const largestBytes = writeSyntheticExport(join(all, "0000-large.json"), 5_000, { sessionID: "ses_bench_large", seed: 7 });
  names.push("0000-large.json");
  const fixtures = fixtureExports().map((path) => readFileSync(path, "utf8"));
  let synthetic = 0;
  let copy = 0;
  for (let i = 1; i < 1_000; i++) {
    const name = `${String(i).padStart(4, "0")}.json`;
    if (i % 10 === 5 && synthetic < 100) {
      writeSyntheticExport(join(all, name), 400, { sessionID: `ses_bench_s${synthetic}`, seed: synthetic + 1 });
      synthetic += 1;
    } else {
      const text = fixtures[copy % fixtures.length]!;
      const json = JSON.parse(text) as { info: { id: string } };
      json.info.id = `ses_bench_c${copy}`;
      writeFileSync(join(all, name), JSON.stringify(json));
      copy += 1;
    }
    names.push(name);
  }
  let totalBytes = 0;
  for (const [i, name] of names.entries()) {
    const bytes = readFileSync(join(all, name));
    totalBytes += bytes.length;
    if (i < 100) writeFileSync(join(first100, name), bytes);
  }
  return { all, first100, largestBytes, totalBytes };
}

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

async function inFreshProcess(dir: string): Promise<Measure> {
  const { stdout } = await run(process.execPath, ["--expose-gc", "--import", "tsx", SELF, "--measure", dir], {
    cwd: PROJECT_ROOT,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as Measure;
}

/**
 * Wall time (ms) of the built executable, from spawn to exit; `heapMiB` caps V8's old space (`--max-old-space-size`).
 * @throws when it did not read every file of `dir` as a session (none may be skipped).
 */
async function builtBin(dir: string, heapMiB?: number): Promise<number> {
  const started = performance.now();
  const node = heapMiB === undefined ? [] : [`--max-old-space-size=${heapMiB}`];
  const { stdout, stderr } = await run(process.execPath, [...node, BIN, "audit", dir, "--json"], {
    cwd: PROJECT_ROOT,
    maxBuffer: 64 << 20,
  });
  const wallMs = performance.now() - started;
  const read = (JSON.parse(stdout) as { totals: { sessions: number } }).totals.sessions;
  if (read !== readdirSync(dir).length || stderr !== "") throw new Error(`audit of ${dir} read ${read} sessions: ${stderr.slice(0, 300)}`);
  return wallMs;
}

/** A heap cap (MiB) a little over what the largest session needs (readExport's 4.5 bytes of heap per byte of export). */
const CAPPED_HEAP_MIB = 96;

/**
 * Runs the audit bench (needs `dist/`: npm run bench builds it).
 * @returns the printed table, with a heading.
 */
export async function auditBench(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), "ocg-audit-bench-"));
  try {
    const corpus = writeCorpus(root);
    const rows: string[][] = [];
    const figures: Record<string, { bin: number; m: Measure }> = {};
    for (const [label, dir] of [
      ["100", corpus.first100],
      ["1,000", corpus.all],
    ] as const) {
      const bin = await builtBin(dir);
      const m = await inFreshProcess(dir);
      figures[label] = { bin, m };
      const bytes = readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
      rows.push([
        label,
        formatInt(m.sessions),
        mb(bytes),
        `${(bin / 1000).toFixed(1)} s`,
        `${(m.wallMs / 1000).toFixed(1)} s`,
        mb(m.maxRssBytes),
        mb(m.peakHeapBytes),
        mb(m.retainedHeapBytes),
      ]);
    }
    // The same 1,000 sessions with V8's old space capped near what the largest one alone needs: it still runs.
    const capped = await builtBin(corpus.all, CAPPED_HEAP_MIB);
    const all = figures["1,000"]!;
    const few = figures["100"]!;
    const bytes100 = readdirSync(corpus.first100).reduce((sum, name) => sum + statSync(join(corpus.first100, name)).size, 0);
    const verdict = all.bin < 30_000 ? "under" : "OVER";
    return [
      `audit <folder> --json (Node ${process.version}; fresh processes; largest session ${mb(corpus.largestBytes)}, 5,000 messages):`,
      formatTable(["sessions", "read", "files", "dist/cli/bin.js wall", "main() wall", "peak RSS", "peak heap", "heap after (GC)"], rows),
      `1,000 sessions (${mb(corpus.totalBytes)}) audited in ${(all.bin / 1000).toFixed(1)} s end to end, ${verdict} the 30 s goal; ` +
        `peak RSS ${mb(all.m.maxRssBytes)} for 1,000 sessions vs ${mb(few.m.maxRssBytes)} for 100: ` +
        `${(corpus.totalBytes / bytes100).toFixed(1)}x the bytes, ${(all.m.maxRssBytes / few.m.maxRssBytes).toFixed(2)}x the peak ` +
        `(the largest session, ${mb(corpus.largestBytes)}, is in both; one session is held at a time, the rest is garbage not yet collected).`,
      `With node --max-old-space-size=${CAPPED_HEAP_MIB} (the largest session alone needs about ${Math.ceil((corpus.largestBytes * 4.5) / 2 ** 20)} MiB ` +
        `to replay) the 1,000 sessions still audit, in ${(capped / 1000).toFixed(1)} s: the heap a run needs is the largest session's.`,
    ].join("\n");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--measure") {
  process.stdout.write(JSON.stringify(await measure(process.argv[3]!)));
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await auditBench());
}

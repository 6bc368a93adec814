/**
 * Mixed-agents audit bench: `audit <folder> --json` over 1,000 files, a third each opencode
 * exports, Claude Code transcripts and Codex rollouts (synthetic sessions of 400 messages,
 * each written in the three formats by test/support/transcripts.ts, each file with its own
 * session id), against reading and parsing the same files (every file read, an export
 * `JSON.parse`d, a transcript's every line `JSON.parse`d). Goal: the audit within 2× that.
 *
 * Both figures come from this process, best of three, the audit through the CLI's `main()`;
 * then the same for each format's third alone. `tsx bench/hosts.ts` prints them; `npm run
 * bench` calls {@link hostsBench}.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { main } from "../src/cli/main.js";
import { buildTimeline } from "../src/hosts/opencode/v1.js";
import { syntheticExport } from "../test/support/synthetic.js";
import { toClaudeCode, toCodex } from "../test/support/transcripts.js";

const FILES = 1_000;
/** Messages a session: a long working session (the opencode export is ~1 MB). */
const MESSAGES = 400;

function corpus(dir: string, only?: number): number {
  let bytes = 0;
  for (let i = 0; i < FILES; i++) {
    if (only !== undefined && i % 3 !== only) continue;
    const id = `ses_bench_${i}`;
    const session = syntheticExport(MESSAGES, { sessionID: id, seed: i + 1 });
    const kind = i % 3;
    const text =
      kind === 0
        ? JSON.stringify(session)
        : kind === 1
          ? toClaudeCode(buildTimeline(session.messages), id)
          : toCodex(buildTimeline(session.messages), id);
    const name = kind === 0 ? `${id}.json` : `${id}.jsonl`;
    writeFileSync(join(dir, name), text);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}

/** Reads and parses every file of `dir`: the floor any audit of them pays. */
function readAndParse(dir: string): number {
  let records = 0;
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), "utf8");
    if (name.endsWith(".json")) {
      JSON.parse(text);
      records += 1;
    } else {
      for (const line of text.split("\n")) if (line !== "") records += JSON.parse(line) ? 1 : 0;
    }
  }
  return records;
}

async function audit(dir: string): Promise<number> {
  let out = "";
  const code = await main(
    ["audit", dir, "--json"],
    (t) => void (out += t),
    () => undefined,
    {},
  );
  if (code !== 0) throw new Error(`audit exited ${code}`);
  return (JSON.parse(out) as { totals: { sessions: number } }).totals.sessions;
}

const best = async (run: () => unknown): Promise<number> => {
  let min = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await run();
    min = Math.min(min, performance.now() - started);
  }
  return min;
};

/**
 * Runs the mixed-agents audit bench: the mixed folder, then each format's third alone.
 * @returns one line a folder: files, MB, read-and-parse and audit times (ms, best of three), their ratio.
 */
export async function hostsBench(): Promise<string> {
  const lines = [
    "audit <folder> --json of 1,000 mixed files (opencode, Claude Code, Codex) against reading and parsing them; goal: <= 2x:",
  ];
  const root = mkdtempSync(join(tmpdir(), "ocg-bench-hosts-"));
  try {
    for (const [label, only] of [
      ["mixed", undefined],
      ["opencode", 0],
      ["claude-code", 1],
      ["codex", 2],
    ] as const) {
      const dir = join(root, label);
      mkdirSync(dir);
      const bytes = corpus(dir, only);
      const sessions = await audit(dir);
      const floor = await best(() => readAndParse(dir));
      const full = await best(() => audit(dir));
      lines.push(
        `${label}: ${sessions} files (${Math.round(bytes / 1e6)} MB): read and parse ${Math.round(floor)} ms, audit --json ${Math.round(full)} ms, ${(full / floor).toFixed(2)}x`,
      );
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return lines.join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) console.log(await hostsBench());

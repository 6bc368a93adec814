/**
 * The commands README.md and docs/*.md show with their output, found and run.
 *
 * The convention, in the Markdown source: a fenced block whose info string is `console`
 * holds commands and their output. A line starting with `$ ` is a command (a line ending in
 * ` \` goes on with the next), every other line is what the command before it prints
 * (standard output and standard error together). A line `…` alone stands for any lines (none
 * included), and `…` inside a line for any text (an id, a time). `$ cd <dir>` changes the
 * folder the next commands run in (from the project root). `opencode-compaction-guard` and
 * `npx opencode-compaction-guard` run the built CLI (`dist/cli/bin.js`). A block that the
 * unit tests cannot run (it needs opencode or a network) carries, on the line before its
 * fence, `<!-- docs-test: not run: <reason> -->`, the reason shown in the doc's source.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
export const CLI = join(ROOT, "dist/cli/bin.js");
/** README.md and every page of docs/. */
export const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const NOT_RUN = /^<!-- docs-test: not run: (.+?) -->$/;

/** One command of a block and the lines it prints. */
export interface Step {
  readonly command: string;
  readonly expected: string[];
}

/** One `console` block of a page: its first line (1-based), why it is not run (or null), its steps. */
export interface Block {
  readonly page: string;
  readonly line: number;
  readonly skip: string | null;
  readonly steps: Step[];
}

/** The `console` blocks of one Markdown page (a path from the project root), in order. */
export function consoleBlocks(page: string): Block[] {
  const lines = readFileSync(join(ROOT, page), "utf8").split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "```console") continue;
    const block: Block = { page, line: i + 1, skip: NOT_RUN.exec(lines[i - 1] ?? "")?.[1] ?? null, steps: [] };
    for (i++; i < lines.length && lines[i] !== "```"; i++) {
      const line = lines[i]!;
      if (line.startsWith("$ ")) {
        let command = line.slice(2);
        while (command.endsWith("\\") && i + 1 < lines.length) command = `${command.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
        block.steps.push({ command, expected: [] });
      } else if (block.steps.length === 0) throw new Error(`${page}:${i + 1}: output before any command`);
      else block.steps.at(-1)!.expected.push(line);
    }
    blocks.push(block);
  }
  return blocks;
}

/** Lines as compared: the clone's path written `/path/to/clone`, trailing spaces and blank ends dropped. */
export function normalise(text: string): string[] {
  const lines = text
    .split(ROOT)
    .join("/path/to/clone")
    .split("\n")
    .map((l) => l.trimEnd());
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  return lines;
}

/** Whether one printed line is the shown one, where `…` in the shown line stands for any text. */
const lineMatches = (expected: string, actual: string): boolean =>
  expected === actual ||
  (expected.includes("…") &&
    new RegExp(
      `^${expected
        .split("…")
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
    ).test(actual));

/** Whether `actual` is `expected`, where a line `…` of `expected` stands for any lines. */
export function matches(expected: readonly string[], actual: readonly string[]): boolean {
  const go = (e: number, a: number): boolean => {
    if (e === expected.length) return a === actual.length;
    if (expected[e] === "…") {
      for (let k = a; k <= actual.length; k++) if (go(e + 1, k)) return true;
      return false;
    }
    return a < actual.length && lineMatches(expected[e]!, actual[a]!) && go(e + 1, a + 1);
  };
  return go(0, 0);
}

/** A folder holding `opencode-compaction-guard`, a shell script that runs the built CLI; put it first on PATH. */
export function cliBin(): string {
  const bin = mkdtempSync(join(tmpdir(), "docs-test-bin-"));
  writeFileSync(join(bin, "opencode-compaction-guard"), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, "opencode-compaction-guard"), 0o755);
  return bin;
}

/** What one step printed and what the block shows, both normalised, and whether they match. */
export interface StepResult {
  readonly command: string;
  readonly expected: string[];
  readonly actual: string[];
  readonly ok: boolean;
}

/**
 * Runs a block's commands in bash, one after the other, from `cwd` (default: the project
 * root; `$ cd <dir>` moves it), with `env` (its PATH should start with {@link cliBin}'s
 * folder), each for at most `timeoutMs`. Never throws for a failing command: its output is compared.
 */
export function runBlock(block: Block, env: NodeJS.ProcessEnv, cwd: string = ROOT, timeoutMs = 60_000): StepResult[] {
  const results: StepResult[] = [];
  let here = cwd;
  for (const { command, expected } of block.steps) {
    const cd = /^cd (\S+)$/.exec(command);
    if (cd) {
      here = join(here, cd[1]!);
      results.push({ command, expected, actual: [], ok: expected.length === 0 });
      continue;
    }
    const run = command.replace(/\bnpx opencode-compaction-guard\b/g, "opencode-compaction-guard");
    const r = spawnSync("bash", ["-c", `exec 2>&1\n${run}`], {
      cwd: here,
      env,
      encoding: "utf8",
      timeout: timeoutMs,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const actual = normalise(r.stdout ?? "");
    const want = normalise(expected.join("\n"));
    results.push({ command, expected: want, actual, ok: matches(want, actual) });
  }
  return results;
}

/**
 * The environment of a reader's shell: this machine's `OPENCODE_COMPACTION_GUARD_*` settings
 * and its global settings file left out (`XDG_CONFIG_HOME` names a folder that is not there),
 * UTC, `bin` first on PATH.
 */
export function readerEnv(bin: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("OPENCODE_COMPACTION_GUARD_")) out[k] = v;
  return { ...out, PATH: `${bin}:${process.env.PATH ?? ""}`, TZ: "UTC", NO_COLOR: "1", XDG_CONFIG_HOME: `${bin}/no-config`, ...extra };
}

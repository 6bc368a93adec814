/**
 * The golden record of the judgement: the exact bytes `replay --json` prints for every session
 * file under fixtures/ and test/fixtures/ and for the generator's sessions of 20 seeds, kept as
 * one SHA-256 per case in test/golden/replay.json. A change that moves any byte of any
 * decision shows up by case name; `npm run golden -- --write` records a deliberate change and
 * `npm run golden -- --out DIR` writes every output, to diff two commits' bytes.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../../src/cli/main.js";
import { KINDS } from "./judgement3/score.js";
// @ts-expect-error: a plain JavaScript module without types
import { generate } from "./judgement3/gen.mjs";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const RECORD = join(ROOT, "test/golden/replay.json");

/** The generator's seeds in the record: its sample's seed, then 19 spread out. */
export const GOLDEN_SEEDS: readonly number[] = [1, ...Array.from({ length: 19 }, (_, i) => 2001 + i * 53)];

/** One case: its name in the record, the file replayed, the replay flags its expect.json gives. */
export interface GoldenCase {
  readonly name: string;
  readonly file: string;
  readonly flags: readonly string[];
}

/** The flags each case of a folder's expect.json names, by file stem. */
function flagsOf(dir: string): Map<string, readonly string[]> {
  try {
    const expected = JSON.parse(readFileSync(join(dir, "expect.json"), "utf8")) as Record<string, { flags?: string[] }>;
    return new Map(Object.entries(expected).map(([name, want]) => [name, want.flags ?? []]));
  } catch {
    return new Map();
  }
}

/** Every session file (`.json` but expect.json, `.jsonl`) under the fixture folders, by path. */
function fixtureCases(): GoldenCase[] {
  const cases: GoldenCase[] = [];
  const walk = (dir: string) => {
    const flags = flagsOf(dir);
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.jsonl?$/.test(entry.name) && entry.name !== "expect.json") {
        const stem = entry.name.replace(/\.jsonl?$/, "");
        cases.push({ name: relative(ROOT, path), file: path, flags: flags.get(stem) ?? [] });
      }
    }
  };
  walk(join(ROOT, "fixtures"));
  walk(join(ROOT, "test/fixtures"));
  return cases;
}

/** The bytes `replay <file> --json <flags>` prints, or for a file it refuses, its exit code and error. */
export async function replayBytes(file: string, flags: readonly string[]): Promise<string> {
  let out = "";
  let err = "";
  const code = await main(
    ["replay", file, "--json", ...flags],
    (t) => void (out += t),
    (t) => void (err += t),
    {},
  );
  return code === 0 ? out : `exit ${code}: ${err}`;
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Replays every case and calls `each` with its name and bytes; returns the record, name → SHA-256.
 * The generator's sessions are written to a temporary folder first, as `gen.mjs --out` would.
 */
export async function goldenRecord(each: (name: string, bytes: string) => void = () => {}): Promise<Record<string, string>> {
  const record: Record<string, string> = {};
  const take = async (name: string, file: string, flags: readonly string[]) => {
    const bytes = await replayBytes(file, flags);
    // The file's own path is in the output; the record holds it relative to the root.
    const stable = bytes.split(file).join(name);
    record[name] = sha(stable);
    each(name, stable);
  };
  for (const c of fixtureCases()) await take(c.name, c.file, c.flags);
  const dir = mkdtempSync(join(tmpdir(), "golden-"));
  try {
    for (const seed of GOLDEN_SEEDS) {
      const { cases, expect } = generate(seed, 1, KINDS) as {
        cases: Record<string, unknown>;
        expect: Record<string, { flags?: string[] }>;
      };
      for (const [name, session] of Object.entries(cases)) {
        const file = join(dir, `${name}.json`);
        writeFileSync(file, JSON.stringify(session));
        await take(`seed-${seed}/${name}`, file, expect[name]?.flags ?? []);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return record;
}

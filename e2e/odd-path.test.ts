/**
 * The built executable from a folder whose path has the characters a file URL escapes (`#`,
 * `?`, `%41`): what it loads on first use from beside itself (zod, for a setting's text or an
 * export that fails the hand-written check; the pictures) must be found there. The CommonJS
 * bundle's `import.meta.url` is this file's URL, escaped (tsup.config.ts).
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "./sandbox.js";

const run = promisify(execFile);
const FIXTURE = join(PROJECT_ROOT, "fixtures", "e2e-fixed-point.json");
let root: string;
let bin: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "ocg-odd-path-"));
  const project = join(root, "C# work?", "guard%41");
  await mkdir(project, { recursive: true });
  await cp(join(PROJECT_ROOT, "dist"), join(project, "dist"), { recursive: true });
  await cp(join(PROJECT_ROOT, "package.json"), join(project, "package.json"));
  await symlink(join(PROJECT_ROOT, "node_modules"), join(project, "node_modules"));
  bin = join(project, "dist", "cli", "bin.js");
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs the copied executable; its exit code and output. */
async function guard(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [bin, ...args]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe("the executable in a folder named with # ? and %", () => {
  it("reads a setting's text (zod) and draws the chart (pictures.mjs)", async () => {
    const set = await guard("replay", FIXTURE, "--threshold", "4", "--chart");
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/^session ses_\S+: 2 automatic compactions;/);
    expect(set.stdout).toContain("first deny at compaction 2 (no-progress)");
  });

  it("says what is wrong with a setting and with an export, in one line each", async () => {
    const bad = await guard("replay", FIXTURE, "--threshold", "abc");
    expect(bad).toEqual({
      code: 2,
      stdout: "",
      stderr: 'opencode-compaction-guard: --threshold: threshold must be an integer from 2 to 1000, got "abc"\n',
    });
    const file = join(root, "not-an-export.json");
    await writeFile(file, JSON.stringify({ info: { id: "x" }, messages: [{ info: {} }] }));
    const malformed = await guard("replay", file);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toBe(
      `opencode-compaction-guard: ${file}: not an opencode session export (no \`messages[0].info.id\` string)\n`,
    );
  });
});

/**
 * Paths that are not regular files: a FIFO (made with mkfifo, no writer), a character
 * device that never ends (/dev/zero), a socket. `replay` and `audit` never open them: one
 * line each, exit 2 when nothing else is left, and they return at once (a test timeout
 * bounds each run; before, `replay` on a FIFO waited forever and on /dev/zero read until
 * memory ran out). In-process, but for one run of the real executable; and a process whose
 * thread pool is stuck in `open()` still ends on SIGINT / SIGTERM.
 */
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { constants as osConstants, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findExports } from "../../src/sources/files.js";
import { cli } from "../support/cli.js";
import { readExport } from "../../src/sources/export.js";

const BIN = fileURLToPath(new URL("../../src/bin.ts", import.meta.url));
const STUCK = fileURLToPath(new URL("../support/stuck-open.ts", import.meta.url));
const FIXTURE = fileURLToPath(new URL("../../fixtures/e2e-healthy.json", import.meta.url));

const dir = mkdtempSync(join(tmpdir(), "ocg-special-"));
const fifo = join(dir, "pipe.json");
const socketPath = join(dir, "socket.json");
const server = createServer();
beforeAll(async () => {
  execFileSync("mkfifo", [fifo]);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
});
afterAll(() => {
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the real executable; resolves with its exit code and what it printed. */
function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", BIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("replay: a path that is not a regular file is refused before it is opened", () => {
  it.each([
    [fifo, `${fifo}: is a named pipe (FIFO), not a file; to read from it, give it as standard input (replay - < ${fifo})`],
    ["/dev/zero", "/dev/zero: is a character device, not a file"],
    [socketPath, `${socketPath}: is a socket, not a file`],
  ])(
    "%s: exit 2, one line",
    async (path, line) => {
      expect(await cli(["replay", path])).toEqual({ code: 2, stdout: "", stderr: `opencode-compaction-guard: ${line}\n` });
    },
    5_000,
  );

  it("the executable on a FIFO: exit 2 at once", async () => {
    expect(await run(["replay", fifo])).toEqual({
      code: 2,
      stdout: "",
      stderr: `opencode-compaction-guard: ${fifo}: is a named pipe (FIFO), not a file; to read from it, give it as standard input (replay - < ${fifo})\n`,
    });
  }, 20_000);

  it("readExport says the same without the CLI", async () => {
    await expect(readExport("/dev/zero")).rejects.toThrow(/^\/dev\/zero: is a character device, not a file$/);
  });
});

describe("audit: such paths are skipped with one line each, given or in a folder", () => {
  it("given on the command line, among an export: the export is read", async () => {
    const { code, stdout, stderr } = await cli(["audit", fifo, "/dev/zero", socketPath, FIXTURE, "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).totals.sessions).toBe(1);
    expect(stderr).toBe(
      [
        `skipped ${fifo}: is a named pipe (FIFO), not an export file`,
        "skipped /dev/zero: is a character device, not an export file",
        `skipped ${socketPath}: is a socket, not an export file`,
        "",
      ].join("\n"),
    );
  }, 5_000);

  it("alone: exit 2 after the skipped lines", async () => {
    expect(await cli(["audit", fifo])).toEqual({
      code: 2,
      stdout: "",
      stderr: `skipped ${fifo}: is a named pipe (FIFO), not an export file\nopencode-compaction-guard: nothing to audit: no opencode session export in the file given (each file passed over is named above)\n`,
    });
  }, 5_000);

  it("in a folder: listed as skipped, never yielded as a file", async () => {
    const folder = mkdtempSync(join(dir, "folder-"));
    execFileSync("mkfifo", [join(folder, "b.json")]);
    copyFileSync(FIXTURE, join(folder, "a.json"));
    const found = [];
    for await (const item of findExports([folder])) found.push(item);
    expect(found).toEqual([
      { kind: "file", path: join(folder, "a.json") },
      { kind: "skipped", line: `${join(folder, "b.json")}: is a named pipe (FIFO), not an export file` },
    ]);
    const { code, stderr } = await cli(["audit", folder, "--json"]);
    expect([code, stderr]).toEqual([0, `skipped ${join(folder, "b.json")}: is a named pipe (FIFO), not an export file\n`]);
  }, 5_000);
});

describe("SIGINT / SIGTERM end the process while a thread is stuck in open()", () => {
  it.each(["SIGINT", "SIGTERM"] as const)(
    "%s: ended by the signal (the shell's 128 + its number)",
    async (signal) => {
      const child = spawn(process.execPath, ["--import", "tsx", STUCK, fifo], { stdio: ["ignore", "pipe", "inherit"] });
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      const ended = new Promise<number>((resolve) => child.on("exit", (code, by) => resolve(code ?? 128 + osConstants.signals[by!])));
      child.kill(signal);
      expect(await ended).toBe(signal === "SIGINT" ? 130 : 143);
    },
    20_000,
  );
});

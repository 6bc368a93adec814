/**
 * `npm run try` (e2e/try.ts), run as a user would but without a terminal: it leaves the
 * scratch project and its launcher, its server answers, the launcher's opencode (headless
 * here: `run` instead of the TUI) loads the plugin from this clone and the guard stops the
 * loop at compaction 1, the export command it prints works, the script docs/what-you-see.md
 * shows for telling a guarded stop apart under `opencode run` prints what it shows there, and
 * SIGTERM stops the server.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync, symlinkSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PLUGIN_ENTRY } from "./replay.js";
import { PROJECT_ROOT } from "./sandbox.js";
import { cliBin, consoleBlocks, readerEnv, runBlock } from "../test/support/doc-blocks.js";

/**
 * Runs the launcher with `args`, standard input closed (`opencode run` reads a piped one as
 * the prompt), standard output to `outFile` when given (`opencode export` cuts what it
 * writes to a pipe). Rejects after 90 s.
 */
function launch(launcher: string, args: string[], outFile?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const fd = outFile === undefined ? undefined : openSync(outFile, "w");
  const child = spawn(launcher, args, { stdio: ["ignore", fd ?? "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`${args[0]} did not end within 90 s:\n${stderr.slice(-2000)}`));
    }, 90_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (fd !== undefined) closeSync(fd);
      done({ code, stdout, stderr });
    });
  });
}

/** The built CLI's standard output for `args`. */
async function launchNode(args: string[]): Promise<string> {
  return (await promisify(execFile)(process.execPath, [join(PROJECT_ROOT, "dist", "cli", "bin.js"), ...args])).stdout;
}

describe("npm run try", () => {
  let dir: string;
  let child: ChildProcess;
  let printed = "";
  let exited: Promise<number | null>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ocg-try-"));
    child = spawn(process.execPath, ["--import", "tsx", join(PROJECT_ROOT, "e2e", "try.ts"), "--dir", dir], {
      cwd: PROJECT_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    exited = new Promise((done) => child.on("exit", (code) => done(code)));
    child.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    const started = Date.now();
    while (!printed.includes("until you press Ctrl-C")) {
      if (Date.now() - started > 60_000 || child.exitCode !== null) throw new Error(`try.ts did not get ready:\n${printed}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  afterAll(async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
  });

  it("prints the one command to open the TUI, the log folder and the export command", () => {
    const launcher = join(dir, "opencode.sh");
    expect(printed).toContain(`In another terminal, open the opencode TUI there:\n\n  ${launcher}\n`);
    expect(printed).toContain(`The guard's log lines: ${join(dir, "data", "opencode", "log")}/`);
    expect(printed).toContain(`An export of the session: ${launcher} export <ses_…> > ${join(dir, "session.json")}`);
  });

  it("writes opencode.json wired to its server and to the plugin built from this clone; the server answers", async () => {
    const config = JSON.parse(await readFile(join(dir, "project", "opencode.json"), "utf8")) as {
      plugin: Array<[string, Record<string, unknown>]>;
      provider: { fake: { options: { baseURL: string } } };
    };
    expect(config.plugin).toEqual([[pathToFileURL(PLUGIN_ENTRY).href, { notify: "toast" }]]);
    const baseURL = config.provider.fake.options.baseURL;
    expect(printed).toContain(`scripted model server on ${baseURL}:`);
    // The server's own 404 for a route it does not serve: it is listening.
    const response = await fetch(`${baseURL}/models`);
    expect(response.status).toBe(404);
    expect(((await stat(join(dir, "opencode.sh"))).mode & 0o111) !== 0).toBe(true);
  });

  it("the launcher runs the real opencode there: the guard stops the loop, and the export command works", async () => {
    const launcher = join(dir, "opencode.sh");
    const { code, stdout, stderr } = await launch(launcher, ["run", "--print-logs", "--format", "json", "fix the build"]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/compaction-guard \S+ loaded: /);
    // The system prompt and tools alone are over the usable context: cannot-make-room stops it at the first compaction.
    expect(stderr).toMatch(/compaction-guard stopped auto-continue in session .* after compaction 1 .*: cannot-make-room: /);
    const sessionID = /"sessionID":"(ses_[^"]+)"/.exec(stdout)?.[1];
    expect(sessionID).toBeDefined();
    const file = join(dir, "session.json");
    expect((await launch(launcher, ["export", sessionID!], file)).code).toBe(0);
    expect((JSON.parse(await readFile(file, "utf8")) as { info: { id: string } }).info.id).toBe(sessionID);
    // The export holds the guard's note, and audit reports the loop as stopped by the guard.
    const audit = await launchNode(["audit", file, "--context-limit", "8000", "--output-limit", "2000", "--json"]);
    const json = JSON.parse(audit) as { sessions: Array<{ firstDeny: number; stoppedByGuard: boolean }>; totals: Record<string, number> };
    expect(json.sessions).toMatchObject([{ firstDeny: 1, stoppedByGuard: true, continuesSaved: 0, tokensAfterDeny: 0 }]);
    expect(json.totals).toMatchObject({ looping: 0, stoppedByGuard: 1 });
    expect(await readFile(file, "utf8")).toContain('"compaction_guard"');
  });

  it("docs/what-you-see.md's script tells the guarded stop apart: exit 0, then the export's live guard line", async () => {
    const [block, ...more] = consoleBlocks("docs/what-you-see.md").filter((b) => b.skip?.includes("e2e/try.test.ts"));
    expect(more).toEqual([]);
    // opencode on PATH is the scratch project's launcher; the commands run in a folder of their own.
    const bin = cliBin();
    symlinkSync(join(dir, "opencode.sh"), join(bin, "opencode"));
    const here = join(dir, "script");
    await mkdir(here);
    try {
      const steps = runBlock(block!, readerEnv(bin), here, 90_000);
      for (const step of steps) if (!step.ok) expect(step.actual.join("\n"), `$ ${step.command}`).toBe(step.expected.join("\n"));
      expect(steps.map((s) => s.ok)).toEqual([true, true, true]);
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });

  it("SIGTERM stops the server and exits 0", async () => {
    const baseURL = /scripted model server on (\S+):/.exec(printed)![1]!;
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(printed).toMatch(/SIGTERM: the scripted model server stopped \(\d+ requests answered\)\./);
    await expect(fetch(`${baseURL}/models`)).rejects.toThrow();
  });
});

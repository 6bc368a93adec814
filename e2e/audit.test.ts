/**
 * `audit` with no path, against the real opencode 1.18.33: three runs in one sandbox (one
 * opencode storage, as one user's): a fixed-point loop without the guard, a healthy session,
 * and a session whose `task` call starts a subagent (whose own session compacts once). The
 * built CLI then reads them back through `opencode serve` and must list exactly the sessions
 * with compactions, with the first deny `replay` finds in each session's export (replayed
 * with the fake model's limits as flags), the subagent's session labelled with its parent,
 * and totals that count all four sessions. No limit flag is given to the audit: it takes the
 * fake model's limits from opencode (the user's global config lists the fake provider too, as
 * audit reads the global config, not a project's), so every row's usable context is
 * 8,000 − 2,000 = 6,000 tokens; flags given override them for every session.
 */
import type { AuditJson, AuditSession } from "../src/audit/types.js";
import { execFile, spawn } from "node:child_process";
import { mkdir, open, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScenario, type ScenarioRun } from "./harness.js";
import { replayCli, replayExport } from "./replay.js";
import { createSandbox, opencodeConfig, type Sandbox } from "./sandbox.js";
import { MODEL_LIMITS, SUBAGENT_TASK, USABLE_TOKENS } from "./scenarios.js";

const LIMIT_FLAGS = ["--context-limit", String(MODEL_LIMITS.context), "--output-limit", String(MODEL_LIMITS.output)];

let sandbox: Sandbox;
const runs: Record<"loop" | "healthy" | "subagent", ScenarioRun> = {} as never;
let exportsDir: string;

/** `opencode export <id>` into a file (a pipe can cut it at 64–128 KiB). */
async function exportToFile(sessionID: string): Promise<string> {
  const file = join(exportsDir, `${sessionID}.json`);
  const handle = await open(file, "w");
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(sandbox.opencodeBin, ["export", sessionID], {
        cwd: sandbox.project,
        env: sandbox.env,
        stdio: ["ignore", handle.fd, "ignore"],
      });
      child.on("error", reject);
      child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`opencode export ${sessionID}: exit ${code}`))));
    });
  } finally {
    await handle.close();
  }
  return file;
}

/** The built CLI with the sandbox's environment (its XDG dirs: the "user's" opencode). */
async function auditCli(args: string[]): Promise<{ stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [replayCli(), "audit", ...args], {
    env: sandbox.env,
    cwd: sandbox.project,
    timeout: 90_000,
  });
  return { stdout, stderr, ms: performance.now() - started };
}

beforeAll(async () => {
  sandbox = await createSandbox();
  exportsDir = join(sandbox.root, "exports");
  await mkdir(exportsDir);
  // One at a time: each run writes its own model server's URL into the project's opencode.json.
  runs.loop = await runScenario({ scenario: "fixed-point", guard: false, sandbox, maxRequests: 8 });
  runs.healthy = await runScenario({ scenario: "healthy", guard: false, sandbox });
  // The project becomes a git repository with a commit: opencode files the next session under
  // another project (its first commit), so audit must read more than one project.
  const git = (...args: string[]) =>
    promisify(execFile)("git", ["-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", ...args], {
      cwd: sandbox.project,
      env: sandbox.env,
    });
  await git("init", "-q");
  await git("commit", "-q", "--allow-empty", "-m", "start");
  runs.subagent = await runScenario({ scenario: "subagent", guard: false, sandbox });
  // The user's global config (XDG_CONFIG_HOME/opencode) lists the fake provider and its model
  // limits too, as a user's usually does: audit asks opencode outside any project.
  await writeFile(
    join(sandbox.xdg.config, "opencode", "opencode.json"),
    JSON.stringify(opencodeConfig({ baseURL: "http://127.0.0.1:9/v1" })),
  );
}, 170_000);

afterAll(async () => {
  await sandbox?.dispose();
});

describe("audit with no path reads the sessions of the sandbox's real opencode", () => {
  it("the three runs happened as scripted", () => {
    expect(runs.loop.metrics.compactionCycles).toBeGreaterThanOrEqual(3);
    expect(runs.loop.metrics.ended.kind).toBe("request-cap");
    expect(runs.healthy.metrics.ended.kind).toBe("final-answer");
    expect(runs.healthy.metrics.compactionCycles).toBe(2);
    expect(runs.subagent.metrics.ended.kind).toBe("final-answer");
    expect(runs.subagent.requests.map((r) => `${r.kind}:${r.tool ?? r.reply}`)).toEqual([
      "title:text",
      "chat:task",
      "chat:bash",
      "compaction:text",
      "continue:text",
      "chat:text",
    ]);
    const task = runs.subagent.export!.messages.flatMap((m) => m.parts).find((p) => p.type === "tool" && p.tool === "task");
    expect(task?.state?.status).toBe("completed");
    expect(task?.state?.input).toEqual(SUBAGENT_TASK);
  });

  it("lists exactly the sessions with compactions, each with replay's first deny; totals count all four; --json and the table", async () => {
    // No limit flag: opencode gives the fake model's limits, so each row and each chart of the page has the usable context.
    const page = join(sandbox.root, "audit.html");
    const { stdout, stderr, ms } = await auditCli(["--json", "--html", page, "--opencode", sandbox.opencodeBin]);
    expect(stderr).toBe(`HTML report written to ${page}\n`);
    const audit = JSON.parse(stdout) as AuditJson;
    expect(audit.sessions.map((s) => s.usable)).toEqual([USABLE_TOKENS, USABLE_TOKENS, USABLE_TOKENS]);
    expect(USABLE_TOKENS).toBe(6000);
    const html = await readFile(page, "utf8");
    for (const row of audit.sessions) expect(html).toContain(row.sessionID);
    expect(html.match(/<line class="usable"/g)).toHaveLength(3);
    expect(html.match(/usable context 6,000 tokens/g)).toHaveLength(3);
    const parent = runs.subagent.sessionID!;
    const child = audit.sessions.find((s) => s.parentID === parent);
    expect(child, "the subagent's session").toBeDefined();
    expect(audit.sessions.map((s) => s.sessionID).sort()).toEqual([runs.loop.sessionID!, runs.healthy.sessionID!, child!.sessionID].sort());
    for (const row of audit.sessions) expect(row.source).toBe("opencode");
    // Two projects: the loop and the healthy run in "global", the subagent's after `git init`.
    const projects = new Set([runs.loop, runs.healthy, runs.subagent].map((r) => (r.export!.info as { projectID?: string }).projectID));
    expect(projects.size).toBe(2);

    // Each session's export, replayed by the replay command with the fake model's limits as flags, and audited from the file.
    const files: Record<string, string> = {};
    for (const id of [runs.loop.sessionID!, runs.healthy.sessionID!, parent, child!.sessionID]) files[id] = await exportToFile(id);
    const replays: Record<string, Awaited<ReturnType<typeof replayExport>>> = {};
    for (const row of audit.sessions) {
      const replay = (replays[row.sessionID] = await replayExport(files[row.sessionID]!));
      expect([row.compactions, row.firstDeny, row.rule], row.sessionID).toEqual([
        replay.compactions.length,
        replay.firstDeny,
        replay.firstDeny === null ? null : replay.compactions[replay.firstDeny - 1]!.rule,
      ]);
    }
    const parentReplay = await replayExport(files[parent]!);
    expect(parentReplay.compactions).toEqual([]); // counted, not listed

    // The known figures.
    const loop = audit.sessions.find((s) => s.sessionID === runs.loop.sessionID)!;
    const compactions = runs.loop.metrics.compactionCycles;
    const loopReplay = replays[loop.sessionID]!;
    // Where the fixed point is denied (no-progress at 2, or earlier by a rule that uses the limits) is replay's to say.
    expect(loopReplay.firstDeny).not.toBeNull();
    const firstDeny = loopReplay.firstDeny!;
    expect(loop).toMatchObject({ compactions, firstDeny, rule: loopReplay.compactions[firstDeny - 1]!.rule, parentID: null });
    // Every continue turn from the first denied one on came after the first deny's summary.
    expect(loop.continuesSaved).toBe(runs.loop.metrics.continueTurns - (firstDeny - 1));
    expect(loop.tokensAfterDeny).toBeGreaterThan(7000 * (compactions - firstDeny));
    expect(loop.secondsAfterDeny).toBeGreaterThan(0);
    const healthy = audit.sessions.find((s) => s.sessionID === runs.healthy.sessionID)!;
    expect(healthy).toMatchObject({
      compactions: 2,
      firstDeny: null,
      rule: null,
      continuesSaved: 0,
      tokensAfterDeny: 0,
      secondsAfterDeny: 0,
    });
    expect(child).toMatchObject({
      compactions: 1,
      firstDeny: null,
      parentID: parent,
      title: `${SUBAGENT_TASK.description} (@general subagent)`,
    });
    // Unguarded runs: the loop ran on, nothing was stopped by the guard.
    expect(audit.totals).toEqual({
      sessions: 4,
      looping: 1,
      stoppedByGuard: 0,
      continuesSaved: loop.continuesSaved,
      tokensAfterDeny: loop.tokensAfterDeny,
    });

    // audit over the exported files with the limits as flags decides the same (one code path), source aside: usable included.
    const fromFiles = JSON.parse((await auditCli([exportsDir, "--json", ...LIMIT_FLAGS])).stdout) as AuditJson;
    const strip = (rows: readonly AuditSession[]) =>
      rows.map(({ source: _source, ...rest }) => rest).sort((a, b) => (a.sessionID < b.sessionID ? -1 : 1));
    expect(strip(fromFiles.sessions)).toEqual(strip(audit.sessions));
    expect(fromFiles.totals).toEqual(audit.totals);

    // The table (the limits as flags: opencode's providers are not asked): three rows, the subagent's labelled with its parent.
    const table = (await auditCli(["--opencode", sandbox.opencodeBin, ...LIMIT_FLAGS])).stdout.trimEnd().split("\n");
    expect(table).toHaveLength(5);
    expect(table.find((l) => l.startsWith(child!.sessionID))).toContain(`↳ subagent of ${parent}: `);
    expect(table.at(-1)).toBe(
      `totals: 4 sessions read, 3 with automatic compactions (listed), 1 without; 0 loops stopped by the guard, 1 ran on (looping); ` +
        `the guard would have saved ` +
        `${loop.continuesSaved} synthetic continue turn${loop.continuesSaved === 1 ? "" : "s"} and ${(loop.tokensAfterDeny ?? 0).toLocaleString("en-US")} tokens`,
    );
    console.log(`audit through opencode serve: ${Math.round(ms)} ms for 4 sessions`);
  });

  it("--since: after every session, none listed or counted; before them, all four; the server is stopped either way", async () => {
    const { stdout } = await auditCli(["--json", "--opencode", sandbox.opencodeBin, "--since", "2999-01-01"]);
    expect(JSON.parse(stdout)).toEqual({
      sessions: [],
      totals: { sessions: 0, looping: 0, stoppedByGuard: 0, continuesSaved: 0, tokensAfterDeny: 0 },
    });
    // A date before every session keeps all four (opencode's `start` filter is "updated at or after").
    const before = new Date(
      Math.min(...Object.values(runs).map((r) => (r.export!.info as unknown as { time: { created: number } }).time.created)) - 1000,
    ).toISOString();
    // The limit flags override opencode's limits, for every session: 20,000 − 4,000.
    const all = JSON.parse(
      (
        await auditCli([
          "--json",
          "--opencode",
          sandbox.opencodeBin,
          "--since",
          before,
          "--context-limit",
          "20000",
          "--output-limit",
          "4000",
        ])
      ).stdout,
    ) as AuditJson;
    expect(all.totals.sessions).toBe(4);
    expect(all.sessions.map((s) => s.usable)).toEqual([16_000, 16_000, 16_000]);
    // No opencode serve left running from this sandbox.
    const { stdout: ps } = await promisify(execFile)("ps", ["-eo", "args"]);
    expect(ps.split("\n").filter((l) => l.includes(sandbox.opencodeBin) && l.includes(" serve "))).toEqual([]);
  });

  it("an opencode that cannot start: one line, exit 2", async () => {
    const failing = join(sandbox.root, "failing-opencode");
    await writeFile(failing, "#!/bin/sh\necho 'Error: database is locked' >&2\nexit 3\n", { mode: 0o755 });
    const error = await auditCli(["--opencode", failing]).then(
      () => null,
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(error).toMatchObject({ code: 2, stdout: "" });
    expect(error!.stderr).toBe(
      `opencode-compaction-guard: opencode serve (${failing}) exited with 3 before listening: Error: database is locked\n`,
    );
  });
});

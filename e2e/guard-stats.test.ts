/**
 * `/guard stats` in the real opencode 1.18.33. One sandbox (one opencode storage, one project):
 * a fixed-point loop the guard stops at compaction 2, the same loop without the guard (it runs
 * to the scripted cap), a healthy session. Then `/guard stats` headless (`opencode run
 * --command guard stats`) and in the TUI (tmux), and `audit --json` through `opencode serve`
 * on the same storage: the command's figures must be audit's, its per-session repeats what the
 * sessions' exports hold, and no model request may be made for it.
 */
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repeatsAfterCompaction } from "../src/audit/repeats.js";
import type { AuditJson } from "../src/audit/types.js";
import { buildTimeline } from "../src/hosts/opencode/v1.js";
import { ANSWERED } from "../src/plugin/opencode-v1/command.js";
import { guardCommandArgs, lastNote } from "./guard-command-flow.js";
import { exportSession, runOpencode, runScenario, type ScenarioRun } from "./harness.js";
import { startModelServer } from "./model-server.js";
import { PLUGIN_ENTRY, replayCli } from "./replay.js";
import { createSandbox, opencodeConfig, writeOpencodeConfig, type Sandbox } from "./sandbox.js";
import { scenarioSetup } from "./scenarios.js";
import { startTui } from "./tui.js";

let sandbox: Sandbox;
const runs: Record<"stopped" | "unguarded" | "healthy", ScenarioRun> = {} as never;
let headless: { code: number | null; stdout: string; stderr: string; note: string; requests: number; ms: number };
let tuiScreen = "";
let tuiRequests = -1;
let audit: AuditJson;

beforeAll(async () => {
  sandbox = await createSandbox();
  // Prediction off: the guarded loop is stopped at compaction 2 by no-progress (as e2e/guard-command-flow.ts).
  sandbox.env.OPENCODE_COMPACTION_GUARD_PREDICT = "0";
  runs.stopped = await runScenario({ scenario: "fixed-point", guard: true, sandbox, replay: false, maxRequests: 10 });
  runs.unguarded = await runScenario({ scenario: "fixed-point", guard: false, sandbox, replay: false, maxRequests: 8 });
  runs.healthy = await runScenario({ scenario: "healthy", guard: true, sandbox, replay: false });
  const stopped = runs.stopped.sessionID!;

  const server = await startModelServer({
    scenario: "fixed-point",
    readPath: sandbox.readPath,
    projectDir: sandbox.project,
    maxRequests: 10,
  });
  try {
    await writeOpencodeConfig(sandbox, {
      baseURL: server.baseURL,
      limits: scenarioSetup("fixed-point").limits,
      plugin: [pathToFileURL(PLUGIN_ENTRY).href],
    });
    const args = guardCommandArgs(stopped, "stats");
    const f = await runOpencode(args, sandbox, 90_000);
    const requests = server.requests.length;
    const exp = await exportSession(stopped, sandbox, 60_000);
    headless = { code: f.code, stdout: f.stdout, stderr: f.stderr, note: lastNote(exp), requests, ms: f.wallMs };
    if (process.env.GUARD_TUI_CAPTURE) await writeFile(`${process.env.GUARD_TUI_CAPTURE}-stats-note.txt`, `${headless.note}\n`);

    const tui = await startTui(sandbox, ["--session", stopped]);
    try {
      await tui.submit("/guard stats");
      tuiScreen = await tui.waitFor("Calls repeated after a compaction");
      await writeFile(join(sandbox.root, "tui-stats.ansi"), tui.screen(true));
      if (process.env.GUARD_TUI_CAPTURE) await writeFile(`${process.env.GUARD_TUI_CAPTURE}-stats.ansi`, tui.screen(true));
    } finally {
      tui.stop();
    }
    tuiRequests = server.requests.length - requests;
  } finally {
    await server.close();
  }

  // audit reads through `opencode serve` outside any project: the user's global config lists the fake provider too.
  await writeFile(
    join(sandbox.xdg.config, "opencode", "opencode.json"),
    JSON.stringify(opencodeConfig({ baseURL: "http://127.0.0.1:9/v1" })),
  );
  const { stdout } = await promisify(execFile)(process.execPath, [replayCli(), "audit", "--json", "--opencode", sandbox.opencodeBin], {
    env: sandbox.env,
    cwd: sandbox.project,
    timeout: 90_000,
  });
  audit = JSON.parse(stdout) as AuditJson;
}, 400_000);

afterAll(async () => {
  await sandbox?.dispose();
});

describe("/guard stats in the real opencode 1.18.33", () => {
  it("the three sessions ran as scripted: one stopped by the guard, one looping to the cap, one healthy", () => {
    expect(runs.stopped.decisions.find((d) => d.decision === "deny")?.rule).toBe("no-progress");
    expect(runs.unguarded.metrics.ended.kind).toBe("request-cap");
    expect(runs.healthy.metrics.ended.kind).toBe("final-answer");
    expect(audit.totals.sessions).toBe(3);
  });

  it("headless: answers in the session with audit's figures, makes no model request, ends the command", () => {
    const { note, requests, code, stdout, stderr } = headless;
    expect(requests).toBe(0);
    expect(code).toBe(1);
    expect(stdout + stderr).toContain(ANSWERED);
    const t = audit.totals;
    expect(t.stoppedByGuard).toBe(1);
    expect(t.looping).toBe(1);
    expect(t.continuesSaved).toBeGreaterThan(0);
    expect(t.tokensAfterDeny).toBeGreaterThan(0);
    const lines = note.split("\n");
    expect(lines[0]).toMatch(
      /^compaction-guard stats for this project: 3 sessions read in \d[\d,]* ms, 3 with automatic compactions \(decided as `opencode-compaction-guard audit` decides them\)\.$/,
    );
    expect(lines[1]).toBe(
      `Loops stopped by the guard: ${t.stoppedByGuard}. Loops that ran on (the guard would have stopped them): ${t.looping}.`,
    );
    expect(lines[2]).toBe(
      "Would have been saved where a loop ran on (after the guard's first stop, up to your next message): " +
        `${t.continuesSaved} continue turns (each one more compaction cycle) and ${t.tokensAfterDeny.toLocaleString("en-US")} tokens.`,
    );
  });

  it("names each session with its compactions and its calls repeated after a compaction, as its export holds them", async () => {
    const note = headless.note;
    let total = 0;
    for (const run of [runs.stopped, runs.unguarded, runs.healthy]) {
      const id = run.sessionID!;
      const repeats = repeatsAfterCompaction(buildTimeline((await exportSession(id, sandbox, 60_000)).messages));
      total += repeats.calls;
      const row = audit.sessions.find((s) => s.sessionID === id)!;
      const line = note.split("\n").find((l) => l.includes(`(${id})`));
      expect(line, id).toBeDefined();
      expect(line).toContain(`${row.compactions} automatic compactions`);
      expect(line).toContain(repeats.calls === 0 ? "no call repeated after a compaction" : `${repeats.calls} call`);
    }
    // The unguarded loop redid its call after its compactions; the healthy session redid nothing.
    expect(note).toMatch(
      new RegExp(
        `\\(${runs.unguarded.sessionID}\\): \\d+ automatic compactions, looped: .*; [1-9]\\d* calls? repeated after a compaction \\(bash ×`,
      ),
    );
    expect(note).toContain(`(${runs.healthy.sessionID}): 2 automatic compactions, no loop; no call repeated after a compaction.`);
    expect(note).toContain(`Calls repeated after a compaction, whether or not a rule fired: ${total} in 2 sessions.`);
  });

  it("in the TUI: the same figures on screen, no model request", () => {
    expect(tuiScreen).toContain("compaction-guard stats for this project: 3 sessions read in");
    expect(tuiScreen).toContain(`Loops stopped by the guard: ${audit.totals.stoppedByGuard}.`);
    expect(tuiRequests).toBe(0);
  });
});

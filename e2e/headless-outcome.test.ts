/**
 * The settings files and the headless outcome in the real opencode 1.18.33, `opencode run` on
 * the fixed-point loop: the global settings file (`$XDG_CONFIG_HOME/opencode/`) names a status
 * file, the project's (`.opencode/`) turns prediction off, so the guard stops the loop at
 * compaction 2 by no-progress instead of at 1; `opencode run` then prints the one stop line on
 * standard error and the status file holds the stop. Without a stop (healthy work) neither.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScenario, type ScenarioRun } from "./harness.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

const sandboxes: Sandbox[] = [];
const runs = new Map<string, { run: ScenarioRun; sandbox: Sandbox }>();

/** Runs `scenario` guarded, with the two settings files written first; the sandbox is kept for reading the status file. */
async function runWithFiles(scenario: "fixed-point" | "healthy") {
  const sandbox = await createSandbox();
  sandboxes.push(sandbox);
  await mkdir(join(sandbox.xdg.config, "opencode"), { recursive: true });
  await writeFile(join(sandbox.xdg.config, "opencode", "compaction-guard.jsonc"), '// global\n{ "statusFile": "guard-status.json" }\n');
  await mkdir(join(sandbox.project, ".opencode"), { recursive: true });
  await writeFile(join(sandbox.project, ".opencode", "compaction-guard.jsonc"), '{\n  // the project\n  "predict": false,\n}\n');
  return { run: await runScenario({ scenario, guard: true, sandbox, replay: false }), sandbox };
}

beforeAll(async () => {
  const [loop, healthy] = await Promise.all([runWithFiles("fixed-point"), runWithFiles("healthy")]);
  runs.set("loop", loop);
  runs.set("healthy", healthy);
});

afterAll(async () => {
  for (const sandbox of sandboxes) await sandbox.dispose();
});

describe("opencode run on a loop, settings from both files", () => {
  it("the start-up line names each file's setting", () => {
    const { run } = runs.get("loop")!;
    const loaded = run.guardLines.find((l) => l.message.includes(" loaded: "))!.message;
    expect(loaded).toContain("predict false (project file)");
    expect(loaded).toContain('statusFile "guard-status.json" (global file)');
  });

  it("stops at compaction 2 by no-progress (prediction off, from the project file), exit 0", () => {
    const { run } = runs.get("loop")!;
    expect([run.exitCode, run.timedOut]).toEqual([0, false]);
    expect(run.decisions.map((d) => [d.index, d.decision, d.rule])).toEqual([
      [1, "allow", null],
      [2, "deny", "no-progress"],
    ]);
  });

  it("prints exactly one stop line on standard error", () => {
    const { run } = runs.get("loop")!;
    const lines = run.stderr.split("\n").filter((l) => l.startsWith("compaction-guard: stopped "));
    expect(lines).toEqual([`compaction-guard: stopped ${run.sessionID} (no-progress)`]);
  });

  it("writes the status file in the project directory: the session, deny, the rule, the compaction, the time", async () => {
    const { run, sandbox } = runs.get("loop")!;
    const status = JSON.parse(await readFile(join(sandbox.project, "guard-status.json"), "utf8"));
    expect(status).toEqual({ session: run.sessionID, decision: "deny", rule: "no-progress", compaction: 2, time: status.time });
    expect(Date.now() - Date.parse(status.time)).toBeLessThan(10 * 60_000);
  });
});

describe("opencode run on healthy work, the same files", () => {
  it("reaches its answer with no stop line and no status file", () => {
    const { run, sandbox } = runs.get("healthy")!;
    expect(run.exitCode).toBe(0);
    expect(run.decisions.filter((d) => d.decision === "deny")).toEqual([]);
    expect(run.stderr).not.toContain("compaction-guard: stopped ");
    expect(existsSync(join(sandbox.project, "guard-status.json"))).toBe(false);
  });
});

/**
 * What a script sees of a stop (guard/outcome.ts), through createGuard with a fake
 * client on the recorded loop: under `opencode run` one fixed line on standard error; with a
 * status file, the JSON status written atomically; a failed write is one warn line and the
 * denial stands; observe mode and allowed compactions report nothing.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isHeadlessRun, writeAtomically } from "../../src/guard/outcome.js";
import { decide, loop } from "../support/loop-hook.js";

const folder = () => mkdtempSync(join(tmpdir(), "ocg-outcome-"));

describe("isHeadlessRun", () => {
  it("is opencode's own process (OPENCODE_PID is its pid) whose first word is run", () => {
    const env = { OPENCODE_PID: "42" };
    // opencode's bundled entry and the TUI's worker, as the binary names them (their folder does not matter).
    const entry = "src/index.js";
    const worker = "src/cli/tui/worker.js";
    expect(isHeadlessRun(["bun", entry, "run", "--print-logs", "fix it"], env, 42)).toBe(true);
    expect(isHeadlessRun(["bun", entry, "--print-logs", "run", "x"], env, 42)).toBe(true);
    expect(isHeadlessRun(["bun", entry], env, 42)).toBe(false);
    // The TUI's plugins run in its worker (seen in 1.18.33).
    expect(isHeadlessRun(["bun", worker], env, 42)).toBe(false);
    expect(isHeadlessRun(["bun", entry, "serve"], env, 42)).toBe(false);
    expect(isHeadlessRun(["bun", entry, "projects/run"], env, 42)).toBe(false);
    // A child of opencode (a test runner started by its bash tool) inherits OPENCODE_PID with another pid.
    expect(isHeadlessRun(["node", "vitest.mjs", "run"], env, 43)).toBe(false);
    expect(isHeadlessRun(["node", "vitest.mjs", "run"], {}, 43)).toBe(false);
  });
});

describe("a stop under opencode run", () => {
  it("prints exactly one fixed line on standard error and writes the status file", async () => {
    const dir = folder();
    const before = Date.now();
    const { output, stderr } = await decide(2, { env: { OPENCODE_COMPACTION_GUARD_STATUS_FILE: "status.json" }, directory: dir });
    expect(output.enabled).toBe(false);
    expect(stderr).toEqual([`compaction-guard: stopped ${loop.info.id} (no-progress)`]);
    const status = JSON.parse(readFileSync(join(dir, "status.json"), "utf8"));
    expect(status).toEqual({ session: loop.info.id, decision: "deny", rule: "no-progress", compaction: 2, time: status.time });
    expect(Date.parse(status.time)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(status.time)).toBeLessThanOrEqual(Date.now());
    expect(status.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(readdirSync(dir)).toEqual(["status.json"]);
  });

  it("not headless (the TUI): no line; the status file still; notify off: no line either", async () => {
    const dir = folder();
    const file = join(dir, "s.json");
    const tui = await decide(1, { headless: false, plugin: { statusFile: file } });
    expect([tui.output.enabled, tui.stderr]).toEqual([false, []]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ rule: "cannot-make-room", compaction: 1 });
    const quiet = await decide(1, { plugin: { notify: "off" } });
    expect([quiet.output.enabled, quiet.stderr]).toEqual([false, []]);
  });

  it("observe mode, and an allowed compaction, report nothing", async () => {
    const dir = folder();
    const file = join(dir, "s.json");
    const observed = await decide(2, { plugin: { mode: "observe", statusFile: file } });
    const allowed = await decide(1, { plugin: { predict: false, statusFile: file } });
    expect([observed.output.enabled, observed.stderr, allowed.output.enabled, allowed.stderr]).toEqual([true, [], true, []]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a status file that cannot be written is one warn line; the denial and the line stand", async () => {
    const file = join(folder(), "missing", "s.json");
    const { output, stderr, logs } = await decide(1, { plugin: { statusFile: file } });
    expect(output.enabled).toBe(false);
    expect(stderr).toHaveLength(1);
    const warns = logs.filter((l) => l.level === "warn" && l.message.includes("status file")).map((l) => l.message);
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatch(/^compaction-guard could not write its status file \/.*\/missing\/s\.json: ENOENT: no such file or directory/);
  });

  it("writeAtomically replaces the file whole and leaves no temporary file", async () => {
    const dir = folder();
    const file = join(dir, "s.json");
    writeFileSync(file, "old");
    await writeAtomically(file, "new\n");
    expect(readFileSync(file, "utf8")).toBe("new\n");
    expect(readdirSync(dir)).toEqual(["s.json"]);
    await expect(writeAtomically(join(dir, "no", "s.json"), "x")).rejects.toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual(["s.json"]);
  });
});

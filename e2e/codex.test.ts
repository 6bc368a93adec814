/**
 * The guard inside the real Codex CLI (0.169.0, `codex exec`, headless), through Codex's own
 * hooks as `install codex` writes them (and trusts them, through Codex's app server), against
 * the scripted model of e2e/codex-model.ts:
 * a session that repeats the same shell call after every compaction is stopped right after its
 * third compaction, before Codex's next model request, and so is a loop of two different calls
 * (at its third or fourth); a healthy one finishes untouched.
 */
import { describe, expect, it } from "vitest";
import { readExport } from "../src/sources/export.js";
import { replaySession } from "../src/guard/replay.js";
import { sessionInputs } from "../src/sources/sources.js";
import { DEFAULT_SETTINGS } from "../src/config/settings.js";
import { stopReason } from "../src/live/codex.js";
import { COMPACT_LIMIT, runCodex } from "./codex-run.js";

/** Tokens a step reports: the first after a compaction well under the limit, the next over it (each cycle compacts). */
const cycleTokens = (at: { sinceCompaction: number; compactions: number }) =>
  at.compactions > 0 && at.sinceCompaction === 0 ? 1_500 : COMPACT_LIMIT + 200;

describe("Codex 0.169.0 with the guard's hooks", () => {
  it("stops a session that repeats the same failing call after every compaction, by its third compaction", async () => {
    // After each compaction the model reads a log that is not there, again.
    const run = await runCodex({ step: (at) => (at.done < 30 ? { call: "cat build.log" } : { text: "Done." }), inputTokens: cycleTokens });
    console.log(
      `loop: ${run.elapsedMs} ms, ${run.requests.length} requests, hooks ${JSON.stringify(run.hookRuns)}; ends ${run.hookEnds.join(", ")}`,
    );
    expect(run.exitCode).toBe(0);
    const compactions = run.requests.filter((r) => r.kind === "compaction").length;
    // Codex 0.169 writes the compaction to the rollout before SessionStart runs, but the last
    // tool output before it may not be on disk yet: the guard then sees that cycle one call
    // short and stops one compaction later. Measured: the second or the third.
    expect([2, 3]).toContain(compactions);
    // The stop came right after that compaction: no model request followed it.
    expect(run.requests.at(-1)!.kind).toBe("compaction");
    expect(run.hookEnds.at(-1)).toBe("SessionStart Stopped");
    expect(run.hookEnds.filter((end) => end === "SessionStart Completed")).toHaveLength(compactions - 1);
    // Replay on the rollout Codex wrote denies at the compaction the live guard stopped at.
    const session = await readExport(run.rolloutPath);
    const rows = replaySession(session, sessionInputs(session, { settings: DEFAULT_SETTINGS }), { toolLoop: false }).rows;
    expect(rows).toHaveLength(compactions);
    expect(rows.at(-1)!.decision).toBe("deny");
    // The reason, in the guard's words, for the user (Codex's stopReason and systemMessage).
    expect(stopReason(rows.at(-1)!)).toMatch(
      new RegExp(`^Compaction loop stopped by compaction-guard at compaction ${compactions}: [a-z-]+: .*cat build\\.log`),
    );
  });

  it("stops a loop of two different failing calls after every compaction at its third compaction (the fourth when the hook sees a cycle one call short)", async () => {
    // Each cycle runs the same two commands; their outputs differ only in Codex's delivery header
    // (a random chunk id, the wall time), which the reader drops.
    const run = await runCodex(
      {
        step: (at) => (at.done < 30 ? { call: at.done % 2 === 0 ? "cat build.log" : "sh check.sh" } : { text: "Done." }),
        inputTokens: cycleTokens,
      },
      { files: { "check.sh": 'echo "check: 3 errors in src/a.ts"; exit 1\n' } },
    );
    console.log(`two-call loop: ${run.elapsedMs} ms, ${run.requests.length} requests; ends ${run.hookEnds.join(", ")}`);
    expect(run.exitCode).toBe(0);
    const compactions = run.requests.filter((r) => r.kind === "compaction").length;
    // Cycle 2 is the first that brings nothing new, so the finished rollout is denied at
    // compaction 3; seen one call short at the hook (above), the stop comes one later.
    expect([3, 4]).toContain(compactions);
    expect(run.requests.at(-1)!.kind).toBe("compaction");
    expect(run.hookEnds.at(-1)).toBe("SessionStart Stopped");
    const session = await readExport(run.rolloutPath);
    const rows = replaySession(session, sessionInputs(session, { settings: DEFAULT_SETTINGS }), { toolLoop: false }).rows;
    expect(rows.find((row) => row.decision === "deny")!.compaction.index).toBe(3);
  });

  it("runs no hook the installer could not record trust for (no codex on PATH at install)", async () => {
    const run = await runCodex(
      { step: (at) => (at.done < 2 ? { call: `echo step-${at.done}` } : { text: "Done." }), inputTokens: () => 1_000 },
      { untrusted: true },
    );
    console.log(`untrusted: ${run.elapsedMs} ms, ${run.requests.length} requests, hooks ${JSON.stringify(run.hookRuns)}`);
    expect(run.exitCode).toBe(0);
    expect(run.stdout.trim()).toBe("Done.");
    // codex exec skips an untrusted hook without a word: no hook line at all.
    expect(run.hookRuns).toEqual({});
  });

  it("lets a healthy session with compactions finish untouched", async () => {
    const run = await runCodex({
      step: (at) => (at.done < 7 ? { call: `echo step-${at.done} > step-${at.done}.txt && ls` } : { text: "All steps done." }),
      inputTokens: cycleTokens,
    });
    console.log(`healthy: ${run.elapsedMs} ms, ${run.requests.length} requests, hooks ${JSON.stringify(run.hookRuns)}`);
    expect(run.exitCode).toBe(0);
    expect(run.stdout.trim()).toBe("All steps done.");
    expect(run.requests.filter((r) => r.kind === "compaction").length).toBeGreaterThanOrEqual(3);
    expect(run.hookEnds.some((end) => !end.endsWith("Completed"))).toBe(false);
    expect(run.hookRuns.PreToolUse).toBe(7);
  });
});

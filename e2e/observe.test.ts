/**
 * Trust in the real opencode 1.18.33: the start-up line names the version and every
 * setting's source, and in observe mode the fixed-point loop runs on to the server's cap with
 * no continue turn denied, one "would have stopped" warn line at compaction 1 (where enforce
 * mode stops it, by cannot-make-room) and one at each later compaction.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../src/shared/version.js";
import { runScenario, type ScenarioRun } from "./harness.js";
import { TITLE_TEXT } from "./scenarios.js";

const CAP = 12;
let run: ScenarioRun;

beforeAll(async () => {
  run = await runScenario({
    scenario: "fixed-point",
    guard: true,
    pluginOptions: { window: 12 },
    env: { OPENCODE_COMPACTION_GUARD_MODE: "observe" },
    maxRequests: CAP,
  });
});

describe("observe mode, and the start-up line, in opencode 1.18.33", () => {
  it("writes the start-up line with the version and where each setting came from", () => {
    const startup = run.guardLines.filter((l) => l.message.startsWith(`compaction-guard ${VERSION} loaded: `));
    expect(startup).toHaveLength(1);
    expect(startup[0]!.level).toBe("INFO");
    expect(startup[0]!.message).toContain("threshold 3 (default), window 12 (option),");
    expect(startup[0]!.message).toContain('mode "observe" (env)');
  });

  it("denies nothing: the loop runs on to the server's cap, a continue turn after every compaction", () => {
    expect(run.requests.some((r) => r.reply === "cap")).toBe(true);
    expect(run.figures!.compactionCycles).toBeGreaterThanOrEqual(3);
    expect(run.figures!.continueTurns).toBe(run.figures!.compactions.filter((c) => c.summaryOk).length);
    expect(run.figures!.guardNotes).toBe(0);
  });

  it("says where it would have stopped: a warn line from compaction 1 on, naming the session", () => {
    const observed = run.guardLines.filter((l) => l.message.startsWith("compaction-guard would have stopped auto-continue"));
    expect(observed.length).toBeGreaterThanOrEqual(1);
    expect(observed.every((l) => l.level === "WARN" && l.fields.mode === "observe")).toBe(true);
    expect(observed[0]!.fields.compaction).toBe(1);
    expect(observed[0]!.fields.rule).toBe("cannot-make-room");
    expect(observed[0]!.message).toContain(`in session "${TITLE_TEXT}" (${run.sessionID}) after compaction 1`);
    expect(run.guardLines.some((l) => l.message.startsWith("compaction-guard stopped"))).toBe(false);
  });
});

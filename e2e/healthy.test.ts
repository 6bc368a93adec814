/**
 * A healthy session whose context grows and is cut by each compaction: the guard must not
 * deny anything, and the session must reach the model's scripted final answer.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { expectHealthyRun } from "./expect-run.js";
import { runScenario, type ScenarioRun } from "./harness.js";
import { HEALTHY_BASE_TOKENS, HEALTHY_FINAL_STEP, HEALTHY_FINAL_TEXT, USABLE_TOKENS } from "./scenarios.js";

let run: ScenarioRun;

beforeAll(async () => {
  run = await runScenario({ scenario: "healthy", guard: true });
});

describe("healthy with the guard", () => {
  it("reaches the scripted final answer and exits 0, denying nothing: one allow line per compaction, as the replay decides", () => {
    expectHealthyRun(run, HEALTHY_FINAL_TEXT, 2);
    expect(run.figures!.toolCalls).toHaveLength(HEALTHY_FINAL_STEP - 1);
    expect(run.decisions).toHaveLength(2);
  });

  it("compacts twice, each time cutting the context well under the usable line", () => {
    expect(run.figures!.compactionCycles).toBe(2);
    expect(run.figures!.continueTurns).toBe(2);
    // The server's first step after each compaction reported the base size again.
    const kinds = run.requests.filter((r) => r.kind !== "title");
    const afterCompaction = kinds.filter((r, i) => i > 0 && kinds[i - 1]!.kind === "compaction");
    expect(afterCompaction).toHaveLength(2);
    for (const r of afterCompaction) expect(r.promptTokens).toBe(HEALTHY_BASE_TOKENS);
    expect(HEALTHY_BASE_TOKENS).toBeLessThan(USABLE_TOKENS / 2);
  });
});

/**
 * Looping sessions in the real opencode 1.18.33: with the guard (default settings) the run
 * stops by itself within two synthetic continue turns (the fixed points with none) and says why; without it the loop runs until the
 * scripted model server refuses.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { expectHookTimes, expectLiveMatchesReplay } from "./expect-run.js";
import { runScenario, type ScenarioRun } from "./harness.js";
import { e2eConcurrency, mapLimit } from "./pool.js";
import { TITLE_TEXT, type ScenarioName } from "./scenarios.js";

/** Each guarded loop, the rule that must stop it, and the compaction after which it must. */
const GUARDED: Array<{ scenario: ScenarioName; rule: string; deniedAt: number }> = [
  // Every step is over the usable line, the first step's system prompt and tools alone too:
  // cannot-make-room (on by default) stops them at compaction 1, with no continue turn.
  { scenario: "fixed-point", rule: "cannot-make-room", deniedAt: 1 },
  { scenario: "alternating", rule: "cannot-make-room", deniedAt: 1 },
  { scenario: "reread", rule: "cannot-make-room", deniedAt: 1 },
  // Compaction cuts the context, but the same call completes 4 times before compaction 1 and
  // 4 more after it. Repeats wholly before the first compaction are not a loop yet (the model
  // may still be polling): compaction 2 shows the work redone across a compaction.
  { scenario: "repeat-with-progress", rule: "repeated-tool-call", deniedAt: 2 },
];

/** The unguarded run's request cap: chat, then (compaction, continue) pairs, so cap/2 compactions. */
const UNGUARDED_CAP = 12;

const runs = new Map<string, ScenarioRun>();

beforeAll(async () => {
  const jobs = [
    ...GUARDED.map((g) => ({ key: g.scenario, options: { scenario: g.scenario, guard: true } })),
    { key: "fixed-point/unguarded", options: { scenario: "fixed-point" as const, guard: false, maxRequests: UNGUARDED_CAP } },
    // Settings from the opencode.json plugin tuple and from the environment.
    { key: "healthy/min-reduction-0.9", options: { scenario: "healthy" as const, guard: true, pluginOptions: { minReduction: 0.9 } } },
    {
      key: "fixed-point/disabled",
      options: {
        scenario: "fixed-point" as const,
        guard: true,
        maxRequests: UNGUARDED_CAP,
        env: { OPENCODE_COMPACTION_GUARD_DISABLED: "1" },
      },
    },
  ];
  const results = await mapLimit(jobs, e2eConcurrency(), (job) => runScenario(job.options));
  jobs.forEach((job, i) => runs.set(job.key, results[i]!));
});

describe.each(GUARDED)("$scenario with the guard", ({ scenario, rule, deniedAt }) => {
  const run = () => runs.get(scenario)!;

  it("exits 0 by itself, before the server's cap", () => {
    expect(run().timedOut).toBe(false);
    expect(run().exitCode).toBe(0);
    expect(run().metrics.ended.kind).toBe("guard-stop");
    expect(run().requests.some((r) => r.reply === "cap")).toBe(false);
  });

  it("adds at most two synthetic continue turns", () => {
    expect(run().figures!.continueTurns).toBeLessThanOrEqual(2);
    expect(run().figures!.continueTurns).toBe(deniedAt - 1);
    expect(run().figures!.compactionCycles).toBe(deniedAt);
    // The denied compaction is the last message pair: nothing follows its summary.
    expect(run().figures!.compactions.at(-1)).toMatchObject({ index: deniedAt, summaryOk: true, next: "none" });
  });

  it(`logs one warn line naming ${rule}`, () => {
    const denials = run().decisions.filter((d) => d.decision === "deny");
    expect(denials).toHaveLength(1);
    expect(denials[0]).toMatchObject({ level: "WARN", rule });
    expect(denials[0]!.message).toContain(`compaction-guard stopped auto-continue in session "${TITLE_TEXT}" (${run().sessionID})`);
    expect(denials[0]!.message).toContain(rule);
    expect(run().metrics.guardReason).toBe(denials[0]!.message);
    // Every compaction before it was allowed, at info level.
    expect(
      run()
        .decisions.slice(0, -1)
        .every((d) => d.decision === "allow" && d.level === "INFO"),
    ).toBe(true);
  });

  it("decides live exactly as the replay CLI does on the export", () => {
    expectLiveMatchesReplay(run());
    expect(run().replay!.firstDeny).toBe(deniedAt);
    expectHookTimes(run());
  });
});

describe("fixed-point without the guard", () => {
  const run = () => runs.get("fixed-point/unguarded")!;

  it("compacts and continues until the server's request cap ends the run", () => {
    expect(run().timedOut).toBe(false);
    expect(run().metrics.ended.kind).toBe("request-cap");
    expect(run().exitCode).not.toBe(0);
    expect(run().figures!.compactionCycles).toBe(UNGUARDED_CAP / 2);
    expect(run().figures!.continueTurns).toBe(UNGUARDED_CAP / 2);
    expect(run().figures!.compactions.every((c) => c.next === "continue")).toBe(true);
    // The first chat and every continue but the refused last one made the same call.
    expect(run().figures!.toolCalls).toEqual(Array(UNGUARDED_CAP / 2).fill('bash({"command":"echo hi","description":"echo hi"})'));
    expect(run().guardLines).toEqual([]);
  });
});

describe("settings reach the plugin inside opencode", () => {
  it("a plugin tuple's { minReduction: 0.9 } makes the healthy run's 69% cut too little, as the replay with --min-reduction 0.9 says", () => {
    const run = runs.get("healthy/min-reduction-0.9")!;
    expect(run.metrics.ended.kind).toBe("guard-stop");
    // Each compaction cuts 6,520 tokens to 2,020: 69% < 90%. cannot-make-room (on by default)
    // predicts that cut at compaction 1 (at best ~69%) and stops it there, no continue turn.
    expect(run.decisions.map((d) => [d.decision, d.rule])).toEqual([["deny", "cannot-make-room"]]);
    expect(run.decisions[0]!.message).toContain("less than the 90% cut needed to make progress");
    expect(run.figures!.continueTurns).toBe(0);
    expectLiveMatchesReplay(run);
  });

  it("OPENCODE_COMPACTION_GUARD_DISABLED=1 turns the loaded guard off: it says so once and the loop runs to the cap", () => {
    const run = runs.get("fixed-point/disabled")!;
    expect(run.guardLines).toHaveLength(1);
    expect(run.guardLines[0]).toMatchObject({ level: "INFO" });
    expect(run.guardLines[0]!.message).toMatch(/^compaction-guard \d+\.\d+\.\d+ is disabled by OPENCODE_COMPACTION_GUARD_DISABLED=1;/);
    expect(run.decisions).toEqual([]);
    expect(run.metrics.ended.kind).toBe("request-cap");
    expect(run.figures!.compactionCycles).toBe(UNGUARDED_CAP / 2);
  });
});

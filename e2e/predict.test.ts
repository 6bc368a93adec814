/**
 * The prediction at compaction 1 (rule cannot-make-room, setting `predict`, on by default) in
 * the real opencode 1.18.33. The counted scenarios' token figures are counted from what each request
 * carries (model-server.ts counting mode), so the prediction meets what opencode really sends:
 * the fixed point (a 30,000-character AGENTS.md puts the system prompt and tools over the
 * usable 14,000 tokens) stops at compaction 1 with no continue request at all, with the
 * default settings and with prediction turned on by name; with it off it stops at 2; loops that only repeat stop as before; healthy work, counted
 * and scripted, reaches its final answer with no denial.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { buildTimeline } from "../src/hosts/opencode/v1.js";
import { completedCallsBefore, continueNote } from "../src/guard/ledger.js";
import { COMPACTION_QUESTION, CONTINUE_TEXT } from "../src/hosts/opencode/facts.js";
import { predictionMargin, predictNextPrompt } from "../src/core.js";
import { expectHealthyRun, expectLiveMatchesReplay, expectLoopStopped } from "./expect-run.js";
import { runScenario, type ScenarioRun } from "./harness.js";
import { e2eConcurrency, mapLimit } from "./pool.js";
import { predictionPoints } from "./prediction-table.js";
import { COUNTED_FINAL_TEXT, COUNTED_LIMITS, FINAL_TEXT, HEALTHY_FINAL_TEXT, type ScenarioName } from "./scenarios.js";

const ON = { OPENCODE_COMPACTION_GUARD_PREDICT: "1" };
const OFF = { OPENCODE_COMPACTION_GUARD_PREDICT: "0" };
/** Prediction off, and prevention off too: the continue turn carries opencode's own text. */
const OFF_PLAIN = { ...OFF, OPENCODE_COMPACTION_GUARD_PREVENT: "0" };

/** Healthy scripted scenarios, run with prediction on: each must still reach its answer, with at least this many compactions. */
const HEALTHY: Array<[ScenarioName, string, number]> = [
  ["healthy", HEALTHY_FINAL_TEXT, 2],
  ["double-compaction", FINAL_TEXT["double-compaction"], 2],
  ["poll-with-eta", FINAL_TEXT["poll-with-eta"], 1],
  ["tdd-same-failure-between-edits", FINAL_TEXT["tdd-same-failure-between-edits"], 2],
  ["reasoning-heavy-first-step", FINAL_TEXT["reasoning-heavy-first-step"], 2],
  ["compaction-reserved", FINAL_TEXT["compaction-reserved"], 2],
];

const runs = new Map<string, ScenarioRun>();
const run = (key: string): ScenarioRun => runs.get(key)!;

beforeAll(async () => {
  const jobs: Array<[string, Parameters<typeof runScenario>[0]]> = [
    ["fixed-point-counted/default", { scenario: "fixed-point-counted", guard: true }],
    ["fixed-point-counted/on", { scenario: "fixed-point-counted", guard: true, env: ON }],
    ["fixed-point-counted/off", { scenario: "fixed-point-counted", guard: true, env: OFF }],
    ["fixed-point-counted/off-plain", { scenario: "fixed-point-counted", guard: true, env: OFF_PLAIN }],
    ["healthy-counted/on", { scenario: "healthy-counted", guard: true, env: ON }],
    ["repeat-counted/on", { scenario: "repeat-counted", guard: true, env: ON }],
    ["fixed-point/on", { scenario: "fixed-point", guard: true, env: ON }],
    ...HEALTHY.map(([scenario]): [string, Parameters<typeof runScenario>[0]] => [`${scenario}/on`, { scenario, guard: true, env: ON }]),
  ];
  const results = await mapLimit(jobs, e2eConcurrency(), ([, options]) => runScenario(options));
  jobs.forEach(([key], i) => runs.set(key, results[i]!));
  // Twelve runs of opencode, two at a time: more than the config's three minutes on a busy machine.
}, 360_000);

describe("the fixed point with counted tokens (AGENTS.md over the usable context)", () => {
  it.each(["default", "on"])(
    "prediction %s: stopped at compaction 1 by cannot-make-room; the server never got a continue request",
    (how) => {
      const r = run(`fixed-point-counted/${how}`);
      expect(expectLoopStopped(r, { rules: ["cannot-make-room"], deniedAt: 1 })).toBe(1);
      expect(r.figures!.continueTurns).toBe(0);
      // The whole run: a title, the one step, the one summary.
      expect(r.requests.map((q) => q.kind).sort()).toEqual(["chat", "compaction", "title"]);
      expect(r.decisions[0]!.message).toMatch(
        /cannot-make-room: compaction cannot get this session under the usable context: the system prompt and tools alone are ~\d{2},\d{3} tokens, the summary \d+ tokens, no recent messages kept, against a usable context of 14,000 tokens/,
      );
    },
  );

  it("the prediction is what the next request carried, to a few tokens (measured with prediction and prevention off)", () => {
    const r = run("fixed-point-counted/off-plain");
    const points = predictionPoints(r.export!.messages);
    expect(points.length).toBeGreaterThanOrEqual(1);
    // What the rule would have said at compaction 1: over 14,000 even less its margin.
    const timeline = buildTimeline(r.export!.messages);
    const prediction = predictNextPrompt(timeline, timeline.compactions[0]!);
    expect(prediction.status).toBe("predicted");
    if (prediction.status === "predicted") {
      // The step after each compaction carried the prediction plus the bound's two slacks: the first
      // message taken off at a token per byte, not its ⌈chars / 4⌉, and the two fixed texts at 5
      // characters a token, not 4 (give or take that rounding).
      const fixedAt4 = Math.ceil(COMPACTION_QUESTION.length / 4) + Math.ceil(CONTINUE_TEXT.length / 4);
      const slack = prediction.firstUserTokens - Math.ceil(prediction.firstUserTokens / 4) + fixedAt4 - prediction.fixedTokens;
      for (const p of points) {
        expect(p.error).toBeGreaterThanOrEqual(slack - 5);
        expect(p.error).toBeLessThanOrEqual(slack + 5);
      }
      expect(prediction.predictedTokens - predictionMargin(prediction.predictedTokens)).toBeGreaterThanOrEqual(
        COUNTED_LIMITS.context - COUNTED_LIMITS.output,
      );
    }
  });

  it("with prevention on, the next request carries the note's extra characters on top: the prediction stays a lower bound", () => {
    const plain = predictionPoints(run("fixed-point-counted/off-plain").export!.messages);
    const r = run("fixed-point-counted/off");
    const points = predictionPoints(r.export!.messages);
    const timeline = buildTimeline(r.export!.messages);
    const position = timeline.entries.findIndex((e) => e.kind === "user" && e.role === "continue");
    const note = continueNote(completedCallsBefore(timeline, position, { wholeSession: true }).calls);
    const extra = Math.round((note.length - CONTINUE_TEXT.length) / 4);
    expect(extra).toBeGreaterThan(50);
    expect(points).toHaveLength(plain.length);
    points.forEach((p, i) => {
      expect(p.error).toBeGreaterThanOrEqual(plain[i]!.error + extra - 5);
      expect(p.error).toBeLessThanOrEqual(plain[i]!.error + extra + 5);
    });
  });

  it("prediction off: stopped as before, by no-progress at compaction 2, after one continue turn", () => {
    const r = run("fixed-point-counted/off");
    expect(expectLoopStopped(r, { rules: ["no-progress"], deniedAt: 2 })).toBe(2);
    expect(r.figures!.continueTurns).toBe(1);
    expect(r.requests.filter((q) => q.kind === "continue")).toHaveLength(1);
  });
});

describe("loops that only repeat, and the scripted fixed point", () => {
  it("repeat-counted (compaction does cut the context): stopped as before, by repeated-tool-call at compaction 2", () => {
    const r = run("repeat-counted/on");
    expect(expectLoopStopped(r, { rules: ["repeated-tool-call"], deniedAt: 2 })).toBe(2);
    expect(r.decisions[0]!.decision).toBe("allow");
  });

  it("the scripted fixed point (a first step of 7,000 prompt tokens) is stopped at compaction 1 too", () => {
    const r = run("fixed-point/on");
    expect(expectLoopStopped(r, { rules: ["cannot-make-room"], deniedAt: 1 })).toBe(1);
    expect(r.requests.filter((q) => q.kind === "continue")).toHaveLength(0);
  });
});

describe("healthy work with prediction on: the final answer, no denial", () => {
  it("healthy-counted: two compactions that keep a tail, twelve ranges, the answer", () => {
    const r = run("healthy-counted/on");
    expectHealthyRun(r, COUNTED_FINAL_TEXT, 2);
    // Every compaction predicted under what the next step carried (a lower bound).
    const points = predictionPoints(r.export!.messages);
    expect(points).toHaveLength(2);
    for (const p of points) expect(p.error).toBeGreaterThanOrEqual(0);
  });

  it.each(HEALTHY)("%s", (scenario, finalText, compactions) => {
    const r = run(`${scenario}/on`);
    expectHealthyRun(r, finalText, compactions);
    expectLiveMatchesReplay(r);
  });
});

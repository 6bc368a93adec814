/**
 * Zero waste by default: with the default settings (cannot-make-room on), the fixed point of
 * the real opencode 1.18.33 stops at its first compaction with no continue turn, the model
 * server counting every request with a real tokenizer of four families (o200k, Claude,
 * Qwen3, Gemma 3); healthy work still reaches its answer and the repeat-with-reduction loop
 * is stopped at compaction 2 as before. The whole scenario × tokenizer matrix is
 * `npm run table:tokens` (docs/zero-waste.md), too slow for every run of the suite.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { buildTimeline } from "../src/hosts/opencode/v1.js";
import { predictNextPrompt } from "../src/core.js";
import { expectLiveMatchesReplay, expectLoopStopped } from "./expect-run.js";
import { runScenario, type ScenarioRun } from "./harness.js";
import { countPromptTokens } from "./model-server.js";
import { e2eConcurrency, mapLimit } from "./pool.js";
import { predictionPoints } from "./prediction-table.js";
import { COUNTED_FINAL_TEXT, COUNTED_LIMITS } from "./scenarios.js";
import { CHARS4, loadTokenizer, type TokenizerName } from "./tokenizers.js";

const FAMILIES: TokenizerName[] = ["o200k", "claude", "qwen3", "gemma3"];
const runs = new Map<string, ScenarioRun>();
const run = (key: string): ScenarioRun => runs.get(key)!;

beforeAll(async () => {
  const jobs: Array<[string, Parameters<typeof runScenario>[0]]> = [
    ...FAMILIES.map((tokenizer): [string, Parameters<typeof runScenario>[0]] => [
      `fixed-point/${tokenizer}`,
      { scenario: "fixed-point-counted", guard: true, tokenizer },
    ]),
    ["fixed-point/unguarded", { scenario: "fixed-point-counted", guard: false, tokenizer: "o200k", maxRequests: 6 }],
    ["healthy/o200k", { scenario: "healthy-counted", guard: true, tokenizer: "o200k", maxRequests: 24 }],
    ["repeat/o200k", { scenario: "repeat-counted", guard: true, tokenizer: "o200k" }],
  ];
  const results = await mapLimit(jobs, e2eConcurrency(), ([, options]) => runScenario(options));
  jobs.forEach(([key], i) => runs.set(key, results[i]!));
}, 300_000);

describe("the model server counts with real tokenizers", () => {
  it("each family counts the same request its own way, with its chat template around each message", async () => {
    const body = {
      messages: [
        { role: "system", content: "You are opencode." },
        { role: "user", content: "修复登录页面 🎉 and run `npm test`" },
      ],
      tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }],
    };
    const counts = await Promise.all(FAMILIES.map(async (name) => countPromptTokens(body, await loadTokenizer(name))));
    expect(new Set(counts).size).toBeGreaterThan(1);
    // With no template and ⌈characters / 4⌉, what the counting mode reported before.
    const chars = "You are opencode.".length + "修复登录页面 🎉 and run `npm test`".length + JSON.stringify(body.tools).length;
    expect(countPromptTokens(body, CHARS4)).toBe(Math.ceil(chars / 4));
    const o200k = await loadTokenizer("o200k");
    expect(countPromptTokens(body, o200k)).toBe(
      o200k.countTexts(["You are opencode.", "修复登录页面 🎉 and run `npm test`", JSON.stringify(body.tools)]) + 2 * 3 + 3,
    );
  });

  it("rejects a tokenizer it does not know, naming those it does", () => {
    expect(() => loadTokenizer("bpe")).toThrow('unknown tokenizer "bpe" (known: chars4, o200k, cl100k, claude, qwen3, llama3, gemma3)');
  });
});

describe("the fixed point with the default settings, counted by four tokenizer families", () => {
  it.each(FAMILIES)("%s: one compaction, no continue turn, stopped by cannot-make-room", (tokenizer) => {
    const r = run(`fixed-point/${tokenizer}`);
    expect(expectLoopStopped(r, { rules: ["cannot-make-room"], deniedAt: 1 })).toBe(1);
    expect(r.figures!.compactionCycles).toBe(1);
    expect(r.figures!.continueTurns).toBe(0);
    expect(r.requests.map((q) => q.kind).sort()).toEqual(["chat", "compaction", "title"]);
  });

  it("the bound it denied on is under what the next request really carries (measured without the guard)", () => {
    const messages = run("fixed-point/unguarded").export!.messages;
    const points = predictionPoints(messages);
    expect(points.length).toBeGreaterThanOrEqual(2);
    for (const p of points) {
      expect(p.error).toBeGreaterThanOrEqual(0);
      expect(p.actual).toBeGreaterThanOrEqual(COUNTED_LIMITS.context - COUNTED_LIMITS.output);
    }
    const timeline = buildTimeline(messages);
    const prediction = predictNextPrompt(timeline, timeline.compactions[0]!);
    expect(prediction).toMatchObject({ status: "predicted", predictedTokens: points[0]!.predicted });
  });
});

describe("the rest as today, with the default settings (o200k)", () => {
  it("healthy-counted reaches its answer: every compaction allowed, no warning; the answer over the line is not restarted", () => {
    // Counted by o200k the final answer's step is itself over the line, so opencode compacts
    // after it and turn-finished (housekeeping, info) skips the restart.
    const r = run("healthy/o200k");
    expect([r.timedOut, r.exitCode, r.metrics.ended.kind]).toEqual([false, 0, "guard-skip"]);
    expect(r.figures!.finalAssistantText).toBe(COUNTED_FINAL_TEXT);
    const decisions = r.decisions.map((d) => [d.decision, d.rule, d.level]);
    expect(decisions.length).toBeGreaterThanOrEqual(3);
    expect(decisions.slice(0, -1).every(([decision, rule, level]) => decision === "allow" && rule === null && level === "INFO")).toBe(true);
    expect(decisions.at(-1)).toEqual(["deny", "turn-finished", "INFO"]);
    expect(r.guardLines.some((l) => l.level === "WARN")).toBe(false);
    expectLiveMatchesReplay(r);
  });

  it("repeat-counted (compaction does cut the context) is stopped by repeated-tool-call at compaction 2", () => {
    const r = run("repeat/o200k");
    expect(expectLoopStopped(r, { rules: ["repeated-tool-call"], deniedAt: 2 })).toBe(2);
    expect(r.decisions[0]!.decision).toBe("allow");
  });
});

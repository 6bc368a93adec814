/**
 * End-to-end bench: every scenario in the real opencode, without and with the guard, one
 * run at a time (so wall times are comparable). Per run: compaction cycles and model
 * requests until the run ended, prompt tokens the model server reported, wall time, how it
 * ended, and the hook's own time per call (median and max of the guard's `elapsedMs`).
 */
import { runScenario, type ScenarioRun } from "../e2e/harness.js";
import { OPENCODE_VERSION } from "../e2e/sandbox.js";
import { SCENARIOS, type ScenarioName } from "../e2e/scenarios.js";
import { formatInt, formatMs, formatSeconds, formatTable, median } from "../e2e/table.js";
import type { TokenizerName } from "../e2e/tokenizers.js";

/** Requests the scripted server answers before refusing; keeps unguarded loops finite. */
export const BENCH_CAP = 16;

/** One bench row's figures. Tokens in tokens, times in milliseconds. */
export interface BenchRow {
  scenario: string;
  guard: boolean;
  compactionCycles: number;
  modelRequests: number;
  promptTokensSent: number;
  wallMs: number;
  ended: string;
  hookCalls: number;
  hookMedianMs: number | null;
  hookMaxMs: number | null;
}

function toRow(run: ScenarioRun): BenchRow {
  const m = run.metrics;
  return {
    scenario: run.scenario,
    guard: run.guard,
    compactionCycles: m.compactionCycles,
    modelRequests: m.modelRequests,
    promptTokensSent: m.promptTokensSent,
    wallMs: m.wallMs,
    ended: m.ended.detail,
    hookCalls: m.hookMs.length,
    hookMedianMs: median(m.hookMs),
    hookMaxMs: m.hookMs.length > 0 ? Math.max(...m.hookMs) : null,
  };
}

/**
 * Run every scenario without and with the guard, sequentially, reporting progress on stderr.
 * @returns one row per run, in scenario order, unguarded first.
 */
export async function benchE2e(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const scenario of SCENARIOS) {
    for (const guard of [false, true]) {
      const run = await runScenario({ scenario, guard, maxRequests: BENCH_CAP, replay: false });
      rows.push(toRow(run));
      log(`  ${scenario} ${guard ? "with" : "without"} guard: ${run.metrics.ended.detail}`);
    }
  }
  return rows;
}

/** The rows as a plain-text table. */
export function benchTable(rows: BenchRow[]): string {
  return formatTable(
    ["scenario", "guard", "cycles", "requests", "prompt tokens", "wall", "ended", "hook calls", "hook median", "hook max"],
    rows.map((r) => [
      r.scenario,
      r.guard ? "on" : "off",
      String(r.compactionCycles),
      String(r.modelRequests),
      formatInt(r.promptTokensSent),
      formatSeconds(r.wallMs),
      r.ended,
      String(r.hookCalls),
      formatMs(r.hookMedianMs),
      formatMs(r.hookMaxMs),
    ]),
  );
}

/**
 * The loop kinds (and one healthy run) the prediction section compares, before (prediction
 * off, 0.4.0's default) and after (the default settings, prediction on); the counted fixed
 * point also under two real tokenizers (e2e/tokenizers.ts).
 */
export const PREDICT_RUNS: ReadonlyArray<readonly [ScenarioName, TokenizerName?]> = [
  ["fixed-point"],
  ["alternating"],
  ["reread"],
  ["fixed-point-counted"],
  ["fixed-point-counted", "o200k"],
  ["fixed-point-counted", "claude"],
  ["repeat-with-progress"],
  ["repeat-counted"],
  ["healthy-counted"],
];

/** One run of the prediction section: what the loop cost before the guard stopped it. Tokens in tokens. */
export interface PredictRow {
  scenario: string;
  /** The tokenizer the model server counted with, or null for the scenario's own figures. */
  tokenizer: TokenizerName | null;
  /** `default`: the default settings (prediction on); `off`: `OPENCODE_COMPACTION_GUARD_PREDICT=0`, as 0.4.0's default. */
  settings: "off" | "default";
  /** The compaction the guard denied, or null. */
  deniedAt: number | null;
  rule: string | null;
  continueTurns: number;
  modelRequests: number;
  promptTokensSent: number;
  ended: string;
}

/**
 * Runs each of PREDICT_RUNS with the guard, prediction off then with the default settings,
 * one run at a time.
 * @returns one row per run.
 */
export async function benchPredict(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<PredictRow[]> {
  const rows: PredictRow[] = [];
  for (const [scenario, tokenizer] of PREDICT_RUNS) {
    for (const settings of ["off", "default"] as const) {
      const run = await runScenario({
        scenario,
        guard: true,
        maxRequests: BENCH_CAP,
        replay: false,
        ...(tokenizer ? { tokenizer } : {}),
        ...(settings === "off" ? { env: { OPENCODE_COMPACTION_GUARD_PREDICT: "0" } } : {}),
      });
      const deny = run.decisions.find((d) => d.decision === "deny");
      rows.push({
        scenario,
        tokenizer: tokenizer ?? null,
        settings,
        deniedAt: deny?.index ?? null,
        rule: deny?.rule ?? null,
        continueTurns: run.metrics.continueTurns,
        modelRequests: run.metrics.modelRequests,
        promptTokensSent: run.metrics.promptTokensSent,
        ended: run.metrics.ended.detail,
      });
      log(
        `  ${scenario}${tokenizer ? ` (${tokenizer})` : ""} ${settings === "off" ? "prediction off" : "default settings"}: ${run.metrics.ended.detail}`,
      );
    }
  }
  return rows;
}

/** The prediction rows as a plain-text table. */
export function predictTable(rows: PredictRow[]): string {
  return formatTable(
    ["scenario", "tokens", "settings", "denied at", "rule", "continue turns", "requests", "prompt tokens", "ended"],
    rows.map((r) => [
      r.scenario,
      r.tokenizer ?? "scenario's",
      r.settings === "off" ? "before: predict off" : "after: default",
      r.deniedAt === null ? "-" : String(r.deniedAt),
      r.rule ?? "-",
      String(r.continueTurns),
      String(r.modelRequests),
      formatInt(r.promptTokensSent),
      r.ended,
    ]),
  );
}

/** Print the e2e bench table to stdout, then the prediction section (off and on). */
export async function main(): Promise<void> {
  console.log(
    `e2e bench: real opencode ${OPENCODE_VERSION} against the scripted model server (cap ${BENCH_CAP} requests), one run at a time`,
  );
  const rows = await benchE2e();
  console.log(benchTable(rows));
  console.log(
    "\nzero waste by default (cannot-make-room): what each loop cost before the stop, before (prediction off, 0.4.0's default) and after (the default settings); requests and prompt tokens include the title and the summaries",
  );
  console.log(predictTable(await benchPredict()));
}

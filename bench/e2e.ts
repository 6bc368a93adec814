/**
 * End-to-end bench: every scenario in the real opencode, without and with the guard, one
 * run at a time (so wall times are comparable). Per run: compaction cycles and model
 * requests until the run ended, prompt tokens the model server reported, wall time, how it
 * ended, and the hook's own time per call (median and max of the guard's `elapsedMs`).
 */
import { runScenario, type ScenarioRun } from "../e2e/harness.js";
import { OPENCODE_VERSION } from "../e2e/sandbox.js";
import { SCENARIOS } from "../e2e/scenarios.js";
import { formatInt, formatMs, formatSeconds, formatTable, median } from "../e2e/table.js";

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

/** Print the e2e bench table to stdout. */
export async function main(): Promise<void> {
  console.log(
    `e2e bench: real opencode ${OPENCODE_VERSION} against the scripted model server (cap ${BENCH_CAP} requests), one run at a time`,
  );
  const rows = await benchE2e();
  console.log(benchTable(rows));
}

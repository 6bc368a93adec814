/**
 * What the guard adds to an ordinary step in the real opencode: the step-cost scenario
 * (e2e/scenarios.ts: a different 45,000-byte tool output every step, one automatic compaction
 * early so that every later request carries a continue turn) run without and with the guard,
 * all at once, so that whatever else loads the machine weighs on each run alike. A step's time is the gap between two model requests the scripted server
 * received (ms): the model's answer, the tool call and its hooks, and the next request with its
 * hooks. The guard's cost is a run's figure minus the run without it.
 *
 * `tsx bench/step-cost.ts [steps] [label=plugin.js …]`: default 400 steps; each extra argument
 * adds a run with another build of the plugin (for a before-and-after comparison).
 */
import { pathToFileURL } from "node:url";
import { runScenario } from "../e2e/harness.js";
import { formatMs, formatTable, median, quantile } from "../e2e/table.js";

/** Steps left out at the start: the session's first steps and the compaction. */
const WARM_UP = 6;

/** One run's step times. Times in ms. */
export interface StepCostRow {
  label: string;
  /** Messages in the session at the end (its export). */
  messages: number;
  steps: number;
  medianMs: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

/**
 * Runs step-cost without the guard, with this build's guard, and with each build in `others`.
 * @param steps model requests the server answers (one step each) before it refuses.
 * @returns one row per run, unguarded first.
 */
export async function stepCostBench(
  steps = 400,
  others: ReadonlyArray<readonly [string, string]> = [],
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<StepCostRow[]> {
  const variants: Array<{ label: string; guard: boolean; pluginSpec?: string }> = [
    { label: "without guard", guard: false },
    { label: "with guard", guard: true },
    ...others.map(([label, path]) => ({ label, guard: true, pluginSpec: pathToFileURL(path).href })),
  ];
  const runOne = async (variant: (typeof variants)[number]): Promise<StepCostRow> => {
    const run = await runScenario({
      scenario: "step-cost",
      guard: variant.guard,
      maxRequests: steps,
      replay: false,
      timeoutMs: 60_000 + steps * 3_000,
      ...(variant.pluginSpec ? { pluginSpec: variant.pluginSpec } : {}),
    });
    const asks = run.requests.filter((r) => r.kind === "chat" || r.kind === "continue").map((r) => r.atMs);
    const gaps = asks.slice(WARM_UP + 1).map((at, i) => at - asks[WARM_UP + i]!);
    log(`  step-cost ${variant.label}: ${run.metrics.ended.detail}`);
    return {
      label: variant.label,
      messages: run.export?.messages.length ?? 0,
      steps: gaps.length,
      medianMs: median(gaps),
      p99Ms: quantile(gaps, 0.99),
      maxMs: quantile(gaps, 1),
    };
  };
  return Promise.all(variants.map(runOne));
}

/** The rows as a table: each run's step times and what it adds to the run without the guard. */
export function stepCostTable(rows: readonly StepCostRow[]): string {
  const base = rows[0];
  const added = (value: number | null, from: number | null | undefined) =>
    value === null || from === null || from === undefined ? null : value - from;
  return formatTable(
    ["run", "messages", "steps", "step median", "step p99", "step max", "added median", "added p99"],
    rows.map((r) => [
      r.label,
      String(r.messages),
      String(r.steps),
      formatMs(r.medianMs),
      formatMs(r.p99Ms),
      formatMs(r.maxMs),
      r === base ? "" : formatMs(added(r.medianMs, base?.medianMs)),
      r === base ? "" : formatMs(added(r.p99Ms, base?.p99Ms)),
    ]),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const steps = Number(process.argv[2] ?? 400);
  const others = process.argv.slice(3).map((arg) => arg.split("=") as [string, string]);
  const rows = await stepCostBench(steps, others);
  console.log(`Step cost in the real opencode: ${steps} steps, each a different 45,000-byte tool output\n`);
  console.log(stepCostTable(rows));
}

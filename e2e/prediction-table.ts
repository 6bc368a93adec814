/**
 * The prediction-error table: for every automatic compaction with a successful summary and a
 * first step after it, src/judge/predict.ts's lower bound of that step's prompt against the prompt
 * the step really sent (its recorded `input + cache`), per session; median and worst error.
 *
 * `npx tsx e2e/prediction-table.ts` reads every export under fixtures/ and ../shared/fixtures/;
 * `--run` also runs the counted scenarios (model-server.ts counting mode) in the real
 * opencode 1.18.33 without the guard, so that every compaction is followed by a step.
 *
 * Error = actual − predicted, tokens (positive: the bound held with room to spare; negative:
 * an overshoot, what the rule's margin must cover). Percent of the actual prompt.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { buildTimeline } from "../src/hosts/opencode/v1.js";
import { predictNextPrompt } from "../src/core.js";
import { compactionSizes } from "../src/model/timeline.js";
import { runScenario } from "./harness.js";
import { PROJECT_ROOT } from "./sandbox.js";
import { COUNTED_SCENARIOS, type ScenarioName } from "./scenarios.js";
import { formatInt, formatTable, median } from "./table.js";

/** One compaction: the predicted lower bound and the real prompt after it, tokens. */
export interface PredictionPoint {
  readonly compaction: number;
  readonly predicted: number;
  readonly actual: number;
  /** actual − predicted. */
  readonly error: number;
}

/**
 * The predicted and actual prompt after every automatic compaction of a session that has both.
 * @param messages `opencode export`'s `messages`.
 */
export function predictionPoints(messages: readonly unknown[]): PredictionPoint[] {
  const timeline = buildTimeline(messages);
  return timeline.compactions.flatMap((compaction) => {
    if (!compaction.auto || !compaction.succeeded) return [];
    const prediction = predictNextPrompt(timeline, compaction);
    const actual = compactionSizes(timeline.entries, compaction).afterTokens;
    if (prediction.status !== "predicted" || actual === null) return [];
    return [{ compaction: compaction.index, predicted: prediction.predictedTokens, actual, error: actual - prediction.predictedTokens }];
  });
}

/** One row of the table: a session's points summarised. Tokens, and fractions of the actual prompt. */
export interface PredictionRow {
  readonly source: string;
  /** `counted`: token figures counted from what requests carried; `scripted`: a scenario's fixed figures. */
  readonly figures: "counted" | "scripted";
  readonly points: readonly PredictionPoint[];
}

/** The error of largest size (signed), or null without points. */
const worst = (points: readonly PredictionPoint[]): PredictionPoint | null =>
  points.reduce<PredictionPoint | null>((w, p) => (w === null || Math.abs(p.error) > Math.abs(w.error) ? p : w), null);

/** The table: per session, compactions, median and worst error in tokens and percent, worst overshoot; then the totals per kind of figures. */
export function predictionTable(rows: readonly PredictionRow[]): string {
  const pct = (p: PredictionPoint | null) => (p === null ? "" : `${((100 * p.error) / p.actual).toFixed(1)}%`);
  const line = (name: string, figures: string, points: readonly PredictionPoint[]) => {
    const w = worst(points);
    const med = median(points.map((p) => p.error));
    const medPct = median(points.map((p) => (100 * p.error) / p.actual));
    const over = Math.min(0, ...points.map((p) => p.error));
    return [
      name,
      figures,
      String(points.length),
      med === null ? "" : formatInt(med),
      medPct === null ? "" : `${medPct.toFixed(1)}%`,
      w === null ? "" : formatInt(w.error),
      pct(w),
      over === 0 ? "0" : formatInt(-over),
    ];
  };
  const withPoints = rows.filter((r) => r.points.length > 0);
  const totals = (["counted", "scripted"] as const).map((figures) =>
    line(
      `all ${figures}`,
      figures,
      withPoints.filter((r) => r.figures === figures).flatMap((r) => r.points),
    ),
  );
  return formatTable(
    ["session", "figures", "compactions", "median error", "median %", "worst error", "worst %", "worst overshoot"],
    [...withPoints.map((r) => line(r.source, r.figures, r.points)), ...totals],
  );
}

/** Every export (`{ info, messages }`) under `dir`, recursively, as [path, messages]. */
function exportsUnder(dir: string): Array<[string, unknown[]]> {
  const found: Array<[string, unknown[]]> = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...exportsUnder(path));
    else if (name.endsWith(".json")) {
      try {
        const data = JSON.parse(readFileSync(path, "utf8")) as { messages?: unknown };
        if (Array.isArray(data.messages)) found.push([path, data.messages]);
      } catch {
        // Not JSON: not an export.
      }
    }
  }
  return found;
}

/** Rows for every fixture export with at least one measured compaction (their figures are scripted). */
export function fixtureRows(
  dirs: readonly string[] = [join(PROJECT_ROOT, "fixtures"), join(PROJECT_ROOT, "..", "shared", "fixtures")],
): PredictionRow[] {
  return dirs.flatMap((dir) =>
    exportsUnder(dir).map(([path, messages]) => ({
      source: relative(PROJECT_ROOT, path),
      figures: "scripted" as const,
      points: predictionPoints(messages),
    })),
  );
}

/** Runs each counted scenario once in the real opencode without the guard and measures its compactions. */
export async function countedRows(scenarios: readonly ScenarioName[] = [...COUNTED_SCENARIOS]): Promise<PredictionRow[]> {
  const rows: PredictionRow[] = [];
  for (const scenario of scenarios) {
    const run = await runScenario({ scenario, guard: false, maxRequests: 20 });
    rows.push({ source: `e2e ${scenario} (live)`, figures: "counted", points: predictionPoints(run.export?.messages ?? []) });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = [...(process.argv.includes("--run") ? await countedRows() : []), ...fixtureRows()];
  console.log(predictionTable(rows));
}

/**
 * The scenario × tokenizer table (`npm run table:tokens`): every counted scenario run in the
 * real opencode 1.18.33 without the guard (so every compaction is followed by a step), the
 * model server counting each request with a real tokenizer (tokenizers.ts). Per run, at the
 * session's first compaction: src/judge/predict.ts's lower bound of the next prompt, the
 * prompt that step really sent, and the margin (actual − bound, tokens; negative would be a
 * bound over the real prompt); the smallest margin over every compaction of the run; and what
 * cannot-make-room decides at compaction 1 with the default settings (`deny` on a fixed point).
 *
 * `--tokenizers o200k,claude` and `--scenarios fixed-point-counted,…` choose a part of the
 * matrix; `--markdown` prints the table as Markdown (docs/zero-waste.md); `--save DIR` keeps
 * each run's messages (`<scenario>.<tokenizer>.json`) and `--from DIR` measures those again
 * without running opencode (after a change of the bound). Runs go
 * E2E_CONCURRENCY at a time (default 2). A subagent scenario is measured in the subagent's
 * session (the one that compacts).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildTimeline } from "../src/hosts/opencode/v1.js";
import { predictionMargin, predictNextPrompt } from "../src/core.js";
import { replayMessages } from "../src/core.js";
import { DEFAULT_SETTINGS } from "../src/config/settings.js";
import { usableContext } from "../src/hosts/opencode/facts.js";
import { runScenario } from "./harness.js";
import { e2eConcurrency, mapLimit } from "./pool.js";
import { predictionPoints } from "./prediction-table.js";
import { COUNTED_SCENARIOS, scenarioSetup, SCENARIOS, type ScenarioName } from "./scenarios.js";
import { formatInt, formatTable } from "./table.js";
import { REAL_TOKENIZERS, TOKENIZERS, type TokenizerName } from "./tokenizers.js";

/** One cell of the matrix. Tokens throughout. */
export interface TokenRow {
  readonly scenario: ScenarioName;
  readonly tokenizer: TokenizerName;
  /** opencode's usable context for the scenario's model (and `compaction.reserved`). */
  readonly usable: number;
  /** Automatic compactions followed by a step (each one a measured point). */
  readonly compactions: number;
  /** At compaction 1: the bound, the real prompt of the step after it, actual − bound; null when not measured. */
  readonly predicted: number | null;
  readonly actual: number | null;
  readonly margin: number | null;
  /** The rule's margin at compaction 1 (predict.ts `predictionMargin`): the bound less this is compared with the line. */
  readonly ruleMargin: number | null;
  /** The smallest actual − bound over every compaction of the run. */
  readonly worstMargin: number | null;
  /** Was the real prompt after compaction 1 still at or over the usable context (a fixed point)? */
  readonly fixedPoint: boolean | null;
  /** What the guard with the default settings decides at compaction 1: the rule that denies, or "allow". */
  readonly decision: string;
}

/** Measures one finished session (its export's messages). */
export function measure(scenario: ScenarioName, tokenizer: TokenizerName, messages: readonly unknown[]): TokenRow {
  const setup = scenarioSetup(scenario);
  const reserved = typeof setup.compaction?.reserved === "number" ? setup.compaction.reserved : undefined;
  const usable = usableContext(setup.limits, reserved) ?? 0;
  const timeline = buildTimeline(messages);
  const points = predictionPoints(messages);
  const first = timeline.compactions.find((c) => c.auto && c.succeeded);
  const prediction = first ? predictNextPrompt(timeline, first) : null;
  const point = points.find((p) => p.compaction === first?.index) ?? null;
  const verdict = replayMessages(messages, DEFAULT_SETTINGS, { limits: setup.limits, reserved })[0];
  return {
    scenario,
    tokenizer,
    usable,
    compactions: points.length,
    predicted: prediction?.status === "predicted" ? prediction.predictedTokens : null,
    actual: point?.actual ?? null,
    margin: point?.error ?? null,
    ruleMargin: prediction?.status === "predicted" ? predictionMargin(prediction.predictedTokens) : null,
    worstMargin: points.length > 0 ? Math.min(...points.map((p) => p.error)) : null,
    fixedPoint: point === null ? null : point.actual >= usable,
    decision: verdict === undefined ? "-" : verdict.decision === "deny" ? `deny (${verdict.rule})` : "allow",
  };
}

/**
 * Runs one cell: the scenario without the guard, counted with the tokenizer, up to 8 model
 * requests. @returns the measured session's messages (the subagent's, when there is one).
 */
export async function runCell(scenario: ScenarioName, tokenizer: TokenizerName): Promise<unknown[]> {
  const run = await runScenario({ scenario, guard: false, maxRequests: 8, tokenizer, timeoutMs: 120_000 });
  return (run.children.at(-1) ?? run.export)?.messages ?? [];
}

const cell = (n: number | null): string => (n === null ? "-" : formatInt(n));

/** The rows as a table: scenario, tokenizer, usable, bound, actual, margin, worst margin, fixed point, decision. */
export function tokenTable(rows: readonly TokenRow[], markdown = false): string {
  const header = [
    "scenario",
    "tokenizer",
    "usable",
    "bound at 1",
    "actual after 1",
    "margin",
    "worst margin",
    "fixed point",
    "default at 1",
  ];
  const body = rows.map((r) => [
    r.scenario,
    r.tokenizer,
    formatInt(r.usable),
    cell(r.predicted),
    cell(r.actual),
    cell(r.margin),
    cell(r.worstMargin),
    r.fixedPoint === null ? "-" : r.fixedPoint ? "yes" : "no",
    r.decision,
  ]);
  if (!markdown) return formatTable(header, body);
  const right = new Set([2, 3, 4, 5, 6]);
  return [
    `| ${header.join(" | ")} |`,
    `| ${header.map((_, i) => (right.has(i) ? "---:" : "---")).join(" | ")} |`,
    ...body.map((cells) => `| ${cells.join(" | ")} |`),
  ].join("\n");
}

/** The value of `--name value`, or null. */
function argValue(name: string): string | null {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? null : (process.argv[i + 1] ?? null);
}

/** The values of `--name a,b`, checked against `known`. */
function listArg<T extends string>(name: string, known: readonly T[], fallback: readonly T[]): T[] {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return [...fallback];
  const values = (process.argv[i + 1] ?? "").split(",").filter((v) => v !== "");
  const unknown = values.filter((v) => !(known as readonly string[]).includes(v));
  if (unknown.length > 0) throw new Error(`--${name}: unknown ${unknown.join(", ")} (known: ${known.join(", ")})`);
  return values as T[];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tokenizers = listArg("tokenizers", TOKENIZERS, REAL_TOKENIZERS);
  const scenarios = listArg("scenarios", SCENARIOS, [...COUNTED_SCENARIOS]);
  const cells = scenarios.flatMap((scenario) => tokenizers.map((tokenizer) => [scenario, tokenizer] as const));
  const started = Date.now();
  const save = argValue("save");
  const from = argValue("from");
  const rows = await mapLimit(cells, from === null ? e2eConcurrency() : 1, async ([scenario, tokenizer]) => {
    const file = (dir: string) => join(dir, `${scenario}.${tokenizer}.json`);
    const messages = from === null ? await runCell(scenario, tokenizer) : (JSON.parse(await readFile(file(from), "utf8")) as unknown[]);
    if (save !== null) {
      await mkdir(save, { recursive: true });
      await writeFile(file(save), JSON.stringify(messages));
    }
    const row = measure(scenario, tokenizer, messages);
    process.stderr.write(`  ${scenario} × ${tokenizer}: bound ${cell(row.predicted)}, actual ${cell(row.actual)}, ${row.decision}\n`);
    return row;
  });
  console.log(tokenTable(rows, process.argv.includes("--markdown")));
  const margins = rows.flatMap((r) => (r.worstMargin === null ? [] : [r.worstMargin]));
  console.log(
    `\n${rows.length} runs in ${((Date.now() - started) / 1000).toFixed(0)} s; ` +
      `smallest margin ${margins.length > 0 ? formatInt(Math.min(...margins)) : "-"} tokens (negative: a bound over the real prompt)`,
  );
}

/**
 * `npx tsx e2e/record-fixtures.ts` (after `npm run build`): runs each scenario in the real
 * opencode and saves its session export, paths sanitised, as fixtures/e2e-<name>.json for
 * the unit tests to replay. Guarded runs for every scenario, plus the unguarded fixed-point
 * loop (it runs to the server's cap) and provider-overflow after an earlier user turn.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runScenario, type RunOptions } from "./harness.js";
import { e2eConcurrency, mapLimit } from "./pool.js";
import { PROJECT_ROOT } from "./sandbox.js";
import { SCENARIOS } from "./scenarios.js";

/** Fixture name (without `e2e-` and `.json`) → the run that produces it. */
const RECORDINGS: Array<[name: string, options: RunOptions]> = [
  ...SCENARIOS.map((scenario): [string, RunOptions] => [scenario, { scenario, guard: true }]),
  ["fixed-point-unguarded", { scenario: "fixed-point", guard: false }],
  ["provider-overflow-replay", { scenario: "provider-overflow", guard: true, priorTurn: true }],
];

/** Throws when a machine path survived sanitising. */
function assertNoMachinePaths(name: string, text: string): void {
  for (const needle of [tmpdir(), PROJECT_ROOT, "ocg-e2e-"]) {
    if (text.includes(needle)) throw new Error(`fixture ${name} still contains ${JSON.stringify(needle)}`);
  }
}

const results = await mapLimit(RECORDINGS, e2eConcurrency(), async ([name, options]) => {
  const run = await runScenario({ ...options, maxRequests: 16, replay: false });
  if (!run.sanitizedExport) throw new Error(`${name}: no session was exported (exit ${run.exitCode})`);
  // The server's port changes every run; keep the fixture stable.
  const text = `${JSON.stringify(run.sanitizedExport, null, 2).replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:4010")}\n`;
  assertNoMachinePaths(name, text);
  const file = join(PROJECT_ROOT, "fixtures", `e2e-${name}.json`);
  await writeFile(file, text);
  return `${file.slice(PROJECT_ROOT.length + 1)}: ${run.figures!.compactionCycles} compactions, ${run.metrics.ended.detail}`;
});
for (const line of results) console.log(line);

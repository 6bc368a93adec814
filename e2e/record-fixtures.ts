/**
 * `npx tsx e2e/record-fixtures.ts [name …]` (after `npm run build`): runs each scenario in the
 * real opencode and saves its session export, paths sanitised, as fixtures/e2e-<name>.json
 * for the unit tests to replay. Guarded runs for every scenario, plus the unguarded
 * fixed-point loop (it runs to the server's cap) and provider-overflow after an earlier user
 * turn. With names, only those fixtures are recorded (e.g. `four-read-cycle pid-in-output`).
 *
 * Sanitising: the sandbox's paths become /home/dev/project (the project), /home/dev (HOME)
 * and /home/dev/.local/e2e (the rest of the sandbox: opencode's data dir, so the
 * "Full output saved to: …/tool-output/tool_<id>" notices of big outputs too); the server's
 * port becomes 4010. Paths opencode's tools made outside the sandbox stay as they were
 * (`mktemp -u` names under /tmp in pid-in-output). Each written fixture is replayed through
 * the built CLI with the run's model limits, and must get the decisions the live hook logged.
 */
import { rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { runScenario, type RunOptions } from "./harness.js";
import { e2eConcurrency, mapLimit } from "./pool.js";
import { replayExport } from "./replay.js";
import { PROJECT_ROOT } from "./sandbox.js";
import { SCENARIOS, scenarioSetup, type ScenarioName } from "./scenarios.js";

/** Run options a scenario needs beyond `{ scenario, guard: true }`. */
const SCENARIO_OPTIONS: Partial<Record<ScenarioName, Partial<RunOptions>>> = {
  // opencode re-sends the user's message after the first overflow compaction only when an
  // earlier real turn exists: that is the case this scenario is about.
  "overflow-resend": { priorTurn: true },
};

/** Fixture name (without `e2e-` and `.json`) → the run that produces it. */
const RECORDINGS: Array<[name: string, options: RunOptions]> = [
  ...SCENARIOS.map((scenario): [string, RunOptions] => [scenario, { scenario, guard: true, ...SCENARIO_OPTIONS[scenario] }]),
  ["fixed-point-unguarded", { scenario: "fixed-point", guard: false }],
  ["provider-overflow-replay", { scenario: "provider-overflow", guard: true, priorTurn: true }],
];

/** Throws when a path of this machine survived sanitising (a sandbox path, the checkout, the real HOME). */
function assertNoMachinePaths(name: string, text: string): void {
  for (const needle of [PROJECT_ROOT, homedir(), "ocg-e2e-"]) {
    if (text.includes(needle)) throw new Error(`fixture ${name} still contains ${JSON.stringify(needle)}`);
  }
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !RECORDINGS.some(([n]) => n === name));
if (unknown.length > 0) throw new Error(`no such recording: ${unknown.join(", ")} (known: ${RECORDINGS.map(([n]) => n).join(", ")})`);
const selected = wanted.length > 0 ? RECORDINGS.filter(([name]) => wanted.includes(name)) : RECORDINGS;

const results = await mapLimit(selected, e2eConcurrency(), async ([name, options]) => {
  const run = await runScenario({ ...options, maxRequests: 16, replay: false });
  if (!run.sanitizedExport) throw new Error(`${name}: no session was exported (exit ${run.exitCode})`);
  // The server's port changes every run; keep the fixture stable.
  const text = `${JSON.stringify(run.sanitizedExport, null, 2).replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:4010")}\n`;
  assertNoMachinePaths(name, text);
  const file = join(PROJECT_ROOT, "fixtures", `e2e-${name}.json`);
  await writeFile(file, text);
  let replayed = "";
  if (options.guard) {
    // The sanitised fixture must replay to what the live hook decided.
    const setup = scenarioSetup(options.scenario);
    const reserved = setup.compaction?.reserved;
    const replay = await replayExport(file, { limits: setup.limits, ...(typeof reserved === "number" ? { reserved } : {}) });
    const live = run.decisions.map((d) => `${d.index}:${d.decision}:${d.rule}`);
    const called = new Set(run.figures!.compactions.filter((c) => c.hookCalled).map((c) => c.messageID));
    const fromFixture = replay.compactions.filter((c) => called.has(c.messageID)).map((c) => `${c.index}:${c.decision}:${c.rule}`);
    if (live.join() !== fromFixture.join()) {
      await rm(file);
      throw new Error(`${name}: the fixture replays to ${fromFixture.join(" ")}, the live hook decided ${live.join(" ")}`);
    }
    replayed = `, replay of the fixture agrees (first deny ${replay.firstDeny ?? "none"})`;
  }
  return `${file.slice(PROJECT_ROOT.length + 1)}: ${run.figures!.compactionCycles} compactions, ${run.metrics.ended.detail}${replayed}`;
});
for (const line of results) console.log(line);

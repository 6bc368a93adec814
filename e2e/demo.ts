/**
 * `npm run demo`: the same looping session (`fixed-point`: the model runs `echo hi` every
 * step and every step is over opencode's usable context) in the real opencode, first
 * without the guard, then with it. Needs no key, no account and no network beyond
 * 127.0.0.1: the model is a scripted server on a random local port.
 */
import { runScenario, type ScenarioRun } from "./harness.js";
import { OPENCODE_VERSION, opencodeBinary } from "./sandbox.js";
import { MODEL_LIMITS, USABLE_TOKENS } from "./scenarios.js";
import { formatInt, formatSeconds, formatTable } from "./table.js";
import { freshDist } from "./fresh-dist.js";

/** The requests the scripted server answers before refusing (it keeps an unguarded run finite). */
const CAP = 16;

async function run(guard: boolean): Promise<ScenarioRun> {
  process.stdout.write(`running opencode ${guard ? "with" : "without"} the guard … `);
  const result = await runScenario({ scenario: "fixed-point", guard, maxRequests: CAP });
  process.stdout.write(`${result.metrics.ended.detail}\n`);
  return result;
}

// dist/ is built only when src/ changed since; the first time, the binary is installed here
// (into .cache/opencode/), before any output.
freshDist();
opencodeBinary();
const without = await run(false);
const withGuard = await run(true);

const rows = (label: string, pick: (r: ScenarioRun) => string) => [label, pick(without), pick(withGuard)];
console.log(
  `\nfixed-point loop, opencode ${OPENCODE_VERSION}, model limits ${formatInt(MODEL_LIMITS.context)} context / ` +
    `${formatInt(MODEL_LIMITS.output)} output (usable ${formatInt(USABLE_TOKENS)} tokens)\n` +
    `server cap: the scripted model answers ${CAP} requests (titles not counted), then refuses with HTTP 400; ` +
    "without the guard nothing else ends the loop\n",
);
console.log(
  formatTable(
    ["", "without guard", "with guard"],
    [
      rows("compaction cycles", (r) => String(r.metrics.compactionCycles)),
      rows("synthetic continue turns", (r) => String(r.metrics.continueTurns)),
      rows("model requests", (r) => String(r.metrics.modelRequests)),
      rows("prompt tokens sent", (r) => formatInt(r.metrics.promptTokensSent)),
      rows("wall time", (r) => formatSeconds(r.metrics.wallMs)),
      rows("how it ended", (r) => r.metrics.ended.detail),
    ],
  ),
);
console.log("model requests: every request the server got, the session's title and a refused one included");
console.log(`\nguard's stated reason (its warn log line):\n  ${withGuard.metrics.guardReason ?? "(none: the guard did not deny)"}`);
if (!withGuard.metrics.guardReason) process.exitCode = 1;

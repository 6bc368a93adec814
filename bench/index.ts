/**
 * `npm run bench`: what each hook costs in the real opencode on long sessions (bench/host-hooks.ts),
 * the end-to-end table (bench/e2e.ts), what the guard adds to a step in the
 * real opencode (bench/step-cost.ts) and in one process, hooks alone (bench/hooks.ts), what the
 * guard holds per session (bench/memory.ts), the
 * speed tables against 0.4.0 (bench/speed.ts), then the scale tables (bench/scale.ts), the
 * audit of 1,000 sessions (bench/audit.ts) and of 1,000 mixed-agent files (bench/hosts.ts).
 */
import { auditBench } from "./audit.js";
import { main as e2e } from "./e2e.js";
import { hooksBench } from "./hooks.js";
import { DEFAULT_SIZES, hostHooksBench, hostHooksReport } from "./host-hooks.js";
import { hostsBench } from "./hosts.js";
import { memoryBench } from "./memory.js";
import { scaleBench } from "./scale.js";
import { speedBench } from "./speed.js";
import { stepCostBench, stepCostTable } from "./step-cost.js";
import { PLUGIN_ENTRY } from "../e2e/replay.js";

console.log(`${hostHooksReport(await hostHooksBench(DEFAULT_SIZES, [["with guard", PLUGIN_ENTRY]]))}\n`);

await e2e();
console.log(
  `\nStep cost in the real opencode (400 steps, a different 45,000-byte tool output each):\n${stepCostTable(await stepCostBench(400))}`,
);
console.log(`\n${await hooksBench()}`);
console.log(`\n${memoryBench()}`);
console.log(`\n${await speedBench()}`);
console.log(`\n${await scaleBench()}`);
console.log(`\n${await auditBench()}`);
console.log(`\n${await hostsBench()}`);

/**
 * `npm run bench`: the end-to-end table (bench/e2e.ts), the speed tables against 0.4.0
 * (bench/speed.ts), then the scale tables (bench/scale.ts) and the audit of 1,000 sessions
 * (bench/audit.ts).
 */
import { auditBench } from "./audit.js";
import { main as e2e } from "./e2e.js";
import { scaleBench } from "./scale.js";
import { speedBench } from "./speed.js";

await e2e();
console.log(`\n${await speedBench()}`);
console.log(`\n${await scaleBench()}`);
console.log(`\n${await auditBench()}`);

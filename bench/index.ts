/**
 * `npm run bench`: the end-to-end table (bench/e2e.ts), then the scale tables (bench/scale.ts),
 * then the audit of 1,000 sessions (bench/audit.ts).
 */
import { auditBench } from "./audit.js";
import { main as e2e } from "./e2e.js";
import { scaleBench } from "./scale.js";

await e2e();
console.log(`\n${await scaleBench()}`);
console.log(`\n${await auditBench()}`);

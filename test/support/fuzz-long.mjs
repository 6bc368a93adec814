// `npm run fuzz`: every property of test/fuzz.test.ts on 100,000 generated histories
// (FUZZ_RUNS), each describe block in a vitest process of its own: one process for all of
// them accumulates state across 1.6 million runs until the worker dies (seen at 4.5 GB).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const blocks = [...readFileSync(new URL("../fuzz.test.ts", import.meta.url), "utf8").matchAll(/^describe\("([^"]+)"/gm)].map((m) => m[1]);
// One seed for the whole run, printed before anything runs (a worker that dies out of memory
// takes its output with it): FUZZ_SEED=<seed> npm run fuzz replays the run.
const seed = process.env.FUZZ_SEED ?? String(Math.floor(Math.random() * 2 ** 31));
const env = { ...process.env, FUZZ_RUNS: process.env.FUZZ_RUNS ?? "100000", FUZZ_SEED: seed };
console.log(`fuzz: seed ${seed} at FUZZ_RUNS=${env.FUZZ_RUNS} (FUZZ_SEED=${seed} npm run fuzz replays this run)`);
let failed = 0;
for (const name of blocks) {
  const started = Date.now();
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const run = spawnSync("npx", ["vitest", "run", "test/fuzz.test.ts", "-t", `^${escaped} `, "--testTimeout=0", "--reporter=verbose"], {
    env,
    stdio: "inherit",
  });
  if (run.status !== 0) failed += 1;
  console.log(
    `fuzz: "${name}" ${run.status === 0 ? "passed" : `FAILED (seed ${seed}${run.signal ? `, ended by ${run.signal}` : ""})`} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
}
console.log(`fuzz: ${blocks.length - failed}/${blocks.length} blocks passed at FUZZ_RUNS=${env.FUZZ_RUNS}, seed ${seed}`);
process.exit(failed === 0 ? 0 : 1);

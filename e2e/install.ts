/**
 * `npm run e2e:install`: what the end-to-end suite, the demo, the benches and
 * `npm run table:tokens` use beyond the root `npm ci`, each installed only when missing
 * (they also install themselves on first use): e2e/node_modules from e2e/package-lock.json
 * (tools.ts) and the opencode binary (sandbox.ts) in .cache/opencode/<version>/.
 */
import { relative } from "node:path";
import { OPENCODE_VERSION, opencodeBinary, PROJECT_ROOT } from "./sandbox.js";
import { E2E_DIR, ensureE2eTools } from "./tools.js";

ensureE2eTools();
console.log(`${relative(PROJECT_ROOT, E2E_DIR)}/node_modules: installed from ${relative(PROJECT_ROOT, E2E_DIR)}/package-lock.json`);
const bin = opencodeBinary();
console.log(`opencode ${process.env.OPENCODE_BIN ? "(OPENCODE_BIN)" : OPENCODE_VERSION}: ${relative(PROJECT_ROOT, bin)}`);

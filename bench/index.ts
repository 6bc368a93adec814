/**
 * `npm run bench`: the end-to-end table (bench/e2e.ts), then bench/scale.ts when it exists
 * (imported; if it exports a `main` function, that is awaited).
 */
import { existsSync } from "node:fs";
import { main as e2e } from "./e2e.js";

await e2e();

// Optional and maybe not written yet: a computed specifier keeps tsc from requiring it.
const scaleModule = "./scale.js";
if (existsSync(new URL("./scale.ts", import.meta.url))) {
  const scale = (await import(scaleModule)) as { main?: () => unknown };
  if (typeof scale.main === "function") await scale.main();
}

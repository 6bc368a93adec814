// npm runs `prepare` after `npm ci` / `npm install` in this clone, and before `npm pack` /
// `npm publish`. After an install it builds the JavaScript only (tsup --no-dts, 2–3 s): the
// plugins opencode loads and the executable, all a clone needs to run. The type declarations
// (dist/*.d.ts) take tsup another 6–25 s, so only a pack or a publish (whose tarball carries
// them) and `npm run build` make them. Without tsup (npm ci --omit=dev) there is nothing to
// build with: it says so and leaves dist/ as it is.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync("node_modules/tsup")) {
  console.log("prepare: tsup is a dev dependency and is not installed; dist/ not built (npm ci without --omit=dev builds it)");
} else if (["pack", "publish"].includes(process.env.npm_command ?? "")) {
  execSync("tsup", { stdio: "inherit" });
} else {
  execSync("tsup --no-dts", { stdio: "inherit" });
  console.log("prepare: dist/ built without type declarations (dist/*.d.ts: npm run build)");
}

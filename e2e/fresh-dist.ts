/**
 * Builds `dist/`'s JavaScript only when it is missing or older than what it is built from, so
 * that `npm run demo` and `npm run try` right after `npm ci` (whose `prepare` built it) start
 * at once. The type declarations are not made here: opencode loads none of them.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "./sandbox.js";

/** The built files demo and try load. */
const OUTPUTS = ["dist/index.js", "dist/cli/bin.js", "dist/cli/pictures.mjs"];
/** What they are built from: every file under src/, and the build's own settings. */
const INPUTS = ["src", "tsup.config.ts", "package.json", "package-lock.json"];

/** The newest modification time (ms) of a file, or of any file under a folder. */
function newest(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newest(join(path, name))), info.mtimeMs);
}

/**
 * Why `dist/` needs a build (`"dist/index.js is missing"`, `"src/ changed after the last
 * build"`), or null when every output is there and newer than every input.
 */
export function staleDist(root: string = PROJECT_ROOT): string | null {
  const missing = OUTPUTS.find((f) => !existsSync(join(root, f)));
  if (missing !== undefined) return `${missing} is missing`;
  const built = Math.min(...OUTPUTS.map((f) => statSync(join(root, f)).mtimeMs));
  const changed = INPUTS.find((f) => existsSync(join(root, f)) && newest(join(root, f)) > built);
  return changed === undefined ? null : `${changed} changed after the last build`;
}

/** Builds dist/'s JavaScript (`tsup --no-dts`, 2–3 s) when {@link staleDist} says so, with one line; else nothing. */
export function freshDist(): void {
  const why = staleDist();
  if (why === null) return;
  process.stdout.write(`building dist/ (${why}): tsup --no-dts … `);
  const start = Date.now();
  execFileSync(join(PROJECT_ROOT, "node_modules/.bin/tsup"), ["--no-dts"], { cwd: PROJECT_ROOT, stdio: ["ignore", "ignore", "inherit"] });
  process.stdout.write(`${((Date.now() - start) / 1000).toFixed(1)} s\n`);
}

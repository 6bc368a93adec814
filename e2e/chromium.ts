/**
 * Debian's Chromium for the suite's browser work (the audit page's test, the docs' pictures),
 * driven by playwright-core: where it is, how it is started on a machine with no network, and
 * its install when missing.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "./sandbox.js";

/** The Chromium binary: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** This machine's network is closed: without these flags Chromium waits on connections it cannot make. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Installs Chromium with e2e/install-chromium.sh (apt-get; needs root or sudo) when
 * {@link CHROMIUM} is missing; else nothing.
 * @returns the binary's path; throws when the install fails.
 */
export function ensureChromium(): string {
  if (!existsSync(CHROMIUM)) execFileSync(join(PROJECT_ROOT, "e2e/install-chromium.sh"), { stdio: "inherit" });
  return CHROMIUM;
}

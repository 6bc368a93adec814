/**
 * The whole test run gets one temporary directory of its own: vitest.config.ts makes it and
 * hands it to every test as `TMPDIR` (which `os.tmpdir()` reads and every child process
 * inherits); this global setup's teardown removes it when the run ends, so that the folders
 * tests make there (`ocg-audit-*`, `ocg-cli-*` …) never pile up in the system's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The environment variable that carries the run's directory from the config to the teardown. */
const RUN_DIR = "OCG_TEST_RUN_TMPDIR";

/** Makes the run's directory (once per process) and returns its path. */
export function runTempDir(): string {
  return (process.env[RUN_DIR] ??= mkdtempSync(join(tmpdir(), "ocg-test-run-")));
}

export default function setup(): () => void {
  return () => {
    const dir = process.env[RUN_DIR];
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}

/**
 * Runs `audit` in a child process as on a terminal: standard error stands in for a TTY (so
 * the progress bar is drawn on it), for the Ctrl-C tests of test/audit/audit.test.ts. Arguments
 * after the script are audit's.
 */
import { main } from "../../src/cli/main.js";

const progress = Object.assign(process.stderr, { isTTY: true });
process.exitCode = await main(
  ["audit", ...process.argv.slice(2)],
  (t) => process.stdout.write(t),
  (t) => process.stderr.write(t),
  process.env,
  progress,
);

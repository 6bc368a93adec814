#!/usr/bin/env node
/** The `opencode-compaction-guard` executable: runs the CLI and sets the exit code. */
import { main } from "./cli/main.js";
import { raiseInterruptBudget } from "./cli/tier-up.js";

// A replay is over before most of its code is worth optimising (cli/tier-up.ts).
raiseInterruptBudget();

// `replay … | head`: the reader went away; what is left to print has nowhere to go.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
});

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

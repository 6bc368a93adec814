#!/usr/bin/env node
/** The `opencode-compaction-guard` executable: runs the CLI and sets the exit code. */
import { main } from "./cli/main.js";

// `replay … | head`: the reader went away; what is left to print has nowhere to go.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
});

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});

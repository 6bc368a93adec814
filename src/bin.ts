#!/usr/bin/env node
/** The `opencode-compaction-guard` executable: runs the CLI and sets the exit code. */
import { main } from "./cli.js";

process.exitCode = await main(process.argv.slice(2));

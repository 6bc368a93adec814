import { defineConfig } from "vitest/config";
import { runTempDir } from "./test/support/temp-dir.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One temporary directory for the run, removed at its end (test/support/temp-dir.ts).
    env: { TMPDIR: runTempDir() },
    globalSetup: ["test/support/temp-dir.ts"],
  },
});

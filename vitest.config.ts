import { defineConfig } from "vitest/config";
import { runTempDir } from "./test/support/temp-dir.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One temporary directory for the run, removed at its end (test/support/temp-dir.ts).
    env: { TMPDIR: runTempDir() },
    globalSetup: ["test/support/temp-dir.ts"],
    // Property tests run thousands of cases: about 1 s each when idle, up to 10 s on a loaded
    // 2-core machine. A time-out is no speed goal here (those are in npm run bench).
    testTimeout: 20_000,
  },
});

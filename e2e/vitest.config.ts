import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The end-to-end suite: real opencode runs against a scripted model server on 127.0.0.1.
// Files run one after another; each file runs its opencode processes two at a time. The
// global setup installs the suite's own packages and the opencode binary when missing.
export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    include: ["e2e/**/*.test.ts"],
    globalSetup: ["e2e/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});

import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The end-to-end suite: real opencode runs against a scripted model server on 127.0.0.1.
// Files run one after another; each file runs its opencode processes two at a time.
export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    include: ["e2e/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});

import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The compatibility matrix (npm run test:compat): a few e2e scenarios against every opencode
// release in OPENCODE_COMPAT_VERSIONS (default: see e2e/compat.spec.ts), each binary
// installed once into .cache/opencode/<version>/ by e2e/install-opencode.sh.
export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    include: ["e2e/compat.spec.ts", "e2e/guard-command.compat.spec.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 900_000,
  },
});

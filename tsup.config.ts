import { defineConfig } from "tsup";

export default defineConfig({
  // index: the V1 plugin (`main`, `exports["./server"]`); v2: the OpenCode 2.x plugin (`exports["."]`).
  entry: { index: "src/index.ts", core: "src/core.ts", bin: "src/bin.ts", v2: "src/plugin/v2-entry.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: { entry: { index: "src/index.ts", core: "src/core.ts", v2: "src/plugin/v2-entry.ts" } },
  clean: true,
  sourcemap: false,
  splitting: true,
});

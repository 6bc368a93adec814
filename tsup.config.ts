import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/core.ts", "src/bin.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: { entry: ["src/index.ts", "src/core.ts"] },
  clean: true,
  sourcemap: false,
  splitting: true,
});

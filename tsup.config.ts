import { defineConfig, type Options } from "tsup";

const common: Options = { format: ["esm"], target: "node20", platform: "node", sourcemap: false, splitting: true };

export default defineConfig([
  {
    ...common,
    // index: the V1 plugin (`main`, `exports["./server"]`); v2: the OpenCode 2.x plugin (`exports["."]`).
    entry: { index: "src/index.ts", core: "src/core.ts", v2: "src/plugin/v2-entry.ts" },
    dts: { entry: { index: "src/index.ts", core: "src/core.ts", v2: "src/plugin/v2-entry.ts" } },
    // dist/cli/ is the other build's (both run at once): each cleans only its own files.
    clean: ["!cli/**"],
  },
  {
    ...common,
    // The executable, with its npm dependencies bundled in: resolving and loading each package
    // at start-up (safe-stable-stringify's CommonJS among them) cost more than the work of a
    // small replay. The audit's, the chart's and the page's code load only when used. Two stay
    // in node_modules: the SDK (external: only audit through opencode serve loads it) and zod,
    // which src/shared/zod.ts requires on first use (the bundler does not see that require).
    entry: { bin: "src/bin.ts" },
    outDir: "dist/cli",
    clean: true,
    noExternal: [/^(?!@opencode-ai\/sdk)/],
    // Bundled CommonJS packages call require() for Node's own modules.
    banner: { js: 'import { createRequire as __ocgRequire } from "node:module";\nconst require = __ocgRequire(import.meta.url);' },
  },
]);

import { writeFileSync } from "node:fs";
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
    // The executable: one CommonJS file with its npm dependencies bundled in. Resolving and
    // loading each package, or each chunk through Node's ESM loader, at start-up cost more than
    // the work of a small replay; Node 20 has no compile cache for ES modules. The audit's, the
    // chart's and the page's code are bundled in but run only when used. Three stay in
    // node_modules, imported on first use: the SDK (an ES module; only audit through opencode
    // serve needs it), cli-progress (only audit on a terminal draws a bar: a tenth of the file
    // to parse at every start) and zod, which src/shared/zod.ts requires (the bundler does not
    // see that require). dist/cli/package.json says the folder's .js files are CommonJS.
    entry: { bin: "src/bin.ts" },
    outDir: "dist/cli",
    format: ["cjs"],
    splitting: false,
    shims: true,
    outExtension: () => ({ js: ".js" }),
    clean: true,
    noExternal: [/^(?!@opencode-ai\/sdk|cli-progress)/],
    onSuccess: async () => writeFileSync("dist/cli/package.json", `${JSON.stringify({ type: "commonjs" })}\n`),
  },
]);

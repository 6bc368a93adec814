import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Plugin } from "esbuild";
import { defineConfig, type Options } from "tsup";

const common: Options = { format: ["esm"], target: "node20", platform: "node", sourcemap: false, splitting: true };

/** src/report/pictures.ts, which the executable imports from its own file (see below). */
const PICTURES = resolve("src/report/pictures.ts");

/** In the executable, `import("…/pictures.js")` stays an import of ./pictures.mjs, built apart. */
const picturesApart: Plugin = {
  name: "pictures-apart",
  setup(build) {
    build.onResolve({ filter: /pictures\.js$/ }, (args) =>
      resolve(args.resolveDir, args.path.replace(/\.js$/, ".ts")) === PICTURES ? { path: "./pictures.mjs", external: true } : undefined,
    );
  },
};

export default defineConfig([
  {
    ...common,
    // index: the V1 plugin (`main`, `exports["./server"]`); v2: the OpenCode 2.x plugin (`exports["."]`).
    // v2/index: the same 2.x module as a folder's entry, for a 2.x that loads a plugin folder (docs/opencode-2.md).
    entry: {
      index: "src/index.ts",
      core: "src/core.ts",
      v2: "src/plugin/opencode-v2/v2-entry.ts",
      "v2/index": "src/plugin/opencode-v2/v2-entry.ts",
    },
    dts: { entry: { index: "src/index.ts", core: "src/core.ts", v2: "src/plugin/opencode-v2/v2-entry.ts" } },
    // dist/cli/ is the other build's (both run at once): each cleans only its own files.
    clean: ["!cli/**"],
  },
  {
    ...common,
    // The executable: one CommonJS file with its npm dependencies bundled in but the pictures'. Resolving and
    // loading each package, or each chunk through Node's ESM loader, at start-up cost more than
    // the work of a small replay; Node 20 has no compile cache for ES modules. The audit's code
    // is bundled in but runs only when used; the chart and the page (with d3) are
    // dist/cli/pictures.mjs, imported when they draw (the build below). Three stay in
    // node_modules, imported on first use: the SDK (an ES module; only audit through opencode
    // serve needs it), cli-progress (only audit on a terminal draws a bar: a tenth of the file
    // to parse at every start), zod, which src/shared/zod.ts requires (the bundler does not
    // see that require), and jsonc-parser, which src/config/file.ts requires the same way. dist/cli/package.json says the folder's .js files are CommonJS.
    entry: { bin: "src/bin.ts" },
    outDir: "dist/cli",
    format: ["cjs"],
    splitting: false,
    // import.meta.url (zod's createRequire) as a file URL of this file, escaped: a `#`, `?` or
    // `%` in the install path is part of the path (tsup's own shim does not escape them).
    define: { "import.meta.url": "__ocgModuleUrl" },
    // ("use strict" first: the banner comes before the bundle's own directive.)
    banner: { js: '"use strict";\nconst __ocgModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
    outExtension: () => ({ js: ".js" }),
    clean: ["!pictures.mjs"],
    noExternal: [/^(?!@opencode-ai\/sdk|cli-progress)/],
    esbuildPlugins: [picturesApart],
    onSuccess: async () => writeFileSync("dist/cli/package.json", `${JSON.stringify({ type: "commonjs" })}\n`),
  },
  {
    ...common,
    // The pictures, with d3 and asciichart: pure functions of what the executable hands them.
    entry: { pictures: "src/report/pictures.ts" },
    outDir: "dist/cli",
    splitting: false,
    outExtension: () => ({ js: ".mjs" }),
    clean: false,
    noExternal: [/.*/],
  },
]);

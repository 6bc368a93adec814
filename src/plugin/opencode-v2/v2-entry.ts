/**
 * The module OpenCode 2.x loads, built to `dist/v2.js` (`exports["."]`): a default export
 * `{ id, setup }` (2.x's `define`) and nothing else. 1.x loads `{ id, server }` from
 * `exports["./server"]` or `main` (dist/index.js); each loader skips the other's shape.
 * The plugin itself is in ./v2-plugin.ts; docs/opencode-2.md says what it uses and how it was tested.
 */
import { createV2Plugin, type V2Plugin } from "./v2-plugin.js";

const plugin: V2Plugin = createV2Plugin();
export default plugin;

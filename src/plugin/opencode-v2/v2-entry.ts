/**
 * The module OpenCode 2.x loads, built to `dist/v2.js` (`exports["."]`) and to the folder entry
 * `dist/v2/index.js`: a default export `{ id, setup, tui }` and nothing else. `setup` is the
 * server part (2.x's `define`, ./v2-plugin.ts); `tui` the TUI part with `/guard` (./v2-tui.ts),
 * one package for the server and the TUI. 1.x loads `{ id, server }` from `exports["./server"]`
 * or `main` (dist/index.js); each loader skips the other's shape. docs/opencode-2.md says what
 * it uses and how it was tested.
 */
import { createV2Plugin, type V2Plugin } from "./v2-plugin.js";
import { createV2Tui, type V2TuiPart } from "./v2-tui.js";

/** The module's default export: the 2.x server plugin and its TUI part. */
export interface V2Module extends V2Plugin {
  readonly tui: V2TuiPart;
}

const plugin: V2Module = { ...createV2Plugin(), tui: createV2Tui() };
export default plugin;

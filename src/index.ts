/**
 * The plugin module opencode loads: a default export `{ id, server }` and nothing else
 * (opencode 1.18.33 calls every export of a module without that shape as a plugin).
 * The hook's logic is in ./plugin/opencode-v1/guard.ts.
 */
import type { PluginModule } from "@opencode-ai/plugin";
import { server } from "./plugin/opencode-v1/guard.js";

/** The module shape opencode 1.18.33 loads; a path-loaded plugin must export `id`. */
const plugin: PluginModule = { id: "compaction-guard", server };
export default plugin;

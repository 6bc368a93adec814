/**
 * Node.js's built-in modules, loaded when first used rather than with the module that names
 * them: node:crypto and node:v8 cost more to load than a small replay's work, and most
 * replays never need them. `process.getBuiltinModule` (Node.js 20.16+, Bun) needs no base
 * path; older releases require the module beside this file.
 */
import { createRequire } from "node:module";

/** The built-in module `id` (`"node:crypto"`); throws as `require` does for an unknown id. */
export function builtin<T>(id: string): T {
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  // getBuiltinModule answers undefined for an id that is not built in: require says why.
  return ((typeof get === "function" ? get(id) : undefined) ?? createRequire(import.meta.url)(id)) as T;
}

/**
 * zod, loaded on first use rather than with the module that names it. zod is the largest
 * module the CLI loads (more than the rest of the CLI together), and most commands never
 * validate anything with it: a replay with default settings reads no setting text, and a
 * well-formed export passes the hand-written check (sources/export.ts). It is read
 * synchronously (`require`, zod's CommonJS build: the same package and version), because
 * settings are resolved synchronously in the plugin and the CLI alike.
 */
import { createRequire } from "node:module";
import type * as Zod from "zod";

let loaded: typeof Zod.z | undefined;

/** zod's `z`, required on the first call. */
export function zod(): typeof Zod.z {
  return (loaded ??= (createRequire(import.meta.url)("zod") as typeof Zod).z);
}

/** A value built with zod on first use, then kept: `lazily(() => zod().number())`. */
export function lazily<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) [value, built] = [build(), true];
    return value as T;
  };
}

/** The recorded session exports under fixtures/, for tests that run on every one of them. */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The fixtures/ folder, with a trailing slash. */
export const FIXTURES = fileURLToPath(new URL("../../fixtures/", import.meta.url));

/** Every session export under `dir` (default fixtures/), sub-folders too; expectations and notes are not exports. Paths, in folder order. */
export function fixtureExports(dir = FIXTURES): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return fixtureExports(path);
    return entry.name.endsWith(".json") && !["expect.json", "notes.json"].includes(entry.name) ? [path] : [];
  });
}

/** `[name under fixtures/, path]` of every export, for `it.each`. */
export const fixtureCases = (): Array<[string, string]> => fixtureExports().map((file) => [file.slice(FIXTURES.length), file]);

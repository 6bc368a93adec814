/** The recorded session exports under fixtures/, for tests that run on every one of them. */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { GuardSettings } from "../../src/config/settings.js";

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

/**
 * Settings that change what the rules and the tool-loop check do, for tests that hold two
 * ways of replaying every fixture to the same answer: the defaults, prediction, outputs left
 * out of the comparison with a wider window and a lower threshold, and the tool-loop check
 * stopping with bash ignored.
 */
export const SETTINGS_VARIANTS: ReadonlyArray<Partial<GuardSettings>> = [
  {},
  { predict: true },
  { matchOutput: false, window: 12, threshold: 2 },
  { toolLoop: "stop", threshold: 4, ignore: ["bash"] },
];

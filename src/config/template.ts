/**
 * The settings file `init` writes: every setting commented out at its default, under its
 * one-line help, so that removing the `//` of a line sets it. Built from ./settings.ts.
 */
import { SCHEMA_KEY, SETTINGS } from "./settings.js";

/**
 * The text of a new settings file.
 * @param where `project` or `global`: named in its first comment.
 * @param schema the `$schema` value (where the JSON Schema is), or undefined for none.
 */
export function settingsFileText(where: "project" | "global", schema: string | undefined): string {
  const lines = [
    `// compaction-guard settings for ${where === "project" ? "this project" : "every project (global)"}: JSONC, comments allowed.`,
    "// Every setting is commented out at its default: remove the // before one to set it.",
    "// Lowest first: defaults, ~/.config/opencode/compaction-guard.jsonc, <project>/.opencode/compaction-guard.jsonc,",
    "// the plugin's options in opencode.json, OPENCODE_COMPACTION_GUARD_* variables (docs/configuration.md).",
    "{",
  ];
  if (schema !== undefined) lines.push(`  ${JSON.stringify(SCHEMA_KEY)}: ${JSON.stringify(schema)},`);
  for (const [key, spec] of Object.entries(SETTINGS)) {
    lines.push(`  // ${spec.help}`, `  // ${JSON.stringify(key)}: ${JSON.stringify(spec.default)},`);
  }
  lines.push("}", "");
  return lines.join("\n");
}

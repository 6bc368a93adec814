/**
 * The JSON Schema of a settings file (`compaction-guard.jsonc`), built from each setting's own
 * zod schema (./settings.ts), so that an editor checks the file as the guard does.
 * `npm run schema` writes it to schema/compaction-guard.schema.json, shipped in the package;
 * test/config/schema.test.ts fails when that file is out of date.
 */
import { SCHEMA_KEY, SETTINGS } from "./settings.js";
import { zod } from "../shared/zod.js";

/** Where the schema is, in the package. */
export const SCHEMA_FILE = "schema/compaction-guard.schema.json";

/** The schema as an object: one property per setting (its type and bounds, default and help), `$schema`, nothing else. */
export function settingsJsonSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = {
    [SCHEMA_KEY]: { type: "string", description: "the JSON Schema this file is checked with" },
  };
  for (const [key, spec] of Object.entries(SETTINGS)) {
    // Each setting's own draft-7 schema, without its `$schema` line and the `readOnly` mark of a readonly list.
    const { $schema: _, readOnly: __, ...schema } = zod().toJSONSchema(spec.schema(), { target: "draft-7" }) as Record<string, unknown>;
    properties[key] = { ...schema, default: spec.default, description: spec.help };
  }
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "compaction-guard settings",
    description:
      "Settings of the opencode-compaction-guard plugin: ~/.config/opencode/compaction-guard.jsonc (global) or <project>/.opencode/compaction-guard.jsonc",
    type: "object",
    properties,
    additionalProperties: false,
  };
}

/** The schema file's text: the schema, two-space JSON, with a final newline. */
export const settingsJsonSchemaText = (): string => `${JSON.stringify(settingsJsonSchema(), null, 2)}\n`;

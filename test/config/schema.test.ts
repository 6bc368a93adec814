/**
 * The JSON Schema shipped in the package (schema/compaction-guard.schema.json) is the one the
 * settings' zod schemas make today (`npm run schema` rewrites it), and it says what the guard
 * accepts: every setting with its default and help, `$schema`, nothing else.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SCHEMA_FILE, settingsJsonSchema, settingsJsonSchemaText } from "../../src/config/schema.js";
import { DEFAULT_SETTINGS, SETTINGS } from "../../src/config/settings.js";

const shipped = readFileSync(new URL(`../../${SCHEMA_FILE}`, import.meta.url), "utf8");
const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { files: string[] };

describe("schema/compaction-guard.schema.json", () => {
  it("is up to date (else: npm run schema) and shipped in the package", () => {
    expect(shipped).toBe(settingsJsonSchemaText());
    expect(pkg.files).toContain("schema");
  });

  it("has every setting with its default and help, $schema, and no other key", () => {
    const schema = settingsJsonSchema() as {
      properties: Record<string, { default?: unknown; description: string }>;
      additionalProperties: boolean;
    };
    expect(Object.keys(schema.properties)).toEqual(["$schema", ...Object.keys(SETTINGS)]);
    expect(schema.additionalProperties).toBe(false);
    for (const [key, spec] of Object.entries(SETTINGS)) {
      expect(schema.properties[key]!.default, key).toEqual(DEFAULT_SETTINGS[key as keyof typeof DEFAULT_SETTINGS]);
      expect(schema.properties[key]!.description, key).toBe(spec.help);
    }
    expect(schema.properties.threshold).toMatchObject({ type: "integer", minimum: 2, maximum: 1000 });
    expect(schema.properties.minReduction).toMatchObject({ type: "number", minimum: 0, exclusiveMaximum: 1 });
    expect(schema.properties.toolLoop).toMatchObject({ type: "string", enum: ["warn", "stop", "off"] });
    expect(schema.properties.ignore).toMatchObject({
      type: "array",
      maxItems: 100,
      items: { type: "string", minLength: 1, maxLength: 200 },
    });
  });
});

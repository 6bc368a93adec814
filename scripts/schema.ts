// npm run schema: writes schema/compaction-guard.schema.json from the settings' zod schemas
// (src/config/schema.ts); test/config/schema.test.ts checks it is up to date.
import { writeFileSync } from "node:fs";
import { SCHEMA_FILE, settingsJsonSchemaText } from "../src/config/schema.js";

writeFileSync(SCHEMA_FILE, settingsJsonSchemaText());
console.log(`wrote ${SCHEMA_FILE}`);

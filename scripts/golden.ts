/**
 * `npm run golden [-- --write] [-- --out DIR]`: replays every fixture and 20 generator seeds
 * (test/support/golden.ts) and compares the bytes with test/golden/replay.json; `--write`
 * records them anew, `--out DIR` also writes each output to DIR/<case>.json to diff commits.
 * Exits 1 naming the cases whose bytes moved.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { goldenRecord, RECORD } from "../test/support/golden.js";

const { values } = parseArgs({ options: { write: { type: "boolean", default: false }, out: { type: "string" } } });
const out = values.out;
const record = await goldenRecord((name, bytes) => {
  if (out === undefined) return;
  const file = join(out, `${name}.out.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, bytes);
});
if (values.write) {
  mkdirSync(dirname(RECORD), { recursive: true });
  writeFileSync(RECORD, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`golden: recorded ${Object.keys(record).length} cases in ${RECORD}`);
} else {
  const kept = JSON.parse(readFileSync(RECORD, "utf8")) as Record<string, string>;
  const moved = Object.keys({ ...kept, ...record }).filter((name) => kept[name] !== record[name]);
  console.log(`golden: ${Object.keys(record).length} cases, ${moved.length} moved`);
  for (const name of moved)
    console.log(`  ${name}: ${kept[name] === undefined ? "new" : record[name] === undefined ? "gone" : "bytes differ"}`);
  process.exitCode = moved.length > 0 ? 1 : 0;
}

// The bare parse the bench compares with: read each file named (or each file of a folder) and JSON.parse it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

for (const path of process.argv.slice(2)) {
  const files = statSync(path).isDirectory() ? readdirSync(path).map((name) => join(path, name)) : [path];
  for (const file of files) JSON.parse(readFileSync(file, "utf8"));
}

#!/usr/bin/env node
// Records what the executable prints for a fixed set of inputs, so that a change meant to keep
// behaviour can be shown to keep it byte for byte: run it before and after, then `diff -r`.
//
//   node scripts/golden.mjs <bin.js> <out-dir>
//
// For every session export under fixtures/ and test/fixtures/ (expect.json and notes.json
// excluded): `replay` as a table, `--json` and `--chart`, with no flags, with the flags its
// folder's expect.json gives it, and with `--match-output false --threshold 2`; the same for
// the 30 sessions of `gen.mjs --seed 5 --per-kind 2`; `audit fixtures -r` as a table, `--json`
// and `--json` with model limits. Each run leaves <name>.out, <name>.err and <name>.code.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const [bin, out] = process.argv.slice(2);
if (!bin || !out) {
  console.error("usage: node scripts/golden.mjs <bin.js> <out-dir>");
  process.exit(2);
}
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
mkdirSync(out, { recursive: true });

const generated = mkdtempSync(join(tmpdir(), "golden-gen-"));
execFileSync(process.execPath, [join(root, "test/support/judgement3/gen.mjs"), "--out", generated, "--seed", "5", "--per-kind", "2"], {
  stdio: "ignore",
});

function exportsIn(folder) {
  const files = [];
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) files.push(...exportsIn(path));
    else if (name.endsWith(".json") && name !== "expect.json" && name !== "notes.json") files.push(path);
  }
  return files;
}

function flagsFor(file) {
  const expect = join(dirname(file), "expect.json");
  if (!existsSync(expect)) return null;
  const entry = JSON.parse(readFileSync(expect, "utf8"))[basename(file, ".json")];
  return entry?.flags ?? null;
}

let runs = 0;
function run(name, args) {
  const result = spawnSync(process.execPath, [resolve(bin), ...args], { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 });
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, "_");
  writeFileSync(join(out, `${safe}.out`), result.stdout);
  writeFileSync(join(out, `${safe}.err`), result.stderr);
  writeFileSync(join(out, `${safe}.code`), String(result.status));
  runs += 1;
}

const inputs = [
  ...["fixtures", "test/fixtures"].flatMap((folder) => exportsIn(join(root, folder)).map((file) => [relative(root, file), file])),
  ...exportsIn(generated).map((file) => [`gen/${basename(file)}`, file]),
];
for (const [label, file] of inputs) {
  const variants = [
    ["plain", []],
    ["loose", ["--match-output", "false", "--threshold", "2"]],
  ];
  const flags = flagsFor(file);
  if (flags) variants.push(["flags", flags]);
  for (const [variant, flagList] of variants) {
    for (const [output, extra] of [
      ["table", []],
      ["json", ["--json"]],
      ["chart", ["--chart"]],
    ]) {
      run(`replay.${label}.${variant}.${output}`, ["replay", file, ...flagList, ...extra]);
    }
  }
}
run("audit.table", ["audit", "fixtures", "-r"]);
run("audit.json", ["audit", "fixtures", "-r", "--json"]);
run("audit.json-limits", ["audit", "fixtures", "-r", "--json", "--context-limit", "32768", "--output-limit", "4096"]);
console.log(`${runs} runs of ${inputs.length} inputs written to ${out}`);

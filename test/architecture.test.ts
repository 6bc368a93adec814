/**
 * The layers hold: imports between the folders of src/ point one way
 * (cli → report → audit → sessions → decide → redact; plugin → decide → redact; shared/ under
 * all of them), nothing but bin.ts imports cli/, no rule imports another rule, only the list
 * in decide/rules/index.ts names a rule file, decide/ and audit/ do no I/O, nothing sets a
 * V8 flag at run time, and no rule's evidence has a getter.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/** Each folder and the folders it may import (besides itself). */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  shared: [],
  redact: ["shared"],
  decide: ["redact", "shared"],
  plugin: ["decide", "redact", "shared"],
  hosts: ["decide", "redact", "shared"],
  sessions: ["hosts", "decide", "redact", "shared"],
  audit: ["sessions", "decide", "redact", "shared"],
  report: ["audit", "sessions", "decide", "redact", "shared"],
  cli: ["report", "audit", "sessions", "hosts", "decide", "redact", "shared"],
};
/** The files at the top of src/ and what they may import. */
const TOP: Readonly<Record<string, readonly string[]>> = {
  "index.ts": ["plugin"],
  "bin.ts": ["cli"],
  "core.ts": ["decide", "sessions"],
};
/** Modules that read or write the world: not for the pure layers. */
const IO = /^node:(fs|fs\/promises|child_process|net|http|https|dgram|worker_threads)$/;
const PURE = ["decide", "audit"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith(".ts") ? [relative(SRC, path)] : [];
  });
}

/** Every module a file imports (static, re-exports and dynamic): relative ones as paths under src/, the others as written. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map(
    (m) => m[1] ?? m[2]!,
  );
  return specs.map((spec) => (spec.startsWith(".") ? normalize(join(dirname(file), spec)).replace(/\.js$/, ".ts") : spec));
}

const folderOf = (file: string): string => (file.includes("/") ? file.slice(0, file.indexOf("/")) : "");
const isRuleFile = (file: string): boolean =>
  /^decide\/rules\/[^/]+\.ts$/.test(file) && !file.endsWith("/index.ts") && !file.endsWith("/rule.ts");

const FILES = sourceFiles(SRC);
const EDGES = FILES.flatMap((from) => importsOf(from).map((to) => ({ from, to })));
const LOCAL = EDGES.filter(({ to }) => FILES.includes(to) || to === "../package.json");

describe("architecture: the layers of src/", () => {
  it("reads the imports (sanity: the folders are there and import each other)", () => {
    for (const folder of Object.keys(MAY_IMPORT))
      expect(
        FILES.some((f) => folderOf(f) === folder),
        folder,
      ).toBe(true);
    expect(LOCAL.length).toBeGreaterThan(50);
    expect(EDGES.filter(({ to }) => to.startsWith("..") && to !== "../package.json")).toEqual([]);
  });

  it("every import between folders points down", () => {
    const wrong = LOCAL.filter(({ from, to }) => {
      if (to === "../package.json") return from !== "shared/version.ts";
      const a = folderOf(from);
      const b = folderOf(to);
      if (a === b) return false;
      const allowed = a === "" ? TOP[from] : MAY_IMPORT[a];
      return allowed === undefined || !allowed.includes(b);
    });
    expect(wrong.map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
  });

  it("nothing imports cli/ but cli/ itself and bin.ts", () => {
    const wrong = LOCAL.filter(({ from, to }) => folderOf(to) === "cli" && folderOf(from) !== "cli" && from !== "bin.ts");
    expect(wrong.map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
  });

  it("no rule imports another rule, and only the list in decide/rules/index.ts names a rule", () => {
    const rules = FILES.filter(isRuleFile);
    expect(rules.length).toBeGreaterThanOrEqual(6);
    const wrong = LOCAL.filter(({ from, to }) => isRuleFile(to) && from !== "decide/rules/index.ts");
    expect(wrong.map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
    // The list names every rule file.
    const listed = LOCAL.filter(({ from, to }) => from === "decide/rules/index.ts" && isRuleFile(to)).map(({ to }) => to);
    expect(listed.sort()).toEqual(rules.sort());
  });

  it("decide/ and audit/ do no I/O", () => {
    const wrong = EDGES.filter(({ from, to }) => PURE.includes(folderOf(from)) && IO.test(to));
    expect(wrong.map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
  });

  it("nothing sets a V8 flag at run time", () => {
    const wrong = FILES.filter((file) => /setFlagsFromString/.test(readFileSync(join(SRC, file), "utf8")));
    expect(wrong).toEqual([]);
  });

  it("evidence has no getters: no rule defines an accessor", () => {
    const wrong = FILES.filter((file) => isRuleFile(file) && /\b(get|set)\s+\w+\s*\(/.test(readFileSync(join(SRC, file), "utf8")));
    expect(wrong).toEqual([]);
  });
});

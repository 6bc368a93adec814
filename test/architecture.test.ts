/**
 * The layers hold: imports between the folders of src/ point one way
 * (cli → report → audit → sources → hosts → model, report → hosts; plugin → guard → judge → model; plugin → hosts;
 * audit → guard, for replay, the guard's host over a recorded session;
 * plugin → audit, for `/guard stats`, which reports audit's own figures;
 * plugin, cli → config (the settings: the judge's, each rule's own and the runtime's, assembled; of judge/ it reads only
 * judge/settings.ts and the rules' list) → judge → shared; cli → live (the guard inside Claude Code and Codex, through their
 * hooks) → guard, sources, config; judge, hosts → redact → shell, the one bash reader; shared/
 * under all of them), judge/ imports of hosts/ only hosts/answers.ts, how the hosts' tools lay
 * out their answers (a host is one folder under hosts/ that produces the model's Timeline), nothing but bin.ts imports cli/, no rule imports another
 * rule, only the list in judge/rules/index.ts names a rule file, model/, shell/, judge/ and audit/ do
 * no I/O, nothing sets a V8 flag at run time, and no rule's evidence has a getter. Inside
 * plugin/: opencode-v1/ (which also runs the 1.18 V2 runner) → opencode-v2/ → plugin/*.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/** Each folder and the folders it may import (besides itself). */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  shared: [],
  model: ["shared"],
  shell: [],
  redact: ["shell", "shared"],
  judge: ["hosts", "model", "redact", "shell", "shared"],
  hosts: ["model", "redact", "shell", "shared"],
  guard: ["judge", "config", "model", "redact", "shell", "shared"],
  config: ["judge", "shared"],
  plugin: ["config", "guard", "audit", "sources", "hosts", "judge", "model", "redact", "shell", "shared"],
  sources: ["hosts", "judge", "config", "model", "redact", "shell", "shared"],
  audit: ["sources", "guard", "judge", "model", "redact", "shell", "shared"],
  report: ["audit", "sources", "guard", "hosts", "judge", "model", "redact", "shell", "shared"],
  live: ["config", "guard", "sources", "hosts", "judge", "model", "redact", "shell", "shared"],
  cli: ["config", "live", "report", "audit", "sources", "guard", "hosts", "judge", "model", "redact", "shell", "shared"],
};
/** The files at the top of src/ and what they may import. */
const TOP: Readonly<Record<string, readonly string[]>> = {
  "index.ts": ["plugin"],
  "bin.ts": ["cli"],
  "core.ts": ["guard", "judge", "config", "hosts", "model", "sources", "shared"],
};
/** Modules that read or write the world: not for the pure layers. */
const IO = /^node:(fs|fs\/promises|child_process|net|http|https|dgram|worker_threads)$/;
const PURE = ["model", "shell", "judge", "audit"];

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
  /^judge\/rules\/[^/]+\.ts$/.test(file) && !file.endsWith("/index.ts") && !file.endsWith("/rule.ts");

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

  it("judge/ imports of hosts/ only the answers' layouts (hosts/answers.ts), and each host imports no other host", () => {
    expect(LOCAL.some(({ from, to }) => folderOf(from) === "judge" && to === "hosts/answers.ts")).toBe(true);
    const wrong = LOCAL.filter(({ from, to }) => {
      if (folderOf(to) !== "hosts") return false;
      if (folderOf(from) === "judge") return to !== "hosts/answers.ts";
      // Files directly under hosts/ (reading a transcript, telling agents apart) are shared by the hosts.
      const hostOf = (file: string) => (file.split("/").length > 2 ? file.split("/")[1] : null);
      return folderOf(from) === "hosts" && hostOf(from) !== null && hostOf(to) !== null && hostOf(from) !== hostOf(to);
    });
    expect(wrong.map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
  });

  it("config/ reads of judge/ only the settings' specs: the shared ones (judge/settings.ts) and the rules' (judge/rules/index.ts)", () => {
    const read = LOCAL.filter(({ from, to }) => folderOf(from) === "config" && folderOf(to) === "judge").map(({ to }) => to);
    expect([...new Set(read)].sort()).toEqual(["judge/rules/index.ts", "judge/settings.ts"]);
  });

  it("judge/ holds no fact of opencode's (its texts come in as a host's inputs)", () => {
    const facts = /Continue if you have next steps|What did we do so far|OUTPUT_TOKEN_MAX|RESERVED_MAX/;
    const wrong = FILES.filter((file) => folderOf(file) === "judge" && facts.test(readFileSync(join(SRC, file), "utf8")));
    expect(wrong).toEqual([]);
  });

  it("model/ names no opencode field (a host's words stay in its folder)", () => {
    const opencodeWords = /\b(parentID|tail_start_id|compaction_continue|providerID|modelID|callID)\b|\binfo\.|\.parts\b/;
    const wrong = FILES.filter((file) => folderOf(file) === "model" && opencodeWords.test(readFileSync(join(SRC, file), "utf8")));
    expect(wrong).toEqual([]);
  });

  it("above hosts/, a session's record is read by the model's names, not opencode's (`info.time`, `runner`)", () => {
    const opencodeRecord = /\bsession\.info\b|\.info\.(time|runner|directory|parentID)\b|\.runner\b/;
    const readers = ["judge", "audit", "report", "cli"];
    const wrong = FILES.filter((file) => readers.includes(folderOf(file)) && opencodeRecord.test(readFileSync(join(SRC, file), "utf8")));
    expect(FILES.filter((file) => readers.includes(folderOf(file))).length).toBeGreaterThan(20);
    expect(wrong).toEqual([]);
  });

  it("no import circle between folders", () => {
    const next = new Map<string, Set<string>>();
    for (const { from, to } of LOCAL) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a === "" || b === "" || a === b || to === "../package.json") continue;
      if (!next.has(a)) next.set(a, new Set());
      next.get(a)!.add(b);
    }
    const circles: string[] = [];
    const walk = (folder: string, path: readonly string[]): void => {
      for (const b of next.get(folder) ?? []) {
        if (b === path[0]) circles.push([...path, b].join(" → "));
        else if (!path.includes(b)) walk(b, [...path, b]);
      }
    };
    for (const folder of next.keys()) walk(folder, [folder]);
    expect(circles).toEqual([]);
  });

  it("plugin/: opencode-v2/ never imports opencode-v1/, and what both share (plugin/*.ts) imports neither", () => {
    const runtime = (file: string) => /^plugin\/(opencode-v[12])\//.exec(file)?.[1] ?? (folderOf(file) === "plugin" ? "shared" : null);
    expect(FILES.filter((file) => runtime(file) === "opencode-v1").length).toBeGreaterThan(5);
    expect(FILES.filter((file) => runtime(file) === "opencode-v2").length).toBeGreaterThanOrEqual(4);
    const wrong = LOCAL.filter(({ from, to }) => {
      const a = runtime(from);
      const b = runtime(to);
      return (a === "opencode-v2" && b === "opencode-v1") || (a === "shared" && (b === "opencode-v1" || b === "opencode-v2"));
    });
    expect(wrong.map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
  });

  it("nothing imports cli/ but cli/ itself and bin.ts", () => {
    const wrong = LOCAL.filter(({ from, to }) => folderOf(to) === "cli" && folderOf(from) !== "cli" && from !== "bin.ts");
    expect(wrong.map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
  });

  it("no rule imports another rule, and only the list in judge/rules/index.ts names a rule", () => {
    const rules = FILES.filter(isRuleFile);
    expect(rules.length).toBeGreaterThanOrEqual(6);
    const wrong = LOCAL.filter(({ from, to }) => isRuleFile(to) && from !== "judge/rules/index.ts");
    expect(wrong.map(({ from, to }) => `${from} → ${to}`)).toEqual([]);
    // The list names every rule file.
    const listed = LOCAL.filter(({ from, to }) => from === "judge/rules/index.ts" && isRuleFile(to)).map(({ to }) => to);
    expect(listed.sort()).toEqual(rules.sort());
  });

  it("model/, judge/ and audit/ do no I/O", () => {
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

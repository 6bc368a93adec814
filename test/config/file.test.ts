/**
 * The settings files (config/file.ts) and their layers in config/settings.ts: where they are
 * found, every layer's precedence, the one line a broken file gets (file, line, key), unknown
 * keys, `$schema`, and the CLI reading the same files as the plugin.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { globalConfigFile, loadSettingsFiles, parseSettingsFile, projectConfigFile } from "../../src/config/file.js";
import { describeSettings, resolveSettings } from "../../src/config/settings.js";
import { cli } from "../support/cli.js";

const FIXTURE = new URL("../../fixtures/opencode-1.18.33-loop-bash.json", import.meta.url).pathname;

/** A home with an XDG config folder and a project in it; `files` written relative to the home. */
function world(files: Record<string, string>) {
  const home = mkdtempSync(join(tmpdir(), "ocg-config-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(home, path, ".."), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  mkdirSync(join(home, "proj", "src", "deep"), { recursive: true });
  return { home, project: join(home, "proj"), env: { HOME: home } as Record<string, string> };
}

const GLOBAL = ".config/opencode/compaction-guard.jsonc";
const PROJECT = "proj/.opencode/compaction-guard.jsonc";

describe("where the files are", () => {
  it("global: $XDG_CONFIG_HOME/opencode/, else ~/.config/opencode/; none without either", () => {
    expect(globalConfigFile({ HOME: "/home/me" })).toBe("/home/me/.config/opencode/compaction-guard.jsonc");
    expect(globalConfigFile({ HOME: "/home/me", XDG_CONFIG_HOME: "/xdg" })).toBe("/xdg/opencode/compaction-guard.jsonc");
    expect(globalConfigFile({})).toBeUndefined();
  });

  it("project: the nearest .opencode/compaction-guard.jsonc up the tree, stopping at the worktree's root and before home", () => {
    const { home, project, env } = world({ [PROJECT]: "{}", ".opencode/compaction-guard.jsonc": "{}" });
    expect(projectConfigFile(join(project, "src", "deep"), env)).toBe(join(home, PROJECT));
    // Outside the project, under home: home's own .opencode/ is no project's.
    mkdirSync(join(home, "other"));
    expect(projectConfigFile(join(home, "other"), env)).toBeUndefined();
    // A worktree root (.git) between the start and the file stops the walk.
    mkdirSync(join(project, "src", ".git"));
    expect(projectConfigFile(join(project, "src", "deep"), env)).toBeUndefined();
  });
});

describe("precedence: defaults < global file < project file < plugin options < environment < flags", () => {
  const { project, env } = world({
    [GLOBAL]: '{ "threshold": 4, "window": 9, "minReduction": 0.2, "matchOutput": false, "notify": "log" }',
    [PROJECT]: '{ "window": 10, "minReduction": 0.3, "matchOutput": true, "mode": "observe" }',
  });
  const files = loadSettingsFiles(env, join(project, "src"));

  it("each layer wins over the one below it, and describeSettings names where each value came from", () => {
    const resolved = resolveSettings(
      { minReduction: 0.4, matchOutput: false },
      { ...env, OPENCODE_COMPACTION_GUARD_MATCH_OUTPUT: "yes" },
      { files },
    );
    expect(resolved.problems).toEqual([]);
    expect(resolved.settings).toMatchObject({
      threshold: 4,
      window: 10,
      minReduction: 0.4,
      matchOutput: true,
      notify: "log",
      mode: "observe",
      predict: true,
    });
    expect(resolved.sources).toMatchObject({
      threshold: "global file",
      notify: "global file",
      window: "project file",
      mode: "project file",
      minReduction: "option",
      matchOutput: "env",
      predict: "default",
    });
    expect(describeSettings(resolved)).toContain("threshold 4 (global file), window 10 (project file), minReduction 0.4 (option)");
  });

  it("replay reads the same files from its working directory, and its flags win over them", async () => {
    const run = await cli(["replay", FIXTURE, "--json", "--min-reduction", "0.5"], env, join(project, "src", "deep"));
    expect([run.code, run.stderr]).toEqual([0, ""]);
    const { evidence } = JSON.parse(run.stdout).compactions[1];
    expect(evidence["no-progress"].minReduction).toBe(0.5);
    expect([evidence["repeated-tool-call"].threshold, evidence["repeated-tool-call"].matchOutput]).toEqual([4, true]);
  });
});

describe("a broken file: one line naming the file, the line and the key; the rest stands", () => {
  const text = [
    "{",
    "  // the repeat count",
    '  "threshold": 5,',
    '  "window": "x",',
    '  "thresold": 2,',
    '  "colour": "red",',
    '  "$schema": "file:///anywhere/compaction-guard.schema.json",',
    '  "mode": "observe",',
    "}",
  ].join("\n");

  it("wrong types and unknown keys: file:line, what was wrong, the value that stands; a typo gets did-you-mean", () => {
    const { project, env } = world({ [PROJECT]: text });
    const resolved = resolveSettings(undefined, {}, { files: loadSettingsFiles(env, project) });
    expect(resolved.problems).toEqual([
      '~/proj/.opencode/compaction-guard.jsonc:4: window must be an integer from 1 to 1000, got "x"; using 8',
      '~/proj/.opencode/compaction-guard.jsonc:5: "thresold" is not a setting; did you mean threshold? ignored',
      '~/proj/.opencode/compaction-guard.jsonc:6: "colour" is not a setting; known: threshold, window, minReduction, predict, matchOutput, ignore, toolLoop, notify, mode, prevent, statusFile, enabled; ignored',
    ]);
    expect(resolved.settings).toMatchObject({ threshold: 5, window: 8, mode: "observe" });
    expect(resolved.sources).toMatchObject({ threshold: "project file", window: "default", mode: "project file" });
  });

  it("bad JSONC: the first error's line, how many more; what parsed still counts", () => {
    const layer = parseSettingsFile('{\n  "threshold": 6\n  "window": 12,,\n}', "g.jsonc", "global file");
    expect(layer.problems).toEqual([
      "g.jsonc:3: not valid JSONC: comma expected (and 2 more); the settings read before and after it stand",
    ]);
    expect(layer.entries).toEqual([
      { key: "threshold", value: 6, line: 2 },
      { key: "window", value: 12, line: 3 },
    ]);
  });

  it("not an object, or not readable: one line, the file ignored; an empty or comment-only file is no problem", () => {
    expect(parseSettingsFile("\n[1, 2]", "a.jsonc", "project file").problems).toEqual([
      "a.jsonc:2: expected an object of settings, got [1,2]; file ignored",
    ]);
    expect(parseSettingsFile("  // nothing yet\n", "b.jsonc", "project file")).toEqual({
      source: "project file",
      name: "b.jsonc",
      entries: [],
      problems: [],
    });
    const { project, env } = world({});
    // A folder where the global file would be.
    mkdirSync(join(env.HOME!, GLOBAL), { recursive: true });
    const resolved = resolveSettings(undefined, {}, { files: loadSettingsFiles(env, project) });
    expect(resolved.problems).toEqual(["~/.config/opencode/compaction-guard.jsonc: cannot be read (EISDIR); file ignored"]);
    expect(resolved.sources.threshold).toBe("default");
  });

  it("replay warns about the same lines on standard error and still runs", async () => {
    const { project, env } = world({ [PROJECT]: text });
    const run = await cli(["replay", FIXTURE, "--json"], env, project);
    expect(run.code).toBe(0);
    expect(run.stderr.split("\n")[0]).toBe(
      'warning: ~/proj/.opencode/compaction-guard.jsonc:4: window must be an integer from 1 to 1000, got "x"; using 8',
    );
  });
});

/**
 * `init`: the settings file it writes (every setting commented out at its default under its
 * help) reads back through the loader as the defaults, and as each default from the file once
 * uncommented; `--global` writes the global one; an existing file is kept unless `--force`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../support/cli.js";
import { loadSettingsFiles, parseSettingsFile } from "../../src/config/file.js";
import { DEFAULT_SETTINGS, resolveSettings, SETTINGS } from "../../src/config/settings.js";

const init = (args: string[], env: Record<string, string>, cwd: string) => cli(["init", ...args], env, cwd);

const place = () => {
  const home = mkdtempSync(join(tmpdir(), "ocg-init-"));
  return { home, env: { HOME: home }, project: home + "/proj" };
};

describe("init", () => {
  it("writes .opencode/compaction-guard.jsonc: every setting commented out with its default and help; read back, all defaults and no problem", async () => {
    const { env, project } = place();
    expect(await init([], env, project)).toEqual({ code: 0, stdout: "wrote ~/proj/.opencode/compaction-guard.jsonc\n", stderr: "" });
    const text = readFileSync(join(project, ".opencode", "compaction-guard.jsonc"), "utf8");
    for (const [key, spec] of Object.entries(SETTINGS)) {
      expect(text, key).toContain(`  // ${spec.help}\n  // "${key}": ${JSON.stringify(spec.default)},\n`);
    }
    expect(text).toMatch(/^ {2}"\$schema": "file:\/\/\/.*\/schema\/compaction-guard\.schema\.json",$/m);
    const resolved = resolveSettings(undefined, env, { files: loadSettingsFiles(env, join(project, "sub")) });
    expect(resolved).toEqual({ ...resolveSettings(undefined, {}), problems: [] });
  });

  it("uncommented, every line is its default, from the project file", async () => {
    const { env, project } = place();
    await init([], env, project);
    const text = readFileSync(join(project, ".opencode", "compaction-guard.jsonc"), "utf8").replace(/^ {2}\/\/ (".*)$/gm, "  $1");
    const layer = parseSettingsFile(text, "f", "project file");
    expect(layer.problems).toEqual([]);
    const resolved = resolveSettings(undefined, {}, { files: [layer] });
    expect(resolved.problems).toEqual([]);
    expect(resolved.settings).toEqual(DEFAULT_SETTINGS);
    expect(new Set(Object.values(resolved.sources))).toEqual(new Set(["project file"]));
  });

  it("--global writes opencode's global one ($XDG_CONFIG_HOME when set); an existing file stays unless --force", async () => {
    const { home, env, project } = place();
    const xdg = { ...env, XDG_CONFIG_HOME: join(home, "xdg") };
    expect((await init(["--global"], xdg, project)).stdout).toBe("wrote ~/xdg/opencode/compaction-guard.jsonc\n");
    const file = join(home, "xdg", "opencode", "compaction-guard.jsonc");
    expect(readFileSync(file, "utf8")).toMatch(/^\/\/ compaction-guard settings for every project \(global\)/);
    writeFileSync(file, '{ "threshold": 4 }\n');
    expect(await init(["--global"], xdg, project)).toEqual({
      code: 2,
      stdout: "",
      stderr: "opencode-compaction-guard: ~/xdg/opencode/compaction-guard.jsonc is already there; --force overwrites it\n",
    });
    expect(readFileSync(file, "utf8")).toBe('{ "threshold": 4 }\n');
    expect((await init(["--global", "--force"], xdg, project)).code).toBe(0);
    expect(readFileSync(file, "utf8")).toContain('  // "threshold": 3,');
    expect((await init(["--global"], {}, project)).stderr).toBe(
      "opencode-compaction-guard: --global: neither XDG_CONFIG_HOME nor HOME is set\n",
    );
  });
});

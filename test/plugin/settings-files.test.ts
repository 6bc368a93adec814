/**
 * The live plugin reads the settings files (config/file.ts): createGuard with a temporary
 * home (`HOME`, `XDG_CONFIG_HOME`) and project directory, and the 2.x entry from its working
 * directory; each layer's source in the start-up line, a bad key as one warn line.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createV2Plugin } from "../../src/plugin/opencode-v2/v2-plugin.js";
import { decide } from "../support/loop-hook.js";

/** A home whose global file says `global` and whose project's file says `project`; the environment and the project folder. */
function home(global: string, project: string) {
  const root = mkdtempSync(join(tmpdir(), "ocg-settings-files-"));
  mkdirSync(join(root, "xdg", "opencode"), { recursive: true });
  mkdirSync(join(root, "proj", ".opencode"), { recursive: true });
  writeFileSync(join(root, "xdg", "opencode", "compaction-guard.jsonc"), global);
  writeFileSync(join(root, "proj", ".opencode", "compaction-guard.jsonc"), project);
  return { env: { HOME: root, XDG_CONFIG_HOME: join(root, "xdg") }, directory: join(root, "proj") };
}

describe("the live plugin reads the settings files", () => {
  it("V1: the global then the project file, under the plugin options; the start-up line names each; a bad key is one warn line", async () => {
    const { env, directory } = home('{ "mode": "observe", "threshold": 5 }', '// the project\n{\n  "threshold": 6,\n  "window": -1,\n}');
    const { output, startup, logs } = await decide(2, { env, directory, plugin: { window: 7 } });
    // observe, from the global file: the loop is logged as "would have stopped", nothing is denied.
    expect(output.enabled).toBe(true);
    expect(logs.map((l) => l.message)).toContain(
      "compaction-guard: setting ignored: ~/proj/.opencode/compaction-guard.jsonc:4: window must be an integer from 1 to 1000, got -1; using 8",
    );
    expect(logs.some((l) => l.message.startsWith("compaction-guard would have stopped auto-continue"))).toBe(true);
    expect(startup[0]!.message).toMatch(
      /loaded: threshold 6 \(project file\), window 7 \(option\), .*mode "observe" \(global file\), prevent true \(default\)$/,
    );
  });

  it("V1: enabled: false in the project file turns it off and says where from", async () => {
    const { env, directory } = home("{}", '{ "enabled": false }');
    const { output, startup, logs } = await decide(2, { env, directory });
    expect(output.enabled).toBe(true);
    expect([...startup, ...logs].map((l) => l.message)).toEqual([
      expect.stringMatching(/^compaction-guard \S+ is disabled by enabled: false in the project file; opencode behaves as without it$/),
    ]);
  });

  it("V2 entry: the files too, the project's found from the working directory", async () => {
    const { env, directory } = home('{ "threshold": 9 }', '{ "notify": "log" }');
    const lines: string[] = [];
    await createV2Plugin({ env, cwd: join(directory, ".opencode"), write: (line) => lines.push(line) }).setup({});
    expect(lines.find((l) => l.includes("loaded"))).toMatch(/threshold 9 \(global file\), .*notify "log" \(project file\)/);
  });
});

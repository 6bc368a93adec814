/**
 * The CLI's live-guard commands for both agents, run as a user runs them, in temporary homes
 * and projects (never the machine's ~/.claude or ~/.codex): `install <agent> [--project]`
 * merges the guard's hooks beside the user's own settings, prints what it changed, changes
 * nothing the second time; `uninstall <agent>` gives back the file as it was; `hook <agent>`
 * answers input it cannot read with one line and exit 0, so the agent goes on. Codex's hook
 * trust goes through a stand-in for `codex app-server` (test/support/fake-codex.mjs) on PATH;
 * the real one is in e2e/codex.test.ts.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { runHook } from "../../src/cli/agents.js";
import { cli } from "../support/cli.js";

/** A temporary home with a project folder in it; `env` is all the CLI sees. */
function place(env: Record<string, string> = {}) {
  const home = mkdtempSync(join(tmpdir(), "ocg-agents-"));
  const project = join(home, "project");
  mkdirSync(project);
  return { home, project, env: { HOME: home, PATH: "", ...env } };
}

/** A folder holding a `codex` that is the stand-in app server. */
function fakeCodexOnPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "ocg-fake-codex-"));
  const script = fileURLToPath(new URL("../support/fake-codex.mjs", import.meta.url));
  writeFileSync(join(dir, "codex"), `#!/bin/sh\nexec '${process.execPath}' '${script}' "$@"\n`);
  chmodSync(join(dir, "codex"), 0o755);
  return dir;
}

const CLAUDE_SETTINGS = `{
  // my settings
  "model": "sonnet",
  "permissions": { "allow": ["Bash(npm test)"] },
  "hooks": {
    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "./check.sh" }] }]
  }
}
`;

describe("install, uninstall claude-code", () => {
  it("merges the two hooks into ~/.claude/settings.json, prints them, changes nothing the second time, and uninstall gives the bytes back", async () => {
    const { home, project, env } = place();
    const file = join(home, ".claude", "settings.json");
    mkdirSync(join(home, ".claude"));
    writeFileSync(file, CLAUDE_SETTINGS);
    const first = await cli(["install", "claude-code"], env, project);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe("");
    const lines = first.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`${file}:`);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(
        /^ {2}added hooks\.SessionStart \(matcher "compact"\): '.+' '.+' hook claude-code # opencode-compaction-guard$/,
      ),
      expect.stringMatching(/^ {2}added hooks\.PreToolUse \(matcher "\*"\): '.+' '.+' hook claude-code # opencode-compaction-guard$/),
    ]);
    const installed = readFileSync(file, "utf8");
    // The user's comment, keys and hook stay as they were written.
    expect(installed).toContain("  // my settings\n");
    expect(installed).toContain('  "permissions": { "allow": ["Bash(npm test)"] },\n');
    expect(installed).toContain('{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "./check.sh" }] }');
    expect(existsSync(join(project, ".claude"))).toBe(false);

    const again = await cli(["install", "claude-code"], env, project);
    expect(again).toEqual({ code: 0, stdout: `${file}: nothing to change\n`, stderr: "" });
    expect(readFileSync(file, "utf8")).toBe(installed);

    const removed = await cli(["uninstall", "claude-code"], env, project);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(
      `${file}:\n  removed the guard's hook from hooks.PreToolUse\n  removed the guard's hook from hooks.SessionStart\n`,
    );
    expect(JSON.parse(readFileSync(file, "utf8").replace("// my settings", ""))).toEqual(
      JSON.parse(CLAUDE_SETTINGS.replace("// my settings", "")),
    );
    expect(readFileSync(file, "utf8")).toBe(CLAUDE_SETTINGS);
    expect(await cli(["uninstall", "claude-code"], env, project)).toEqual({ code: 0, stdout: `${file}: nothing to change\n`, stderr: "" });
  });

  it("--project writes the project's .claude/settings.json and leaves the home alone", async () => {
    const { home, project, env } = place();
    const result = await cli(["install", "claude-code", "--project"], env, project);
    expect(result.code).toBe(0);
    const file = join(project, ".claude", "settings.json");
    expect(result.stdout.split("\n")[0]).toBe(`${file}:`);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).hooks)).toEqual(["SessionStart", "PreToolUse"]);
    expect(existsSync(join(home, ".claude"))).toBe(false);
    const removed = await cli(["uninstall", "claude-code", "--project"], env, project);
    expect(removed.code).toBe(0);
    // Only the guard's hooks were in it: the file is removed.
    expect(existsSync(file)).toBe(false);
  });

  it("refuses settings that are no JSON object in one line, exit 2, and leaves the file as it was", async () => {
    const { home, project, env } = place();
    const file = join(home, ".claude", "settings.json");
    mkdirSync(join(home, ".claude"));
    writeFileSync(file, '{ "model": "sonnet", ');
    for (const command of ["install", "uninstall"]) {
      const result = await cli([command, "claude-code"], env, project);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(`opencode-compaction-guard: ${file}: not a JSON object; fix it or move it away, then run this again\n`);
    }
    expect(readFileSync(file, "utf8")).toBe('{ "model": "sonnet", ');
  });

  it("names the agents it knows when given another, or none", async () => {
    const { project, env } = place();
    expect(await cli(["install", "cursor"], env, project)).toEqual({
      code: 2,
      stdout: "",
      stderr: 'opencode-compaction-guard: no live guard for "cursor"; one of: claude-code, codex\n',
    });
    expect((await cli(["uninstall"], env, project)).stderr).toBe("opencode-compaction-guard: which agent? one of: claude-code, codex\n");
  });
});

// The user's PreToolUse group on one line: the guard's group goes after it, on the same line.
const CODEX_HOOKS = `{
  "hooks": {
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }],
    "PreToolUse": [{ "matcher": "^Bash$", "hooks": [{ "type": "command", "command": "./check.sh" }] }]
  }
}
`;

describe("install, uninstall codex", () => {
  it("with no codex on PATH: writes hooks.json, says the one thing left to do (trust them in /hooks), and uninstall gives the bytes back", async () => {
    const { home, project, env } = place();
    const file = join(home, ".codex", "hooks.json");
    mkdirSync(join(home, ".codex"));
    writeFileSync(file, CODEX_HOOKS);
    const first = await cli(["install", "codex"], env, project);
    expect(first.code).toBe(0);
    const lines = first.stdout.trimEnd().split("\n");
    expect(lines).toEqual([
      `${file}:`,
      expect.stringMatching(/^ {2}added the SessionStart hook \(matcher "compact"\): '.+' hook codex$/),
      expect.stringMatching(/^ {2}added the PreToolUse hook: '.+' hook codex$/),
      "note: codex is not on PATH, so the hooks are not trusted yet: run codex, type /hooks, and trust the two compaction-guard hooks (codex exec skips an untrusted hook silently); or run this install again with codex on PATH",
    ]);
    const hooks = JSON.parse(readFileSync(file, "utf8")).hooks;
    expect(hooks.Stop).toEqual([{ hooks: [{ type: "command", command: "notify-send done" }] }]);
    expect(hooks.PreToolUse).toHaveLength(2);
    expect(existsSync(join(home, ".codex", "config.toml"))).toBe(false);
    const installed = readFileSync(file, "utf8");
    const again = await cli(["install", "codex"], env, project);
    expect(again.stdout.split("\n")[0]).toBe(`${file}: nothing to change`);
    expect(readFileSync(file, "utf8")).toBe(installed);
    const removed = await cli(["uninstall", "codex"], env, project);
    expect(removed.code).toBe(0);
    expect(removed.stdout.trimEnd().split("\n")).toEqual([
      `${file}:`,
      "  removed the PreToolUse hook",
      "  removed the SessionStart hook",
      expect.stringMatching(
        /^note: codex is not on PATH, so any trust records of the removed hooks stay in Codex's config\.toml \(hooks\.state\)/,
      ),
    ]);
    expect(readFileSync(file, "utf8")).toBe(CODEX_HOOKS);
  });

  it("with codex on PATH: records trust for its own two hooks only, through the app server, and uninstall removes those records", async () => {
    const { home, project, env } = place({ PATH: fakeCodexOnPath() });
    const file = join(home, ".codex", "hooks.json");
    const state = join(home, ".codex", "fake-hooks-state.json");
    mkdirSync(join(home, ".codex"));
    writeFileSync(file, CODEX_HOOKS);
    const first = await cli(["install", "codex"], env, project);
    expect(first.code).toBe(0);
    expect(first.stdout.trimEnd().split("\n").slice(3)).toEqual([
      `  trusted the PreToolUse hook in Codex's config.toml (hooks.state "${file}:pre_tool_use:1:0")`,
      `  trusted the SessionStart hook in Codex's config.toml (hooks.state "${file}:session_start:0:0")`,
    ]);
    // The user's own Stop hook is not trusted by the installer.
    expect(Object.keys(JSON.parse(readFileSync(state, "utf8"))).sort()).toEqual([`${file}:pre_tool_use:1:0`, `${file}:session_start:0:0`]);
    const again = await cli(["install", "codex"], env, project);
    expect(again).toEqual({ code: 0, stdout: `${file}: nothing to change\n`, stderr: "" });

    const removed = await cli(["uninstall", "codex"], env, project);
    expect(removed.stdout.trimEnd().split("\n")).toEqual([
      `${file}:`,
      "  removed the PreToolUse hook",
      "  removed the SessionStart hook",
      `  removed Codex's trust record of the PreToolUse hook (hooks.state "${file}:pre_tool_use:1:0")`,
      `  removed Codex's trust record of the SessionStart hook (hooks.state "${file}:session_start:0:0")`,
    ]);
    // The records gone and the table with them (Codex then writes config.toml as it was).
    expect(existsSync(state)).toBe(false);
    expect(readFileSync(file, "utf8")).toBe(CODEX_HOOKS);
  });

  it("names a user's hook whose trust an uninstall moved, without trusting it", async () => {
    const { home, project, env } = place({ PATH: fakeCodexOnPath() });
    const file = join(home, ".codex", "hooks.json");
    await cli(["install", "codex"], env, project);
    // The user adds a PreToolUse group after the guard's and trusts it (as /hooks would).
    const hooks = JSON.parse(readFileSync(file, "utf8"));
    hooks.hooks.PreToolUse.push({ hooks: [{ type: "command", command: "./audit.sh" }] });
    writeFileSync(file, JSON.stringify(hooks, null, 2));
    const state = join(home, ".codex", "fake-hooks-state.json");
    const trusted = JSON.parse(readFileSync(state, "utf8"));
    // Its hash, as the stand-in computes it.
    const hash = createHash("sha256")
      .update(JSON.stringify(["PreToolUse", null, { type: "command", command: "./audit.sh" }]))
      .digest("hex");
    writeFileSync(state, JSON.stringify({ ...trusted, [`${file}:pre_tool_use:1:0`]: { trusted_hash: `sha256:${hash}` } }));
    const removed = await cli(["uninstall", "codex"], env, project);
    expect(removed.stdout.trimEnd().split("\n").at(-1)).toBe(
      `note: your PreToolUse hook "./audit.sh" moved in ${file}: Codex skips it until you trust it again in /hooks`,
    );
    expect(Object.keys(JSON.parse(readFileSync(state, "utf8")))).toEqual([`${file}:pre_tool_use:1:0`]);
  });

  it("an app server that fails: the hooks are written, and a note says what to do by hand", async () => {
    const { home, project, env } = place({ PATH: fakeCodexOnPath(), FAKE_CODEX_EXIT: "1" });
    const result = await cli(["install", "codex"], env, project);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("  added the PreToolUse hook");
    expect(result.stdout.trimEnd().split("\n").at(-1)).toMatch(
      /^note: codex app-server \(.+\/codex\) could not record the trust \(codex app-server exited\): run codex, type \/hooks, and trust/,
    );
    expect(existsSync(join(home, ".codex", "hooks.json"))).toBe(true);
  });

  it("--project writes .codex/hooks.json in the project and says Codex lists it only for a trusted project", async () => {
    const { home, project, env } = place({ PATH: fakeCodexOnPath() });
    const result = await cli(["install", "codex", "--project"], env, project);
    const file = join(project, ".codex", "hooks.json");
    expect(result.stdout.split("\n")[0]).toBe(`${file}:`);
    expect(result.stdout).toContain(
      `note: Codex does not list the hooks in ${file} (for a project's hooks, Codex reads them only once it trusts the project)`,
    );
    expect(existsSync(join(home, ".codex", "hooks.json"))).toBe(false);
  });
});

describe("hook <agent>", () => {
  const stdin = (text: string) => Readable.from([Buffer.from(text)]);
  const context = () => {
    const { home, project } = place();
    return { env: { HOME: home }, cwd: project, home };
  };

  for (const agent of ["claude-code", "codex"]) {
    it(`${agent}: input that is no JSON, or no hook input, gets one line on stderr, nothing on stdout, exit 0`, async () => {
      for (const input of ["{not json", "", "[1,2]", '{"hook_event_name": 3}']) {
        let stdout = "";
        let stderr = "";
        const code = await runHook(
          agent,
          (t) => (stdout += t),
          (t) => (stderr += t),
          context(),
          stdin(input),
        );
        expect(code).toBe(0);
        expect(stdout).toBe("");
        expect(stderr).toMatch(/^compaction-guard: [^\n]+\n$/);
      }
    });
  }

  it("an agent it does not know: one line, exit 0 (a hook never fails the agent that runs it)", async () => {
    let stderr = "";
    const code = await runHook(
      "cursor",
      () => {},
      (t) => (stderr += t),
      context(),
      stdin("{}"),
    );
    expect(code).toBe(0);
    expect(stderr).toBe('compaction-guard: no live guard for "cursor"; one of: claude-code, codex; going on without the guard\n');
  });

  it("the executable: malformed standard input exits 0 with one line, for both agents", async () => {
    const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url));
    const { home } = place();
    for (const agent of ["claude-code", "codex"]) {
      // From the repository (where tsx is installed); the hook's own cwd is in its (unreadable) input.
      const run = promisify(execFile)(process.execPath, ["--import", "tsx", bin, "hook", agent], {
        cwd: fileURLToPath(new URL("../..", import.meta.url)),
        env: { HOME: home, PATH: process.env.PATH ?? "" },
      });
      run.child.stdin!.end("{ this is not json");
      const { stdout, stderr } = await run;
      expect(stdout).toBe("");
      expect(stderr.split("\n")).toHaveLength(2);
      expect(stderr).toMatch(/^compaction-guard: .*\n$/);
    }
  });
});

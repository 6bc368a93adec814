import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codexHookInput, CodexHookInputError, findRollout, live } from "../../src/live/codex.js";
import { hooksFile, isGuardHandler } from "../../src/live/codex-hooks.js";
import { NOTE_HEADER } from "../../src/guard/ledger.js";
import type { LiveContext } from "../../src/live/agent.js";

const FIXTURE = "fixtures/codex/codex-0.104.0-alpha.1-compacted.jsonl";
const COMMAND = "npx -y opencode-compaction-guard hook codex";

function context(env: Record<string, string> = {}): LiveContext & { root: string } {
  const root = mkdtempSync(join(tmpdir(), "codex-live-"));
  const home = join(root, "home");
  const cwd = join(root, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  // No settings file of the machine's user is read: XDG_CONFIG_HOME points into the temp dir.
  return { root, home, cwd, env: { XDG_CONFIG_HOME: join(root, "xdg"), ...env } };
}

/** A Codex 0.169 rollout of `cycles` compaction cycles, each the same failing `cat build.log` call twice (as e2e/codex.test.ts's loop). */
function loopRollout(cycles: number): string {
  const lines: unknown[] = [
    { timestamp: "2026-12-07T03:00:00.000Z", type: "session_meta", payload: { id: "sess-loop", cwd: "/project", cli_version: "0.169.0" } },
    { timestamp: "2026-12-07T03:00:00.000Z", type: "event_msg", payload: { type: "user_message", message: "Check the build." } },
    { timestamp: "2026-12-07T03:00:00.000Z", type: "turn_context", payload: { model: "scripted-model" } },
  ];
  let call = 0;
  const step = (tokens: number) => {
    call += 1;
    lines.push(
      {
        type: "response_item",
        payload: { type: "function_call", name: "exec_command", arguments: '{"cmd":"cat build.log"}', call_id: `call_${call}` },
      },
      {
        type: "event_msg",
        payload: {
          type: "token_count",
          info: { last_token_usage: { input_tokens: tokens, output_tokens: 20 }, model_context_window: 10000 },
        },
      },
      {
        type: "response_item",
        payload: {
          type: "function_call_output",
          call_id: `call_${call}`,
          output: "cat: build.log: No such file or directory\nexit code 1",
        },
      },
    );
  };
  step(5200);
  for (let c = 0; c < cycles; c++) {
    lines.push(
      { type: "event_msg", payload: { type: "token_count", info: { last_token_usage: { input_tokens: 5400, output_tokens: 20 } } } },
      { type: "compacted", payload: { message: "Summary: ran the check." } },
    );
    step(1500);
    step(5200);
  }
  return `${lines.map((line) => JSON.stringify({ timestamp: "2026-12-07T03:00:01.000Z", ...(line as object) })).join("\n")}\n`;
}

const input = (event: string, path: string | null, extra: Record<string, unknown> = {}) => ({
  session_id: "sess-loop",
  transcript_path: path,
  cwd: "/project",
  hook_event_name: event,
  model: "scripted-model",
  ...extra,
});

describe("codexHookInput", () => {
  it("reads the fields the guard uses from a SessionStart input", () => {
    expect(codexHookInput(input("SessionStart", "/r.jsonl", { source: "compact" }))).toEqual({
      event: "SessionStart",
      sessionID: "sess-loop",
      transcriptPath: "/r.jsonl",
      cwd: "/project",
      source: "compact",
    });
  });
  it("rejects what is no hook input, in one line", () => {
    expect(() => codexHookInput([])).toThrow(CodexHookInputError);
    expect(() => codexHookInput({ hook_event_name: "PreToolUse" })).toThrow("the hook input has no session_id");
  });
});

describe("live.handle", () => {
  it("answers SessionStart after a compaction with the note of what completed (a real Codex rollout)", async () => {
    const reply = await live.handle(input("SessionStart", FIXTURE, { source: "compact" }), context());
    expect(reply.exitCode).toBe(0);
    const out = JSON.parse(reply.stdout!) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(out.hookSpecificOutput.hookEventName).toBe("SessionStart");
    expect(out.hookSpecificOutput.additionalContext.startsWith(NOTE_HEADER)).toBe(true);
    expect(out.hookSpecificOutput.additionalContext).toContain("Do not repeat calls that already completed");
  });

  it("lets a tool call of a session its judgement allows go on, silently", async () => {
    const reply = await live.handle(input("PreToolUse", FIXTURE, { tool_name: "Bash", tool_input: { command: "ls" } }), context());
    expect(reply).toEqual({ stdout: null, stderr: null, exitCode: 0 });
  });

  it("ignores SessionStart at startup and events it does not hook", async () => {
    expect(await live.handle(input("SessionStart", FIXTURE, { source: "startup" }), context())).toEqual({
      stdout: null,
      stderr: null,
      exitCode: 0,
    });
    expect(await live.handle(input("Stop", FIXTURE), context())).toEqual({ stdout: null, stderr: null, exitCode: 0 });
  });

  it("stops the turn at SessionStart after a denied compaction, and blocks a tool call after it", async () => {
    const ctx = context();
    const path = join(ctx.root, "rollout.jsonl");
    writeFileSync(path, loopRollout(2));
    const start = await live.handle(input("SessionStart", path, { source: "compact" }), ctx);
    const stop = JSON.parse(start.stdout!) as { continue: boolean; stopReason: string; systemMessage: string };
    expect(stop.continue).toBe(false);
    expect(stop.stopReason).toMatch(
      /^Compaction loop stopped by compaction-guard at compaction 2: repeated-tool-call: the same bash call \(cat build\.log\) ran 3 times/,
    );
    expect(stop.systemMessage).toBe(stop.stopReason);
    const pre = await live.handle(input("PreToolUse", path, { tool_name: "Bash" }), ctx);
    const block = JSON.parse(pre.stdout!) as { hookSpecificOutput: Record<string, string> };
    expect(block.hookSpecificOutput).toEqual({
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: stop.stopReason,
    });
  });

  it("lets the first compaction of the same loop through with the note", async () => {
    const ctx = context();
    const path = join(ctx.root, "rollout.jsonl");
    writeFileSync(path, loopRollout(1));
    const reply = await live.handle(input("SessionStart", path, { source: "compact" }), ctx);
    expect(JSON.parse(reply.stdout!).hookSpecificOutput.additionalContext).toContain("cat build.log");
  });

  it("goes on after a denied compaction once the user spoke again", async () => {
    const ctx = context();
    const path = join(ctx.root, "rollout.jsonl");
    const more = JSON.stringify({
      timestamp: "2026-12-07T03:05:00.000Z",
      type: "event_msg",
      payload: { type: "user_message", message: "go on" },
    });
    writeFileSync(path, `${loopRollout(2)}${more}\n`);
    expect(await live.handle(input("PreToolUse", path), ctx)).toEqual({ stdout: null, stderr: null, exitCode: 0 });
  });

  it("only says what it would have done in observe mode, and nothing when disabled", async () => {
    const path = join(context().root, "rollout.jsonl");
    writeFileSync(path, loopRollout(2));
    const observed = await live.handle(input("PreToolUse", path), context({ OPENCODE_COMPACTION_GUARD_MODE: "observe" }));
    expect(observed.stdout).toBeNull();
    expect(observed.stderr).toMatch(/^compaction-guard would have stopped Codex session sess-loop \(observe mode\): /);
    const disabled = await live.handle(input("PreToolUse", path), context({ OPENCODE_COMPACTION_GUARD_DISABLED: "1" }));
    expect(disabled).toEqual({ stdout: null, stderr: null, exitCode: 0 });
  });

  it("finds the rollout by session id under $CODEX_HOME/sessions when the input names no path", async () => {
    const ctx = context();
    const codexHome = join(ctx.root, "codex-home");
    const day = join(codexHome, "sessions", "2026", "12", "07");
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, "rollout-2026-12-07T03-00-00-sess-loop.jsonl"), loopRollout(2));
    expect(findRollout(join(codexHome, "sessions"), "sess-loop")).toBe(join(day, "rollout-2026-12-07T03-00-00-sess-loop.jsonl"));
    const reply = await live.handle(input("PreToolUse", null), { ...ctx, env: { ...ctx.env, CODEX_HOME: codexHome } });
    expect(JSON.parse(reply.stdout!).hookSpecificOutput.permissionDecision).toBe("deny");
  });

  it("goes on with one line on stderr when the input or the rollout cannot be read", async () => {
    const bad = await live.handle("not an object", context());
    expect(bad).toEqual({
      stdout: null,
      stderr: "compaction-guard: the hook input is not a JSON object; Codex goes on unguarded\n",
      exitCode: 0,
    });
    const missing = await live.handle(input("PreToolUse", "/nowhere/rollout.jsonl"), context());
    expect(missing.stdout).toBeNull();
    expect(missing.stderr).toBe("compaction-guard: no rollout for Codex session sess-loop; Codex goes on unguarded\n");
    const ctx = context();
    const path = join(ctx.root, "rollout.jsonl");
    writeFileSync(path, "{ not json\n");
    const broken = await live.handle(input("PreToolUse", path), ctx);
    expect(broken.exitCode).toBe(0);
    expect(broken.stdout).toBeNull();
    expect(broken.stderr).toMatch(/^compaction-guard: .*Codex goes on unguarded\n$/);
  });
});

describe("install and uninstall", () => {
  const EXISTING = `{
  "description": "my hooks",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "^Bash$",
        "hooks": [{ "type": "command", "command": "python3 ~/.codex/check.py", "timeout": 5 }]
      }
    ],
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]
  }
}
`;

  it("merges its two hooks into the user's hooks.json, keeping every other hook and the file's text", async () => {
    const ctx = context();
    const codexHome = join(ctx.home, ".codex");
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, "hooks.json"), EXISTING);
    writeFileSync(join(codexHome, "config.toml"), '# my settings\nmodel = "gpt-5"\n');
    const report = await live.install("user", COMMAND, ctx);
    expect(report.file).toBe(join(codexHome, "hooks.json"));
    expect(report.changes).toEqual([
      `added the SessionStart hook (matcher "compact"): ${COMMAND}`,
      `added the PreToolUse hook: ${COMMAND}`,
    ]);
    const file = JSON.parse(readFileSync(report.file, "utf8"));
    expect(file.description).toBe("my hooks");
    expect(file.hooks.Stop).toEqual([{ hooks: [{ type: "command", command: "notify-send done" }] }]);
    expect(file.hooks.PreToolUse).toEqual([
      { matcher: "^Bash$", hooks: [{ type: "command", command: "python3 ~/.codex/check.py", timeout: 5 }] },
      { hooks: [{ type: "command", command: COMMAND, timeout: 30 }] },
    ]);
    expect(file.hooks.SessionStart).toEqual([{ matcher: "compact", hooks: [{ type: "command", command: COMMAND, timeout: 30 }] }]);
    // The user's own lines are untouched text, and config.toml with its comment is not touched.
    expect(readFileSync(report.file, "utf8")).toContain(
      '"hooks": [{ "type": "command", "command": "python3 ~/.codex/check.py", "timeout": 5 }]',
    );
    expect(readFileSync(join(codexHome, "config.toml"), "utf8")).toBe('# my settings\nmodel = "gpt-5"\n');

    const before = readFileSync(report.file, "utf8");
    expect((await live.install("user", COMMAND, ctx)).changes).toEqual([]);
    expect(readFileSync(report.file, "utf8")).toBe(before);

    const removed = await live.uninstall("user", ctx);
    expect(removed.changes).toEqual(["removed the PreToolUse hook", "removed the SessionStart hook"]);
    // The same content; the user's lines as they were (jsonc-parser may move the whitespace before a "]" it edited).
    const after = readFileSync(report.file, "utf8");
    expect(JSON.parse(after)).toEqual(JSON.parse(EXISTING));
    expect(after).toContain('    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-send done" }] }]\n');
    expect(after.replace(/\s+/g, "")).toBe(EXISTING.replace(/\s+/g, ""));
    expect((await live.uninstall("user", ctx)).changes).toEqual([]);
  });

  it("replaces its hooks when the command changes, and writes the project's .codex/hooks.json", async () => {
    const ctx = context();
    await live.install("project", COMMAND, ctx);
    const file = join(ctx.cwd, ".codex", "hooks.json");
    expect(hooksFile("project", ctx)).toBe(file);
    const other = "node /opt/guard/bin.js hook codex";
    const report = await live.install("project", other, ctx);
    expect(report.changes).toEqual([
      `replaced the SessionStart hook (matcher "compact"): ${other}`,
      `replaced the PreToolUse hook: ${other}`,
    ]);
    const hooks = JSON.parse(readFileSync(file, "utf8")).hooks;
    expect(hooks.PreToolUse).toEqual([{ hooks: [{ type: "command", command: other, timeout: 30 }] }]);
    // Nothing else was in the file: uninstall leaves no file behind.
    await live.uninstall("project", ctx);
    expect(existsSync(file)).toBe(false);
  });

  it("refuses a hooks file Codex could not read, and a command uninstall could not find", async () => {
    const ctx = context({ CODEX_HOME: "" });
    const codexHome = join(ctx.home, ".codex");
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, "hooks.json"), '{ "hooks": { // a comment\n } }');
    await expect(live.install("user", COMMAND, ctx)).rejects.toThrow(/hooks\.json: not JSON at line 1, column 14 \(InvalidCommentToken\)/);
    writeFileSync(join(codexHome, "hooks.json"), '{ "hooks": { "PreToolUse": {} } }');
    await expect(live.uninstall("user", ctx)).rejects.toThrow('"hooks" is not an object of arrays');
    await expect(live.install("project", "node guard.js", ctx)).rejects.toThrow('the hook command must end in " hook codex"');
  });

  it("tells its handlers by their command", () => {
    expect(isGuardHandler({ type: "command", command: COMMAND })).toBe(true);
    expect(isGuardHandler({ type: "command", command: "node /x/bin.js hook codex " })).toBe(true);
    expect(isGuardHandler({ type: "command", command: "hook codex-other" })).toBe(false);
    expect(isGuardHandler({ type: "prompt", command: COMMAND })).toBe(false);
  });
});

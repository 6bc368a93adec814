import { existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeCodeLive, HOOK_MARK, settingsFile } from "../../src/live/claude-code.js";
import { NOTE_HEADER } from "../../src/guard/ledger.js";

const FIXTURES = new URL("../../fixtures/claude-code/", import.meta.url);
/** Claude Code 2.1.328 looping on `cat big.txt` against the e2e server: four compactions, replay allows the first and denies the rest. */
const LOOP = readFileSync(new URL("claude-code-2.1.328-loop.jsonl", FIXTURES), "utf8");
const TWO_ALLOWED = new URL("claude-code-2.1.14-two-compactions.jsonl", FIXTURES).pathname;

const dir = () => mkdtempSync(join(tmpdir(), "cc-live-"));
/** A context with no settings file anywhere (HOME is an empty folder). */
const context = (env: Record<string, string> = {}) => {
  const home = dir();
  return { env: { HOME: home, ...env }, cwd: home, home };
};

/** The loop transcript cut before its `n`-th compact_boundary (n = 2: only compaction 1 is in it). */
function cutBefore(n: number): string {
  const lines = LOOP.split("\n");
  let seen = 0;
  const end = lines.findIndex((line) => line.includes('"compact_boundary"') && ++seen === n);
  return lines.slice(0, end).join("\n") + "\n";
}

function transcript(text: string): string {
  const path = join(dir(), "session.jsonl");
  writeFileSync(path, text);
  return path;
}

const input = (event: string, path: string, extra: Record<string, unknown> = {}) => ({
  session_id: "s",
  transcript_path: path,
  cwd: tmpdir(),
  hook_event_name: event,
  ...extra,
});

describe("Claude Code live guard: handle", () => {
  it("after compaction 1 gives the continue note naming the repeated call, and lets the next tool call run", async () => {
    const path = transcript(cutBefore(2));
    const start = await claudeCodeLive.handle(input("SessionStart", path, { source: "compact" }), context());
    expect(start.exitCode).toBe(0);
    const reply = JSON.parse(start.stdout!);
    expect(reply.hookSpecificOutput.hookEventName).toBe("SessionStart");
    expect(reply.hookSpecificOutput.additionalContext).toContain(NOTE_HEADER);
    expect(reply.hookSpecificOutput.additionalContext).toContain("cat big.txt");
    expect(reply.continue).toBeUndefined();
    const tool = await claudeCodeLive.handle(input("PreToolUse", path, { tool_name: "Bash" }), context());
    expect(tool).toEqual({ stdout: null, stderr: null, exitCode: 0 });
  });

  it("at SessionStart gives the note from the transcript as 2.1.328 has it then: without the compaction just made", async () => {
    // Measured in the real 2.1.328: SessionStart(compact) runs before the compact_boundary is written.
    const beforeFirst = transcript(cutBefore(1));
    const first = JSON.parse((await claudeCodeLive.handle(input("SessionStart", beforeFirst, { source: "compact" }), context())).stdout!);
    expect(first.hookSpecificOutput.additionalContext).toContain(NOTE_HEADER);
    expect(first.hookSpecificOutput.additionalContext).toContain("cat big.txt");
    expect(first.hookSpecificOutput.additionalContext).not.toContain("its next tool call will be refused");
    const off = await claudeCodeLive.handle(
      input("SessionStart", beforeFirst, { source: "compact" }),
      context({ OPENCODE_COMPACTION_GUARD_PREVENT: "false" }),
    );
    expect(off).toEqual({ stdout: null, stderr: null, exitCode: 0 });
  });

  it("after a denied compaction refuses the tool call and stops the turn, saying the rule", async () => {
    const path = transcript(LOOP);
    const tool = await claudeCodeLive.handle(input("PreToolUse", path, { tool_name: "Bash" }), context());
    const reply = JSON.parse(tool.stdout!);
    expect(reply.continue).toBe(false);
    expect(reply.stopReason).toMatch(/^Compaction loop stopped by compaction-guard after compaction 4: repeated-tool-call: /);
    expect(reply.systemMessage).toBe(reply.stopReason);
    expect(reply.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(reply.hookSpecificOutput.permissionDecisionReason).toContain("cat big.txt");
    const start = JSON.parse((await claudeCodeLive.handle(input("SessionStart", path, { source: "compact" }), context())).stdout!);
    expect(start.hookSpecificOutput.additionalContext).toContain("its next tool call will be refused");
  });

  it("in observe mode only tells the user; disabled, says nothing", async () => {
    const path = transcript(LOOP);
    const observed = JSON.parse(
      (await claudeCodeLive.handle(input("PreToolUse", path), context({ OPENCODE_COMPACTION_GUARD_MODE: "observe" }))).stdout!,
    );
    expect(observed).toEqual({ systemMessage: expect.stringMatching(/^\(observe mode: it goes on\) Compaction loop stopped/) });
    const off = await claudeCodeLive.handle(input("PreToolUse", path), context({ OPENCODE_COMPACTION_GUARD_DISABLED: "1" }));
    expect(off).toEqual({ stdout: null, stderr: null, exitCode: 0 });
  });

  it("a person who spoke after the denied compaction re-arms it", async () => {
    const user = {
      type: "user",
      sessionId: "3e488229-f135-4aad-a96f-37a896856649",
      uuid: "u-after",
      message: { role: "user", content: "try something else" },
    };
    const path = transcript(`${LOOP}${JSON.stringify(user)}\n`);
    expect((await claudeCodeLive.handle(input("PreToolUse", path), context())).stdout).toBeNull();
  });

  it("lets a healthy transcript's calls run (2.1.14: two compactions, both allowed)", async () => {
    expect(await claudeCodeLive.handle(input("PreToolUse", TWO_ALLOWED), context())).toEqual({ stdout: null, stderr: null, exitCode: 0 });
  });

  it("answers go on with one warning for bad input or a missing transcript", async () => {
    const bad = await claudeCodeLive.handle("nope", context());
    expect(bad.exitCode).toBe(0);
    expect(bad.stdout).toBeNull();
    expect(bad.stderr).toBe("compaction-guard: hook input is not a JSON object; going on without the guard\n");
    const missing = await claudeCodeLive.handle(input("PreToolUse", join(dir(), "gone.jsonl")), context());
    expect(missing.stdout).toBeNull();
    expect(missing.stderr).toMatch(/^compaction-guard: cannot read the transcript .*gone\.jsonl \(ENOENT\); going on\n$/);
  });
});

describe("Claude Code live guard: install and uninstall", () => {
  const command = "'/usr/bin/node' '/opt/ocg/dist/cli/bin.js' hook claude-code";
  const existing = {
    model: "sonnet",
    permissions: { allow: ["Bash(npm test)"] },
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./check.sh" }] }] },
  };

  it("merges marked hooks beside the user's own, changes nothing the second time, and uninstall restores the file", async () => {
    const ctx = context();
    const file = settingsFile("user", ctx);
    mkdirSync(join(ctx.home, ".claude"));
    const before = `${JSON.stringify(existing, null, 2)}\n`;
    writeFileSync(file, before);
    const first = await claudeCodeLive.install("user", command, ctx);
    expect(first.file).toBe(join(ctx.home, ".claude", "settings.json"));
    expect(first.changes).toEqual([
      `added hooks.SessionStart (matcher "compact"): ${command} ${HOOK_MARK}`,
      `added hooks.PreToolUse (matcher "*"): ${command} ${HOOK_MARK}`,
    ]);
    const merged = JSON.parse(readFileSync(file, "utf8"));
    expect(merged.model).toBe("sonnet");
    expect(merged.permissions).toEqual(existing.permissions);
    expect(merged.hooks.PreToolUse).toEqual([
      existing.hooks.PreToolUse[0],
      { matcher: "*", hooks: [{ type: "command", command: `${command} ${HOOK_MARK}`, timeout: 30 }] },
    ]);
    expect(merged.hooks.SessionStart).toEqual([
      { matcher: "compact", hooks: [{ type: "command", command: `${command} ${HOOK_MARK}`, timeout: 30 }] },
    ]);
    expect((await claudeCodeLive.install("user", command, ctx)).changes).toEqual([]);
    const moved = await claudeCodeLive.install("user", "node /elsewhere/bin.js hook claude-code", ctx);
    expect(moved.changes[0]).toMatch(/^replaced hooks\.SessionStart/);
    expect(JSON.parse(readFileSync(file, "utf8")).hooks.PreToolUse).toHaveLength(2);
    const removed = await claudeCodeLive.uninstall("user", ctx);
    expect(removed.changes).toEqual(["removed the guard's hook from hooks.PreToolUse", "removed the guard's hook from hooks.SessionStart"]);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(existing);
    expect((await claudeCodeLive.uninstall("user", ctx)).changes).toEqual([]);
  });

  it("writes a project's .claude/settings.json when there is none, and removes the file it made", async () => {
    const ctx = context();
    const report = await claudeCodeLive.install("project", command, ctx);
    expect(report.file).toBe(join(ctx.cwd, ".claude", "settings.json"));
    expect(Object.keys(JSON.parse(readFileSync(report.file, "utf8")).hooks)).toEqual(["SessionStart", "PreToolUse"]);
    await claudeCodeLive.uninstall("project", ctx);
    expect(existsSync(report.file)).toBe(false);
  });

  it("refuses a settings file that is not JSON, naming it, and leaves it as it was", async () => {
    const ctx = context();
    const file = settingsFile("project", ctx);
    mkdirSync(join(ctx.cwd, ".claude"));
    writeFileSync(file, "{ nope");
    await expect(claudeCodeLive.install("project", command, ctx)).rejects.toThrow(`${file}: not a JSON object; fix it or move it away`);
    expect(readFileSync(file, "utf8")).toBe("{ nope");
  });
});

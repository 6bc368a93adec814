/**
 * What the hosts read in a tool call (src/hosts/actions.ts, the opencode, Claude Code and
 * Codex tables): what it asked for as calls are compared, and which action it is.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { comparableInput, comparableInputJson } from "../../src/hosts/actions.js";
import { callKey, openCodeAction } from "../../src/hosts/opencode/actions.js";
import { readClaudeCode } from "../../src/hosts/claude-code/index.js";
import { readCodex } from "../../src/hosts/codex/index.js";
import type { AssistantEntry } from "../../src/model/entry.js";
import { canonicalJson } from "../../src/shared/canonical-json.js";

describe("comparableInput", () => {
  const saved = "/home/u/.local/share/opencode/tool-output/tool_22ce41902001F2bkSBdwHK7XZ1";

  it("replaces the ids a run hands out in a call's input, and drops the description label", () => {
    expect(comparableInput({ filePath: saved, offset: 251 }, false)).toEqual({
      filePath: "/home/u/.local/share/opencode/~",
      offset: 251,
    });
    expect(comparableInput({ description: "x", prompt: "go on", task_id: "ses_abc123XYZ" }, false)).toEqual({
      prompt: "go on",
      task_id: "~",
    });
    expect(comparableInput({ command: "cat /tmp/tmp.Xa81kQz9Lp/out.json" }, false)).toEqual({
      command: "cat ~/out.json",
    });
  });

  it("comparableInputJson is the canonical JSON of comparableInput, whatever the input holds", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom(
        "/tmp/tmp.Xa81kQz9Lp/out",
        "ses_abc123XYZ",
        "tool-output/tool_22ce4190",
        "/var/folders/x1/T/q",
        "tool_x",
        "plain text here",
      ),
    );
    const input = fc.oneof(
      fc.dictionary(
        fc.constantFrom("command", "description", "filePath", "tool_", "ses_x"),
        fc.oneof(text, fc.array(text, { maxLength: 3 }), fc.integer()),
      ),
      text,
      fc.array(text, { maxLength: 3 }),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(fc.boolean(), input, (changes, value) => {
        expect(comparableInputJson(value, changes)).toBe(canonicalJson(comparableInput(value, changes)));
      }),
      { numRuns: 3000 },
    );
  });

  it("keeps an edit's input whole: every character is the change", () => {
    const input = { filePath: "/p/a.ts", oldString: "x", newString: `load("${saved}")` };
    expect(comparableInput(input, true)).toEqual(input);
  });

  it.each([
    "sleep 20 && python embed.py shard-06 --commit 3f2a9c1d",
    "curl -X DELETE https://api.example.com/subscriptions/9b2f4c1e-5a7d-4e3b-8c9a-1d2e3f4a5b6c",
    "docker rm 4f3c9a1e8b7d6c5a4f3c9a1e8b7d6c5a4f3c9a1e8b7d6c5a4f3c9a1e8b7d6c5a",
    "rm /tmp/build-1.log",
  ])("keeps what the model chose (numbers, names, the ids it acts on): %s", (command) => {
    expect(comparableInput({ command }, false)).toEqual({ command });
  });
});

describe("openCodeAction: opencode's tools as actions", () => {
  it.each<[string, unknown, Record<string, unknown>]>([
    ["bash", { command: "npm test", description: "run" }, { kind: "shell", run: { text: "npm test", role: "check" } }],
    ["bash", { command: "sleep 30 && gh pr checks 42" }, { kind: "wait", seconds: 30, shell: true }],
    ["read", { filePath: "/p/a.ts", offset: 10, limit: 20 }, { kind: "read", file: "/p/a.ts", offset: 10, limit: 20, numbered: true }],
    ["grep", { pattern: "TODO", path: "src" }, { kind: "search", engine: "grep", pattern: "TODO", asking: false }],
    ["codesearch", { query: "retry policy" }, { kind: "search", engine: "code", pattern: "retry policy", asking: true }],
    [
      "edit",
      { filePath: "a.ts", oldString: "x", newString: "y" },
      { kind: "edit", edits: [{ oldString: "x", newString: "y", replaceAll: false }] },
    ],
    ["multiedit", { filePath: "a.ts", edits: [{ oldString: "x" }] }, { kind: "edit", edits: undefined }],
    ["apply_patch", { patchText: "*** Begin Patch" }, { kind: "edit", edits: undefined }],
    ["write", { filePath: "a.ts", content: "x" }, { kind: "write", content: "x" }],
    [
      "task",
      { subagent_type: "explore", prompt: " find callers " },
      { kind: "delegate", agent: "explore", prompt: "find callers", readOnly: true },
    ],
    ["task", { subagent_type: "general", prompt: "fix it" }, { kind: "delegate", agent: "general", readOnly: false }],
    ["webfetch", { url: "https://example.com" }, { kind: "fetch", url: "https://example.com", query: undefined }],
    ["todowrite", { todos: [] }, { kind: "plan" }],
    ["github_get_issue", { number: 1 }, { kind: "other", asking: false, reads: true, run: undefined }],
    ["brave_web_search", { query: "x" }, { kind: "other", asking: true, reads: true }],
    ["github_create_issue", { title: "x" }, { kind: "other", asking: false, reads: false }],
    ["job_wait", { timeout: 120 }, { kind: "wait", seconds: 120, run: undefined, shell: false }],
    ["exec_command", { cmd: ["git", "status"] }, { kind: "other", run: { text: "git status", role: "read" } }],
  ])("%s %j", (tool, input, action) => {
    expect(openCodeAction(tool, input)).toMatchObject(action);
  });

  it("what a call asked for: the comparable input, the whole input's JSON, its values and the path it names", () => {
    const { asked } = openCodeAction("read", { filePath: "/p/a.ts", description: "look", offset: 2 });
    expect([asked.comparable, asked.json, [...asked.values], asked.path]).toEqual([
      '{"filePath":"/p/a.ts","offset":2}',
      '{"description":"look","filePath":"/p/a.ts","offset":2}',
      ["/p/a.ts", "look", "2"],
      "/p/a.ts",
    ]);
    expect(openCodeAction("grep", { pattern: "x", path: "src" }).asked.path).toBe("src");
    expect(openCodeAction("bash", null).asked.path).toBeNull();
  });

  it("a bash call without a command string still runs the shell tool, with the command its input gives otherwise, and never waits", () => {
    expect(openCodeAction("bash", { cmd: "sleep 60", wait: 60 })).toMatchObject({ kind: "shell", run: { text: "sleep 60" } });
    expect(openCodeAction("bash", { cmd: ["git", "status"] })).toMatchObject({ kind: "shell", run: { text: "git status", role: "read" } });
    expect(openCodeAction("bash", { timeout: 120_000 })).toMatchObject({ kind: "shell", run: undefined });
  });

  it("callKey: the same call up to key order and the description label", () => {
    expect(callKey("bash", { command: "ls", description: "a" })).toBe(callKey("bash", { description: "b", command: "ls" }));
    expect(callKey("edit", { filePath: "a", oldString: "ses_abc1234", newString: "" })).not.toBe(
      callKey("edit", { filePath: "a", oldString: "ses_xyz9876", newString: "" }),
    );
  });
});

describe("each host reads its own tools: Claude Code and Codex", () => {
  it("Claude Code: Bash, Read, Edit, Task and an MCP tool, by Claude Code's names and input keys", () => {
    const uses = [
      { name: "Bash", input: { command: "sleep 45 && gh pr checks 7" } },
      { name: "Read", input: { file_path: "/p/a.ts", offset: 5, limit: 10 } },
      { name: "Edit", input: { file_path: "/p/a.ts", old_string: "x", new_string: "y" } },
      { name: "Task", input: { subagent_type: "general-purpose", prompt: "find it" } },
      { name: "mcp__github__get_issue", input: { number: 3 } },
    ];
    const text = [
      JSON.stringify({ type: "user", uuid: "u", sessionId: "x", message: { role: "user", content: "go" } }),
      JSON.stringify({
        type: "assistant",
        uuid: "a",
        sessionId: "x",
        message: {
          id: "m",
          model: "claude-sonnet-4-5",
          stop_reason: "tool_use",
          content: uses.map((use, i) => ({ type: "tool_use", id: `t${i}`, ...use })),
          usage: { input_tokens: 1000, output_tokens: 10 },
        },
      }),
      JSON.stringify({
        type: "user",
        uuid: "r",
        sessionId: "x",
        message: { role: "user", content: uses.map((_, i) => ({ type: "tool_result", tool_use_id: `t${i}`, content: "ok" })) },
      }),
    ].join("\n");
    const step = readClaudeCode(text).timeline.entries.find((entry) => entry.kind === "assistant") as AssistantEntry;
    expect(step.toolCalls.map((call) => [call.tool, call.action])).toMatchObject([
      ["bash", { kind: "wait", seconds: 45, shell: true, run: { text: "sleep 45 && gh pr checks 7" } }],
      ["read", { kind: "read", file: "/p/a.ts", offset: 5, limit: 10, numbered: true }],
      ["edit", { kind: "edit", edits: [{ oldString: "x", newString: "y", replaceAll: false }] }],
      ["task", { kind: "delegate", agent: "general-purpose", prompt: "find it", readOnly: false }],
      ["github_get_issue", { kind: "other", asking: false, reads: true }],
    ]);
    expect(step.toolCalls[1]!.action.asked.path).toBe("/p/a.ts");
  });

  it("Codex: exec_command, write_stdin's own wait, update_plan and apply_patch, by Codex's names", () => {
    const calls: [string, unknown][] = [
      ["exec_command", { cmd: "npm test", yield_time_ms: 30_000 }],
      ["write_stdin", { session_id: 1, chars: "", yield_time_ms: 30_000 }],
      ["update_plan", { plan: [] }],
      ["apply_patch", "*** Begin Patch\n*** End Patch"],
    ];
    const text = [
      JSON.stringify({ type: "session_meta", payload: { id: "r1", cwd: "/w", cli_version: "0.169.0" } }),
      JSON.stringify({ type: "event_msg", payload: { type: "user_message", message: "test it" } }),
      ...calls.flatMap(([name, args], i) => [
        JSON.stringify({
          type: "response_item",
          payload: { type: "function_call", name, arguments: JSON.stringify(args), call_id: `c${i}` },
        }),
        JSON.stringify({ type: "response_item", payload: { type: "function_call_output", call_id: `c${i}`, output: "ok" } }),
      ]),
    ].join("\n");
    const steps = readCodex(text).timeline.entries.filter((entry): entry is AssistantEntry => entry.kind === "assistant");
    expect(steps.flatMap((step) => step.toolCalls.map((call) => [call.tool, call.action]))).toMatchObject([
      // A shell call waits by its command alone: exec_command's yield_time_ms is how long Codex waits for output, not a wait for the world.
      ["bash", { kind: "shell", run: { text: "npm test", role: "check" } }],
      ["write_stdin", { kind: "wait", seconds: 30, run: undefined, shell: false }],
      ["todowrite", { kind: "plan" }],
      ["apply_patch", { kind: "edit", edits: undefined }],
    ]);
  });
});

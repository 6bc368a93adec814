/** The Codex host on public rollouts (fixtures/codex/README.md says where each came from). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AssistantEntry } from "../../../src/model/entry.js";
import { replayTimeline } from "../../../src/core.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import { readCodex } from "../../../src/hosts/codex/index.js";
import { TranscriptError } from "../../../src/hosts/transcript.js";

const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/codex/${name}`, import.meta.url), "utf8");

describe("Codex 0.104.0-alpha.1: a real rollout with a `compacted` item (localpush's sanitized fixture, cut)", () => {
  const session = readCodex(fixture("codex-0.104.0-alpha.1-compacted.jsonl"));

  it("reads the session's facts and the usable line from model_context_window (258,400 → 244,800)", () => {
    expect(session.info.id).toBe("019c8a59-e9dd-71f0-9ae3-4079fe9726a9");
    expect(session.info.version).toBe("0.104.0-alpha.1");
    expect(session.info.directory).toBe("/redacted/path/59b923df4d");
    expect(session.usable).toBe(244_800);
    expect(session.unknownRecords).toEqual([]);
  });

  it("the compacted item and the context_compacted event after it are one compaction", () => {
    expect(session.timeline.compactions).toEqual([
      { index: 1, auto: true, overflow: false, messageID: "line-220", position: 25, summaryPosition: 26, succeeded: true },
    ]);
  });

  it("the step before it measured 212,134 tokens (input 209,950 + output 2,184), the first after it 48,297", () => {
    const rows = replayTimeline(session.timeline, DEFAULT_SETTINGS);
    expect(rows.map((r) => [r.compaction.index, r.decision, r.triggerTokens, r.afterTokens])).toEqual([[1, "allow", 212_134, 48_297]]);
    const before = session.timeline.entries[24] as AssistantEntry;
    expect(before.toolCalls).toMatchObject([
      {
        tool: "apply_patch",
        action: { kind: "edit", edits: undefined },
        input: { patchText: "[REDACTED_INPUT len=7926 sha=6f3952e5]" },
        output: "[REDACTED_OUTPUT len=231 sha=fda0dafa]",
        status: "completed",
      },
    ]);
    const after = session.timeline.entries[27] as AssistantEntry;
    expect([after.toolParts, after.toolCalls.map((c) => c.tool), after.model]).toEqual([
      3,
      ["exec_command", "exec_command", "exec_command"],
      "openai/gpt-5.3-codex codex",
    ]);
  });
});

describe("Codex 0.144.1: a `context_compacted` event alone (codex-hud's session-active.jsonl)", () => {
  const session = readCodex(fixture("codex-0.144.1-context-compacted.jsonl"));

  it("is a compaction; the MCP call's output with success: false is an errored call", () => {
    expect(session.info.id).toBe("root-session");
    expect(session.timeline.compactions).toMatchObject([{ index: 1, auto: true, messageID: "line-11", succeeded: true }]);
    // The user's message, then two steps: the custom call answered before the function call began.
    const step = session.timeline.entries[2] as AssistantEntry;
    expect([step.contextTokens, step.promptTokens]).toEqual([80_000, 70_000]);
    expect(step.toolCalls).toMatchObject([
      {
        tool: "github_search_code",
        action: { kind: "other", asking: true, reads: true, run: undefined },
        input: { pattern: "statusline" },
        output: { success: false },
        status: "error",
      },
    ]);
    expect(session.usable).toBe(121_263);
  });
});

describe("Codex 0.169.0: two failing calls after every compaction (recorded from the real binary, e2e/codex-run.ts)", () => {
  const session = readCodex(fixture("codex-0.169.0-two-call-loop.jsonl"));

  it("reads every record kind 0.169.0 writes, and drops exec_command's delivery header from each output", () => {
    expect(session.info.version).toBe("0.169.0");
    expect(session.unknownRecords).toEqual([]);
    const calls = session.timeline.entries.flatMap((e) => (e.kind === "assistant" ? e.toolCalls : []));
    expect(calls).toHaveLength(10);
    expect(calls[0]).toMatchObject({
      tool: "bash",
      input: expect.objectContaining({ command: "cat build.log" }),
      action: { kind: "shell", run: { text: "cat build.log" } },
      output: "Process exited with code 1\nOutput:\ncat: build.log: No such file or directory\n",
      status: "error",
    });
    // The same command, with its own random chunk id and wall time in the rollout, compares equal.
    const outputsOf = (command: string) =>
      new Set(calls.filter((c) => (c.input as { command?: string }).command === command).map((c) => c.output));
    expect(outputsOf("cat build.log").size).toBe(1);
    expect(outputsOf("sh check.sh").size).toBe(1);
  });

  it("is denied at compaction 3, the first whose whole cycle repeated the cycle before (no-new-work)", () => {
    const rows = replayTimeline(session.timeline, DEFAULT_SETTINGS);
    expect(rows.map((r) => [r.compaction.index, r.decision, r.rule])).toEqual([
      [1, "allow", null],
      [2, "allow", null],
      [3, "deny", "no-new-work"],
      [4, "deny", "repeated-tool-call"],
      [5, "deny", "repeated-tool-call"],
    ]);
  });
});

describe("defensive reading", () => {
  it("shell calls become bash with a command line; unknown kinds are listed once; bad lines counted", () => {
    const text = [
      '{"type":"session_meta","payload":{"id":"r1","cwd":"/w","cli_version":"0.50.0"}}',
      '{"type":"event_msg","payload":{"type":"user_message","message":"list files"}}',
      '{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\\"command\\":[\\"bash\\",\\"-lc\\",\\"ls -a\\"]}","call_id":"c1"}}',
      '{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":900,"output_tokens":100},"model_context_window":100}}}',
      '{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\\\nb\\",\\"metadata\\":{\\"exit_code\\":2}}"}}',
      '{"type":"mystery","payload":{}}',
      '{"type":"event_msg","payload":{"type":"mystery_event"}}',
      '{"type":"event_msg","payload":{"type":"mystery_event"}}',
      "not json",
    ].join("\n");
    const session = readCodex(text);
    expect(session.unknownRecords).toEqual(["mystery", "event_msg:mystery_event"]);
    expect(session.badLines).toBe(1);
    expect(session.info.title).toBe("list files");
    const step = session.timeline.entries[1] as AssistantEntry;
    expect(step.toolCalls).toMatchObject([
      {
        tool: "bash",
        action: { kind: "shell", run: { text: "ls -a", role: "read" } },
        input: { command: "ls -a" },
        output: "a\nb",
        status: "error",
      },
    ]);
    expect(step.contextTokens).toBe(1000);
  });

  it("the title is the first thing asked, its secrets masked", () => {
    const text = [
      '{"type":"session_meta","payload":{"id":"r2"}}',
      '{"type":"event_msg","payload":{"type":"user_message","message":"deploy with OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\\nthen check"}}',
    ].join("\n");
    const title = readCodex(text).info.title;
    expect(title.startsWith("deploy with OPENAI_API_KEY=")).toBe(true);
    expect(title).not.toContain("sk-proj-abcdefghijklmnopqrstuvwxyz0123456789");
  });

  it("a file with no Codex record is a one-line error", () => {
    expect(() => readCodex('{"type":"user","message":{}}')).toThrow(TranscriptError);
  });
});

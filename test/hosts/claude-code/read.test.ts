/** The Claude Code host on public transcripts (fixtures/claude-code/README.md says where each came from). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AssistantEntry } from "../../../src/model/entry.js";
import { replayTimeline } from "../../../src/core.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import { readClaudeCode } from "../../../src/hosts/claude-code/index.js";
import { TranscriptError } from "../../../src/hosts/transcript.js";

const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/claude-code/${name}`, import.meta.url), "utf8");

describe("Claude Code 2.1.0: compact_boundary and isCompactSummary (claude-code-log's dag_compact_after_rewind.jsonl)", () => {
  const session = readClaudeCode(fixture("claude-code-2.1.0-compact-after-rewind.jsonl"));

  it("reads the session's facts from its records", () => {
    expect(session.info).toEqual({
      id: "s1",
      title: "Start",
      directory: "/tmp",
      version: "2.1.0",
      time: { created: Date.parse("2025-07-01T10:00:00.000Z"), updated: Date.parse("2025-07-01T10:41:00.000Z") },
    });
    expect(session.agent).toBe("claude-code");
    expect(session.unknownRecords).toEqual([]);
    expect(session.usable).toBe(155_000);
  });

  it("the boundary is an automatic compaction, the summary record finishes it, and the prompt after a finished turn set it off", () => {
    expect(session.timeline.compactions).toEqual([
      { index: 1, auto: true, overflow: false, messageID: "cb", position: 9, summaryPosition: 10, succeeded: true },
    ]);
    const summary = session.timeline.entries[10] as AssistantEntry;
    expect(summary.text).toMatch(/^This session is being continued/);
    expect(session.timeline.entries.map((e) => (e.kind === "user" ? `user:${e.role}` : e.kind))).toEqual([
      "user:real",
      "assistant",
      "user:real",
      "assistant",
      "user:real",
      "assistant",
      "user:real",
      "assistant",
      "user:real",
      "user:compaction",
      "assistant",
      "assistant",
    ]);
    expect(session.timeline.entries[8]!.id).toBe("p1u");
  });

  it("each assistant record's usage is its step's size (input + cache, plus output)", () => {
    const step = session.timeline.entries[1] as AssistantEntry;
    expect([step.promptTokens, step.contextTokens, step.outputTokens, step.finish, step.model]).toEqual([
      10,
      15,
      5,
      "stop",
      "anthropic/claude-sonnet-4-20250514 main",
    ]);
  });

  it("replays to one row for the compaction; the user spoke after it, so the guard allows", () => {
    const rows = replayTimeline(session.timeline, DEFAULT_SETTINGS);
    expect(rows.map((r) => [r.compaction.index, r.decision, r.triggerTokens, r.afterTokens])).toEqual([[1, "allow", 15, 10]]);
  });
});

describe("Claude Code 2.1.14: two automatic compactions in one turn (entireio/cli's checkpoint b8/659b3a4dd4, cut)", () => {
  const session = readClaudeCode(fixture("claude-code-2.1.14-two-compactions.jsonl"));

  it("reads the session's facts; 2.1.14 compacts at 200,000 − 45,000, not at 167,000", () => {
    expect(session.info).toMatchObject({
      id: "0cf3db51-1c73-43bb-8d05-dc02739514a5",
      version: "2.1.14",
      time: { created: Date.parse("2026-01-21T23:55:21.756Z"), updated: Date.parse("2026-01-22T01:11:33.334Z") },
    });
    expect(session.info.title).toMatch(/^let's go with option 1/);
    // The two boundaries' compactMetadata.preTokens, 155,277 and 155,475, sit just over this line.
    expect(session.usable).toBe(155_000);
    // progress records (hook runs) are passed over, not reported as unknown.
    expect(session.unknownRecords).toEqual([]);
  });

  it("each boundary is an automatic compaction at its line, its summary on the next line", () => {
    // Timeline positions: the person's message (line 1), 2 steps, the boundary (line 8) and its
    // summary (line 9), 1 step; then 2 steps, the boundary (line 22), its summary (line 23), 1 step.
    expect(session.timeline.compactions).toEqual([
      {
        index: 1,
        auto: true,
        overflow: false,
        messageID: "c8385e22-389f-485c-884f-ba2a560a2c90",
        position: 3,
        summaryPosition: 4,
        succeeded: true,
      },
      {
        index: 2,
        auto: true,
        overflow: false,
        messageID: "186335ae-2d30-47d8-98b1-5c29a1d7a8a7",
        position: 8,
        summaryPosition: 9,
        succeeded: true,
      },
    ]);
    expect(session.timeline.entries.map((e) => (e.kind === "user" ? `user:${e.role}` : e.kind))).toEqual([
      "user:real",
      "assistant",
      "assistant",
      "user:compaction",
      "assistant",
      "assistant",
      "assistant",
      "assistant",
      "user:compaction",
      "assistant",
      "assistant",
    ]);
  });

  // Each figure is a step's usage in the file: before compaction 1, line 6 (8 + 395 + 154,644 in,
  // 2 out); after it, line 12 (10 + 21,877 + 27,992 in); before compaction 2, line 20 (8 + 1,414 +
  // 151,447 in, 1 out); after it, line 26 (10 + 29,759 + 27,992 in).
  it("replays to one row per compaction, the sizes of the steps either side of it", () => {
    const rows = replayTimeline(session.timeline, DEFAULT_SETTINGS);
    expect(rows.map((r) => [r.compaction.index, r.decision, r.triggerTokens, r.afterTokens])).toEqual([
      [1, "allow", 155_049, 49_879],
      [2, "allow", 152_870, 57_761],
    ]);
  });
});

describe("Claude Code 2.1.x writes stop_reason: null on every assistant record", () => {
  it("a note to itself before a compaction, then more edits with no new prompt: no rule reads a finished turn into it", () => {
    const assistant = (uuid: string, id: string, content: unknown[], input: number) =>
      JSON.stringify({
        type: "assistant",
        uuid,
        sessionId: "x",
        version: "2.1.30",
        message: { id, model: "claude-sonnet-4-5", stop_reason: null, content, usage: { input_tokens: input, output_tokens: 50 } },
      });
    const edit = (n: number) => ({
      type: "tool_use",
      id: `t${n}`,
      name: "Edit",
      input: { file_path: `/p/src/f${n}.ts`, old_string: `a${n}`, new_string: `b${n}` },
    });
    const result = (n: number) =>
      JSON.stringify({
        type: "user",
        uuid: `r${n}`,
        sessionId: "x",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: `t${n}`, content: "The file has been updated." }] },
      });
    const text = [
      JSON.stringify({ type: "user", uuid: "u", sessionId: "x", message: { role: "user", content: "rename a to b in every file" } }),
      assistant("a1", "m1", [edit(1)], 120_000),
      result(1),
      assistant("a2", "m2", [{ type: "text", text: "Note: f1 done; f2 and f3 next." }], 160_000),
      JSON.stringify({
        type: "system",
        subtype: "compact_boundary",
        uuid: "c1",
        sessionId: "x",
        compactMetadata: { trigger: "auto", preTokens: 160_000 },
      }),
      JSON.stringify({
        type: "user",
        uuid: "s1",
        sessionId: "x",
        isCompactSummary: true,
        message: { role: "user", content: "This session is being continued: f1 done." },
      }),
      assistant("a3", "m3", [edit(2)], 30_000),
      result(2),
      assistant("a4", "m4", [edit(3)], 40_000),
      result(3),
    ].join("\n");
    const session = readClaudeCode(text);
    const note = session.timeline.entries.find((e) => e.id === "a2") as AssistantEntry;
    expect([note.toolParts, note.finish]).toEqual([0, null]);
    // Read as a finished turn, turn-finished denied this compaction.
    const rows = replayTimeline(session.timeline, DEFAULT_SETTINGS);
    expect(rows.map((r) => [r.compaction.index, r.decision, r.rule])).toEqual([[1, "allow", null]]);
  });
});

describe("Claude Code 2.0.46: a Task subagent's sidechain (claude-code-log's sidechain_integrated.jsonl)", () => {
  const session = readClaudeCode(fixture("claude-code-2.0.46-sidechain.jsonl"));

  it("the main chain keeps its two steps; the Task call is a task call with its result", () => {
    const steps = session.timeline.entries as AssistantEntry[];
    expect(steps.map((s) => s.id)).toEqual(["83a7cabd-3642-45d6-ba73-9b9f843b9ab1", "91c82c1c-29b0-4149-a261-e5582d944ac6"]);
    expect(steps[0]!.toolCalls).toMatchObject([
      {
        tool: "task",
        action: {
          kind: "delegate",
          agent: "general-purpose",
          prompt: "Research how data-border-color is used in the code...",
          readOnly: false,
        },
        input: {
          subagent_type: "general-purpose",
          description: "Research data-border-color usage and CSS class mat...",
          prompt: "Research how data-border-color is used in the code...",
        },
        output: "Perfect! Now I have a complete understanding. Let ...",
        status: "completed",
      },
    ]);
    expect(steps[0]!.promptTokens).toBe(141_275);
  });

  it("the sidechain is one subagent session, its two records of one message one step", () => {
    expect(session.subagents).toHaveLength(1);
    const sub = session.subagents[0]!;
    expect(sub.info.id).toBe("88a8d761-7b9a-4bf1-a8ca-c1febe6bf358/e1c84ba5");
    expect(sub.info.parentID).toBe("88a8d761-7b9a-4bf1-a8ca-c1febe6bf358");
    const step = sub.timeline.entries[0] as AssistantEntry;
    expect([sub.timeline.entries.length, step.toolParts, step.text, step.contextTokens]).toEqual([
      1,
      1,
      "I'll research how `data-border-color` is used thro...",
      20_016,
    ]);
  });
});

describe("defensive reading", () => {
  it("a torn line and unknown kinds are counted, never thrown", () => {
    const text = [
      '{"type":"brand-new-kind","sessionId":"x"}',
      '{"type":"brand-new-kind"}',
      '{"type":"user","sessionId":"x","uuid":"u","message":{"role":"user","content":"go"}}',
      '{"type":"assistant","uuid":"a","message":{"id":"m","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":1e400}}}',
      '{"type":"user","uuid":"u2","mess',
    ].join("\n");
    const session = readClaudeCode(text);
    expect([session.unknownRecords, session.badLines, session.timeline.entries.length]).toEqual([["brand-new-kind"], 1, 2]);
    expect((session.timeline.entries[1] as AssistantEntry).contextTokens).toBeNull();
  });

  it("a legacy summary with no boundary before it is a compaction whose trigger reads as automatic", () => {
    const text = [
      '{"type":"user","uuid":"u","message":{"content":"go"}}',
      '{"type":"user","uuid":"s","isCompactSummary":true,"message":{"content":"This session is being continued"}}',
    ].join("\n");
    expect(readClaudeCode(text).timeline.compactions).toMatchObject([{ auto: true, messageID: "s:compaction", succeeded: true }]);
  });

  it("the usable line follows the version: 45,000 kept free before 2.1.21, 33,000 from then on or when unknown", () => {
    const usable = (version: string | undefined, tokens = 1) =>
      readClaudeCode(
        [
          JSON.stringify({
            type: "user",
            uuid: "u",
            sessionId: "x",
            ...(version === undefined ? {} : { version }),
            message: { content: "go" },
          }),
          JSON.stringify({ type: "assistant", uuid: "a", message: { id: "m", content: [], usage: { input_tokens: tokens } } }),
        ].join("\n"),
      ).usable;
    expect([usable("1.0.128"), usable("2.0.76"), usable("2.1.20"), usable("2.1.21"), usable("2.1.42"), usable("10.0.0")]).toEqual([
      155_000, 155_000, 155_000, 167_000, 167_000, 167_000,
    ]);
    expect([usable(undefined), usable("converted"), usable("2.1.20", 250_000), usable("2.1.42", 250_000)]).toEqual([
      167_000, 167_000, 955_000, 967_000,
    ]);
  });

  it("a file with no Claude Code record is a one-line error", () => {
    expect(() => readClaudeCode('{"info":{"id":"ses_1"},"messages":[]}')).toThrow(TranscriptError);
    expect(() => readClaudeCode("")).toThrow("not a Claude Code transcript: no user, assistant or system record in it");
  });
});

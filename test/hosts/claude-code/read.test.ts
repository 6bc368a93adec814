/** The Claude Code host on public transcripts (fixtures/claude-code/README.md says where each came from). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AssistantEntry } from "../../../src/model/entry.js";
import { replayTimeline } from "../../../src/core.js";
import { DEFAULT_SETTINGS } from "../../../src/judge/settings.js";
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
    expect(session.usable).toBe(167_000);
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

describe("Claude Code 2.0.46: a Task subagent's sidechain (claude-code-log's sidechain_integrated.jsonl)", () => {
  const session = readClaudeCode(fixture("claude-code-2.0.46-sidechain.jsonl"));

  it("the main chain keeps its two steps; the Task call is a task call with its result", () => {
    const steps = session.timeline.entries as AssistantEntry[];
    expect(steps.map((s) => s.id)).toEqual(["83a7cabd-3642-45d6-ba73-9b9f843b9ab1", "91c82c1c-29b0-4149-a261-e5582d944ac6"]);
    expect(steps[0]!.toolCalls).toEqual([
      {
        tool: "task",
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

  it("a file with no Claude Code record is a one-line error", () => {
    expect(() => readClaudeCode('{"info":{"id":"ses_1"},"messages":[]}')).toThrow(TranscriptError);
    expect(() => readClaudeCode("")).toThrow("not a Claude Code transcript: no user, assistant or system record in it");
  });
});

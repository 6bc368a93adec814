/**
 * The session model without a host (src/model/): entries built by hand, as a new host would
 * build them, become a timeline whose compactions, re-sent messages and position questions
 * are those the rules read.
 */
import { describe, expect, it } from "vitest";
import { isRealUser, isStep, isWorkStep, type AssistantEntry, type Entry, type UserEntry } from "../../src/model/entry.js";
import { anyBetween, compactionEnd, compactionSizes, realUserAfter, stepBefore, timelineOf } from "../../src/model/timeline.js";

const step = (id: string, over: Partial<AssistantEntry> = {}): AssistantEntry => ({
  kind: "assistant",
  id,
  summary: false,
  compactionID: undefined,
  succeeded: true,
  finish: "tool-calls",
  contextTokens: null,
  promptTokens: null,
  outputTokens: 0,
  model: null,
  toolCalls: [],
  toolParts: 1,
  text: "",
  empty: false,
  time: null,
  ...over,
});
const user = (id: string, role: UserEntry["role"], text = "", over: Partial<UserEntry> = {}): UserEntry => ({
  kind: "user",
  id,
  role,
  text,
  auto: false,
  overflow: false,
  time: null,
  ...over,
});
const summary = (id: string, of: string, succeeded = true): AssistantEntry =>
  step(id, { summary: true, compactionID: of, succeeded, toolParts: 0, text: "summary" });

describe("timelineOf: compactions and their summaries", () => {
  it("links each compaction to the first summary naming it, numbers the automatic ones, and keeps manual ones at 0", () => {
    const entries: Entry[] = [
      user("u1", "real", "go"),
      step("a1", { contextTokens: 9_000 }),
      user("c1", "compaction", "", { auto: true }),
      summary("s1", "c1"),
      user("k1", "continue"),
      step("a2", { promptTokens: 3_000 }),
      user("c2", "compaction"),
      summary("s2", "c2"),
      user("c3", "compaction", "", { auto: true, tailStartID: "a2" }),
      summary("s3", "c3", false),
    ];
    const timeline = timelineOf(entries);
    expect(timeline.compactions).toEqual([
      { index: 1, auto: true, overflow: false, messageID: "c1", position: 2, summaryPosition: 3, succeeded: true, tailStartID: undefined },
      { index: 0, auto: false, overflow: false, messageID: "c2", position: 6, summaryPosition: 7, succeeded: true, tailStartID: undefined },
      { index: 2, auto: true, overflow: false, messageID: "c3", position: 8, summaryPosition: 9, succeeded: false, tailStartID: "a2" },
    ]);
    const first = timeline.compactions[0]!;
    expect(compactionEnd(first)).toBe(3);
    expect(compactionSizes(timeline.entries, first)).toEqual({
      triggerTokens: 9_000,
      triggerMessageID: "a1",
      afterTokens: 3_000,
      afterMessageID: "a2",
    });
    expect(stepBefore(timeline.entries, 6, 0)?.position).toBe(5);
    expect(stepBefore(timeline.entries, 5, 2)).toBeUndefined();
  });

  it("a compaction without a summary ends at itself and measures nothing after it", () => {
    const timeline = timelineOf([step("a1", { contextTokens: 5 }), user("c1", "compaction", "", { auto: true })]);
    const [c] = timeline.compactions;
    expect(c).toMatchObject({ summaryPosition: -1, succeeded: false });
    expect(compactionEnd(c!)).toBe(1);
    expect(compactionSizes(timeline.entries, c!)).toMatchObject({ triggerTokens: 5, afterTokens: null, afterMessageID: null });
  });
});

describe("timelineOf: the copy re-sent after an overflow summary", () => {
  const around = (text: string) =>
    timelineOf([
      user("u1", "real", "do it"),
      step("a1"),
      user("c1", "compaction", "", { auto: true, overflow: true }),
      summary("s1", "c1"),
      user("u2", "real", text),
    ]).entries[4];

  it("is a resend when it says what the last real message said, and real when the user says something else", () => {
    expect(around("do it")).toMatchObject({ role: "resend" });
    expect(around("try another way")).toMatchObject({ role: "real" });
  });

  it("after a summary of a compaction that did not overflow, the same words are the user again", () => {
    const entries = timelineOf([
      user("u1", "real", "do it"),
      user("c1", "compaction"),
      summary("s1", "c1"),
      user("u2", "real", "do it"),
    ]).entries;
    expect(entries[3]).toMatchObject({ role: "real" });
  });
});

describe("position questions", () => {
  const timeline = timelineOf([
    user("u1", "real", "go"),
    step("a1"),
    step("a2", { toolParts: 0, text: " " }),
    user("u2", "synthetic"),
    user("u3", "real"),
  ]);

  it("steps, work steps and real users", () => {
    expect(timeline.entries.map((e) => [isStep(e), isWorkStep(e), isRealUser(e)])).toEqual([
      [false, false, true],
      [true, true, false],
      [true, false, false],
      [false, false, false],
      [false, false, true],
    ]);
  });

  it("realUserAfter and anyBetween look strictly after (and before) the positions given", () => {
    expect(realUserAfter(timeline, 0)).toBe(4);
    expect(realUserAfter(timeline, 4)).toBe(-1);
    expect(anyBetween(timeline.entries, 0, 4, (e) => e.kind === "user")).toBe(true);
    expect(anyBetween(timeline.entries, 0, 3, (e) => e.kind === "user")).toBe(false);
  });
});

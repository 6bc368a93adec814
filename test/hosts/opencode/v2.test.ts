/**
 * V2 messages and events → the timeline the rules read (src/hosts/opencode/v2.ts), on two real
 * V2 sessions of opencode 1.18.33's V2 session runner (test/fixtures/v2/, recorded with
 * e2e/v2-harness.ts): `loop` (the same 5 KB `cat big.txt` every step, unguarded: a compaction
 * before every step until the scripted server's cap) and `healthy` (a new file every step, a
 * final answer).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decideCompaction, replayTimeline } from "../../../src/core.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import { historyLimit } from "../../../src/judge/verdict.js";
import { CONTINUE_TEXT } from "../../../src/hosts/opencode/facts.js";
import { TOOL_LOOP_NOTICE_MARK } from "../../../src/model/entry.js";
import { buildV2Timeline, SUMMARY_ID_SUFFIX, v2Event, v2InOrder, v2MessagesFromEvents, v2Session } from "../../../src/hosts/opencode/v2.js";

const read = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/v2/${name}.json`, import.meta.url), "utf8")) as { data: unknown[] };
const LOOP = read("loop-messages").data;
const LOOP_EVENTS = read("loop-history").data;
const HEALTHY = read("healthy-messages").data;
const HEALTHY_EVENTS = read("healthy-history").data;

type V2 = { id: string; type: string; content?: { type: string; name?: string; state?: { input?: unknown } }[] };

describe("v2InOrder", () => {
  it("turns /message's newest-first answer oldest first, and leaves an oldest-first list as it is", () => {
    const ordered = v2InOrder(LOOP) as V2[];
    expect((LOOP[0] as V2).type).toBe("assistant");
    expect(ordered[0]!.type).toBe("user");
    expect(ordered.map((m) => m.id)).toEqual((LOOP as V2[]).map((m) => m.id).reverse());
    expect(v2InOrder(ordered)).toEqual(ordered);
  });
});

describe("buildV2Timeline: V2 messages straight to the timeline", () => {
  it("maps the loop: one user message, 8 steps of the same cat and a refused one, 6 automatic compactions with their summaries", () => {
    const timeline = buildV2Timeline(v2InOrder(LOOP));
    expect(timeline.compactions.map((c) => [c.index, c.auto, c.succeeded])).toEqual([1, 2, 3, 4, 5, 6].map((index) => [index, true, true]));
    const steps = timeline.entries.filter((e) => e.kind === "assistant" && !e.summary);
    expect(steps).toHaveLength(9);
    const calls = steps.flatMap((s) => (s.kind === "assistant" ? s.toolCalls : []));
    expect(calls).toHaveLength(8); // the last step was refused by the scripted server's cap
    expect(steps.at(-1)).toMatchObject({ finish: "error", succeeded: false, empty: true });
    expect(calls.every((c) => c.tool === "bash" && (c.input as { command: string }).command === "cat big.txt")).toBe(true);
    // The result's text parts, joined: big.txt's lines of x, then bash's exit line.
    expect(String(calls[0]!.output).startsWith(`${"x".repeat(80)}\n`)).toBe(true);
    expect(String(calls[0]!.output).endsWith("x\n\nCommand exited with code 0.")).toBe(true);
    const first = timeline.compactions[0]!;
    expect(timeline.entries[first.summaryPosition]!.id).toBe(`${first.messageID}${SUMMARY_ID_SUFFIX}`);
    expect(timeline.entries.find((e) => e.kind === "user" && e.role === "real")).toMatchObject({ text: "go MODE=loop" });
  });

  it("a step's context size is its reported prompt and output plus its tool results at 4 characters a token", () => {
    const step = (v2InOrder(LOOP) as Array<V2 & { tokens: { input: number; output: number } }>).find((m) => m.type === "assistant")!;
    const [entry] = buildV2Timeline([step]).entries;
    const output = entry!.kind === "assistant" ? String(entry!.toolCalls[0]!.output).length : 0;
    expect(output).toBeGreaterThan(5000);
    expect(entry).toMatchObject({
      kind: "assistant",
      promptTokens: step.tokens.input,
      contextTokens: step.tokens.input + step.tokens.output + Math.round(output / 4),
    });
  });

  it("an errored tool, a synthetic message, a file attachment and an unknown message keep their meaning", () => {
    const messages = [
      { id: "u", type: "user", text: "fix it", files: [{ uri: "file:///a.png" }], time: { created: 1 } },
      { id: "s", type: "synthetic", sessionID: "ses_x", text: "background task done", time: { created: 2 } },
      {
        id: "a",
        type: "assistant",
        time: { created: 3 },
        agent: "build",
        model: { id: "m", providerID: "p" },
        content: [
          {
            type: "tool",
            id: "c",
            name: "edit",
            state: { status: "error", input: { filePath: "a.ts" }, content: [], error: { type: "unknown", message: "no match" } },
          },
        ],
        finish: "tool-calls",
      },
      { id: "x", type: "agent-switched", agent: "plan", time: { created: 4 } },
    ];
    const { entries } = buildV2Timeline(messages);
    expect(entries.map((e) => [e.kind, e.kind === "user" ? e.role : null])).toEqual([
      ["user", "real"],
      ["user", "synthetic"],
      ["assistant", null],
      ["other", null],
    ]);
    expect(entries[0]).toMatchObject({ unsized: true, text: "fix it", sentChars: 6, time: 1 });
    expect(entries[1]).toMatchObject({ text: "", sentChars: 20, time: 2 });
    expect(entries[2]).toMatchObject({ model: "p/m build", toolCalls: [{ tool: "edit", status: "error", output: "no match" }] });
    expect(entries[2]).toMatchObject({ succeeded: true, finish: "tool-calls", time: 3 });
    expect(entries[3]).toEqual({ kind: "other", id: "x", time: 4 });
  });

  it("a compaction is two entries: the compaction and its summary, linked by the compaction's id", () => {
    const { timeline } = v2Session([
      { id: "c", type: "compaction", reason: "auto", summary: "we did things", time: { created: 5, completed: 9 } },
      { id: "m", type: "compaction", reason: "manual", summary: "", time: { created: 10 } },
    ]);
    expect(timeline.entries[0]).toEqual({
      kind: "user",
      id: "c",
      role: "compaction",
      text: "",
      auto: true,
      overflow: false,
      tailStartID: undefined,
      time: 9,
    });
    expect(timeline.entries[1]).toMatchObject({
      kind: "assistant",
      id: `c${SUMMARY_ID_SUFFIX}`,
      summary: true,
      compactionID: "c",
      text: "we did things",
    });
    expect(timeline.compactions.map((c) => [c.messageID, c.index, c.auto, c.position, c.summaryPosition, c.succeeded])).toEqual([
      ["c", 1, true, 0, 1, true],
      ["m", 0, false, 2, 3, true],
    ]);
  });

  it("opencode's continue text in a synthetic message is a continue turn; the guard's tool-loop notice is no part of a result", () => {
    const { entries } = buildV2Timeline([
      { id: "s", type: "synthetic", text: CONTINUE_TEXT },
      {
        id: "a",
        type: "assistant",
        content: [
          {
            type: "tool",
            id: "c",
            name: "bash",
            state: { status: "completed", input: {}, content: [{ type: "text", text: `ok${TOOL_LOOP_NOTICE_MARK}same again` }] },
          },
        ],
        finish: "tool-calls",
        tokens: { input: 10, output: 2 },
      },
    ]);
    expect(entries[0]).toMatchObject({ kind: "user", role: "continue" });
    expect(entries[1]).toMatchObject({ toolCalls: [{ output: "ok" }], promptTokens: 10 });
  });

  it("counts steps with token counts no model could have made, and leaves roleless messages out when asked", () => {
    const messages = [
      { id: "a", type: "assistant", content: [], finish: "stop", tokens: { input: -5, output: 1 } },
      { id: "x", type: "model-switched" },
      null,
    ];
    expect(v2Session(messages).unphysicalTokens).toBe(1);
    expect(v2Session(messages).timeline.entries.map((e) => e.kind)).toEqual(["assistant", "other", "other"]);
    expect(v2Session(messages, { roleless: "drop" }).timeline.entries.map((e) => e.kind)).toEqual(["assistant"]);
  });
});

describe("v2MessagesFromEvents", () => {
  for (const [name, messages, events] of [
    ["loop", LOOP, LOOP_EVENTS],
    ["healthy", HEALTHY, HEALTHY_EVENTS],
  ] as const) {
    it(`rebuilds from /history what /message returns (${name}): the same messages, tool calls and compactions`, () => {
      const rebuilt = v2MessagesFromEvents(events) as unknown as V2[];
      const listed = v2InOrder(messages) as V2[];
      expect(rebuilt.map((m) => [m.id, m.type])).toEqual(listed.map((m) => [m.id, m.type]));
      const tools = (list: V2[]) =>
        list.flatMap((m) => (m.content ?? []).filter((c) => c.type === "tool").map((c) => [c.name, c.state?.input]));
      expect(tools(rebuilt)).toEqual(tools(listed));
      const decisions = (list: unknown[]) =>
        replayTimeline(buildV2Timeline(list), DEFAULT_SETTINGS).map((r) => [r.decision, r.rule, r.triggerTokens, r.afterTokens]);
      expect(decisions(rebuilt)).toEqual(decisions(listed));
    });
  }

  it("reads later builds' inputs: admitted, then in the history once promoted; one never promoted is not", () => {
    const ev = (type: string, data: Record<string, unknown>) => ({ type: `session.${type}`, data: { sessionID: "ses_x", ...data } });
    const messages = v2MessagesFromEvents([
      ev("input.admitted", { inputID: "in_1", input: { type: "user", data: { text: "go on", files: [{ uri: "file:///a" }] } } }),
      ev("input.admitted", { inputID: "in_2", input: { type: "synthetic", data: { text: "task done" } } }),
      ev("input.admitted", { inputID: "in_3", input: { type: "user", data: { text: "queued, never sent" } } }),
      ev("input.promoted", { inputID: "in_2" }),
      ev("input.promoted", { inputID: "in_1" }),
      ev("input.promoted", { inputID: "in_unknown" }),
    ]);
    expect(messages.map((m) => [m.id, m.type, m.text])).toEqual([
      ["in_2", "synthetic", "task done"],
      ["in_1", "user", "go on"],
    ]);
    expect(buildV2Timeline(messages).entries.map((e) => (e.kind === "user" ? [e.role, e.unsized] : e.kind))).toEqual([
      ["synthetic", false],
      ["real", true],
    ]);
  });

  it("reads the later 2.x names (session.step.ended …) and the bus form ({ type, properties })", () => {
    const renamed = LOOP_EVENTS.map((e) => {
      const { data, ...rest } = e as { type: string; data: unknown };
      return { ...rest, type: rest.type.replace("session.next.", "session."), properties: data };
    });
    expect(v2MessagesFromEvents(renamed)).toEqual(v2MessagesFromEvents(LOOP_EVENTS));
    expect(v2Event({ type: "session.compaction.ended", data: { reason: "auto" } })).toEqual({
      kind: "compaction.ended",
      data: { reason: "auto" },
    });
    expect(v2Event({ type: "message.updated", properties: {} })).toBeUndefined();
  });
});

describe("decideCompaction on a V2 timeline: the V2 meaning of the rules", () => {
  it("the loop: the same call after the compaction as before it, stopped at compaction 2 (repeated-tool-call), then every compaction", () => {
    const rows = replayTimeline(buildV2Timeline(v2InOrder(LOOP)), DEFAULT_SETTINGS);
    expect(rows.map((r) => r.decision)).toEqual(["allow", "deny", "deny", "deny", "deny", "deny"]);
    expect(rows[1]!.rule).toBe("repeated-tool-call");
    expect(rows[1]!.fired).toEqual(["repeated-tool-call", "no-new-work"]);
  });

  it("the healthy session: each compaction made room (17% and 27% cuts) and the steps did new work: never stopped", () => {
    const rows = replayTimeline(buildV2Timeline(v2InOrder(HEALTHY)), DEFAULT_SETTINGS);
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.decision === "allow")).toBe(true);
    const cuts = rows.slice(1).map((r) => {
      const e = r.evidence["no-progress"];
      return e.status === "measured" ? Math.round((e.reduction ?? 0) * 100) : null;
    });
    expect(cuts).toEqual([17, 27]);
  });

  it("at one compaction, on the messages as they stood when it ended; undefined for a compaction not among them", () => {
    const ordered = v2InOrder(LOOP) as V2[];
    const compactions = ordered.filter((m) => m.type === "compaction");
    const upTo = ordered.slice(0, ordered.indexOf(compactions[1]!) + 1);
    const decideAt = (messages: unknown[], id: string | undefined) =>
      decideCompaction(buildV2Timeline(messages), id, DEFAULT_SETTINGS, { wholeSession: messages.length < historyLimit(DEFAULT_SETTINGS) });
    expect(decideAt(upTo, compactions[1]!.id)).toMatchObject({
      decision: "deny",
      rule: "repeated-tool-call",
      compaction: { index: 2, messageID: compactions[1]!.id },
    });
    expect(decideAt(upTo, compactions[2]!.id)).toBeUndefined();
    expect(decideAt([], undefined)).toBeUndefined();
  });
});

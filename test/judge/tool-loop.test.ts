/**
 * The tool-loop check (judge/tool-loop.ts): the same call with the same result, message
 * after message, with or without a compaction; the project's judgement of new work; and over
 * every case the project holds, healthy ones never get a notice and loops are named.
 */
import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { callKey } from "../../src/hosts/opencode/actions.js";
import { describe, expect, it } from "vitest";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { TOOL_LOOP_NOTICE_MARK, withoutToolLoopNotice } from "../../src/model/entry.js";
import { DEFAULT_SETTINGS, type GuardSettings } from "../../src/config/settings.js";
import {
  askedRepeats,
  checkToolCall,
  refusalMessage,
  toolLoopAction,
  toolLoopHistoryLimit,
  toolLoopNotice,
  toolLoopsOf,
} from "../../src/judge/tool-loop.js";
import { timelineWithCall, type FinishedCall } from "../../src/hosts/opencode/tool-call.js";
import { bash, SessionBuilder, type ToolSpec } from "../support/session.js";

const settings = (over: Partial<GuardSettings> = {}): GuardSettings => ({ ...DEFAULT_SETTINGS, ...over });
const loops = (session: SessionBuilder, over: Partial<GuardSettings> = {}) =>
  toolLoopsOf(buildTimeline(session.messages), settings(over)).map(({ step, action, runs }) => [step, action, runs]);
const finished = (spec: ToolSpec, callID = "call_new"): FinishedCall => ({
  callID,
  tool: spec.tool,
  input: spec.input,
  output: spec.output ?? "ok\n",
  status: spec.status === "error" ? "error" : "completed",
});
/** The hook's path: the call found in the newest messages (hosts/opencode/tool-call.ts), then checked. */
const checkCall = (messages: readonly unknown[], call: FinishedCall, s: GuardSettings) =>
  checkToolCall(timelineWithCall(messages, call, toolLoopHistoryLimit(s)), s);
const read = (filePath: string): ToolSpec => ({ tool: "read", input: { filePath }, output: `<file>\n00001| ${filePath}\n</file>` });

describe("checkToolCall: the call just finished against the history", () => {
  it("the third identical echo, each in its own assistant message, no compaction: warn at run 3", () => {
    const echo = bash("echo hi", "hi\n");
    const session = new SessionBuilder().user("say hi").step(echo, 1000).step(echo, 1000);
    expect(checkCall(session.messages, finished(echo), settings())).toEqual({ runs: 3, action: "warn" });
    const once = new SessionBuilder().user("say hi").step(echo, 1000);
    expect(checkCall(once.messages, finished(echo), settings())).toEqual({ runs: 2, action: null });
  });

  it("reads the call's own running part as the call says (the part exists, still running)", () => {
    const echo = bash("echo hi", "hi\n");
    const session = new SessionBuilder()
      .user("say hi")
      .step(echo, 1000)
      .step(echo, 1000)
      .step({ ...echo, status: "running" }, 1000);
    const callID = (session.messages.at(-1)!.parts as Array<{ type: string; callID?: string }>).find((p) => p.type === "tool")!.callID!;
    expect(checkCall(session.messages, finished(echo, callID), settings())).toEqual({ runs: 3, action: "warn" });
  });

  it("a different result, a new call in between, or a real user message breaks the chain", () => {
    const echo = bash("echo hi", "hi\n");
    const changed = new SessionBuilder().user().step(echo).step(bash("echo hi", "hello\n"));
    expect(checkCall(changed.messages, finished(echo), settings()).runs).toBe(1);
    const newWork = new SessionBuilder().user().step(echo).step(read("a.ts")).step(echo);
    expect(checkCall(newWork.messages, finished(echo), settings()).runs).toBe(2);
    const user = new SessionBuilder().user().step(echo).step(echo).user("again please");
    expect(checkCall(user.messages, finished(echo), settings()).runs).toBe(1);
  });

  it("an A,B,A,B cycle is a chain of A once B is no new work (the first B was new: it starts the chain anew)", () => {
    const a = bash("npm test", "1 failing\n");
    const b = read("src/a.ts");
    const session = new SessionBuilder().user().step(a).step(b).step(a).step(b);
    expect(checkCall(session.messages, finished(a), settings())).toEqual({ runs: 2, action: null });
    session.step(a).step(b);
    expect(checkCall(session.messages, finished(a), settings())).toEqual({ runs: 3, action: "warn" });
  });

  it("counts across a compaction too, and a failure repeated the same way", () => {
    const fail: ToolSpec = { tool: "bash", input: { command: "./deploy.sh" }, output: "error: no credentials", status: "error" };
    const session = new SessionBuilder().user().step(fail).compact().step(fail);
    expect(checkCall(session.messages, finished(fail), settings())).toEqual({ runs: 3, action: "warn" });
  });

  it("noise is removed: a pid or a timestamp that changes does not make a new result", () => {
    const run = (pid: number): ToolSpec => bash("node server.js", `listening (pid ${pid}) at 2026-12-01T10:00:0${pid % 10}Z\n`);
    const session = new SessionBuilder().user().step(run(4101)).step(run(4102));
    expect(checkCall(session.messages, finished(run(4103)), settings()).runs).toBe(3);
  });

  it("a deliberate wait is always new work; planning tools and the ignore list are not counted", () => {
    const wait = bash("sleep 30 && gh pr checks 42", "pending\n");
    const waits = new SessionBuilder().user().step(wait).step(wait);
    expect(checkCall(waits.messages, finished(wait), settings())).toEqual({ runs: 1, action: null });
    const todo: ToolSpec = { tool: "todowrite", input: { todos: [] }, output: "[]" };
    const todos = new SessionBuilder().user().step(todo).step(todo);
    expect(checkCall(todos.messages, finished(todo), settings())).toEqual({ runs: 0, action: null });
    const poll = bash("gh pr checks 42", "pending\n");
    const polls = new SessionBuilder().user().step(poll).step(poll);
    expect(checkCall(polls.messages, finished(poll), settings({ ignore: ["gh pr checks"] }))).toEqual({ runs: 0, action: null });
    // Planning between two runs neither breaks the chain nor counts.
    const echo = bash("echo hi", "hi\n");
    const planned = new SessionBuilder().user().step(echo).step(todo).step(echo);
    expect(checkCall(planned.messages, finished(echo), settings()).runs).toBe(3);
  });

  it("a tool's own wait parameter is a wait: identical polls of a running process get no notice", () => {
    const poll: ToolSpec = {
      tool: "write_stdin",
      input: { session_id: 2, chars: "", yield_time_ms: 45_000 },
      output: "Process running with session ID 2\nWall time: 45.0 seconds\nOutput:\n",
    };
    const polls = new SessionBuilder().user().step(poll).step(poll).step(poll).step(poll);
    expect(checkCall(polls.messages, finished(poll), settings())).toEqual({ runs: 1, action: null });
    // The same tool sending input (or yielding under 10 s) is no wait: the fifth run is warned.
    const typed: ToolSpec = { ...poll, input: { session_id: 2, chars: "y\n", yield_time_ms: 1_000 } };
    const typing = new SessionBuilder().user().step(typed).step(typed).step(typed).step(typed);
    expect(checkCall(typing.messages, finished(typed), settings()).action).toBe("warn");
  });

  it("a re-spelled read between two runs is no new work: the chain goes on (the same judgement as at a compaction)", () => {
    const lines = "export const a = 1;\nexport const b = 2;\nexport const c = compute(a, b);\n".repeat(3);
    const check = bash("npx tsc --noEmit", "src/a.ts(3,1): error TS2304: Cannot find name 'compute'.\n");
    const session = new SessionBuilder()
      .user()
      .step(bash("cat src/a.ts", lines))
      .step(check)
      .step(bash("head -n 9 src/a.ts", lines))
      .step(check)
      .step(bash("sed -n '1,9p' src/a.ts", lines));
    expect(checkCall(session.messages, finished(check), settings()).runs).toBe(3);
  });

  it("at tool time an asking tool counts only when asked the same way: the notice speaks of this exact call", () => {
    const pages = "1. https://example.org/a — the page about retries and back-off, long enough to stand for the query itself. ".repeat(2);
    const search = (query: string): ToolSpec => ({ tool: "websearch", input: { query }, output: pages });
    const rephrased = new SessionBuilder().user().step(search("retry backoff")).step(search("exponential backoff retries"));
    expect(checkCall(rephrased.messages, finished(search("backoff for retries")), settings()).runs).toBe(1);
    const same = new SessionBuilder().user().step(search("retry backoff")).step(search("retry backoff"));
    expect(checkCall(same.messages, finished(search("retry backoff")), settings()).runs).toBe(3);
  });

  it("the guard's own notice on an earlier run is not part of that run's result", () => {
    const echo = bash("echo hi", "hi\n");
    const noticed = bash("echo hi", `hi\n${toolLoopNotice(3, false)}`);
    const session = new SessionBuilder().user().step(echo).step(echo).step(noticed);
    expect(checkCall(session.messages, finished(echo), settings())).toEqual({ runs: 4, action: "warn" });
  });

  it("stop mode: warn at threshold and threshold + 1, stop from threshold + 2; off: nothing; the user's asked count is honoured", () => {
    const s = settings({ toolLoop: "stop" });
    expect([2, 3, 4, 5, 6].map((runs) => toolLoopAction(runs, s))).toEqual([null, "warn", "warn", "stop", "stop"]);
    expect(toolLoopAction(9, settings({ toolLoop: "off" }))).toBeNull();
    expect([3, 4, 5].map((runs) => toolLoopAction(runs, settings({ threshold: 4 })))).toEqual([null, "warn", "warn"]);
    expect(toolLoopAction(3, settings(), 3)).toBeNull();
    expect(toolLoopAction(4, settings(), 3)).toBe("warn");
    const echo = bash("echo hi", "hi\n");
    const off = new SessionBuilder().user().step(echo).step(echo);
    expect(checkCall(off.messages, finished(echo), settings({ toolLoop: "off" }))).toEqual({ runs: 0, action: null });
  });

  it("askedRepeats reads the count a user asks for", () => {
    expect(askedRepeats("poll job 42 three times")).toBe(3);
    expect(askedRepeats("run the tests 5 times to check for flakes")).toBe(5);
    expect(askedRepeats("try it twice, then 10x")).toBe(10);
    expect(askedRepeats("fix the build")).toBe(0);
    const poll = bash("sh ./poll.sh 42", "job 42: running\n");
    const asked = new SessionBuilder().user("poll job 42 three times").step(poll).step(poll);
    expect(checkCall(asked.messages, finished(poll), settings())).toEqual({ runs: 3, action: null });
    asked.step(poll);
    expect(checkCall(asked.messages, finished(poll), settings())).toEqual({ runs: 4, action: "warn" });
  });

  it("reads a bounded slice: a chain older than the slice is not counted, never a false one", () => {
    const echo = bash("echo hi", "hi\n");
    const session = new SessionBuilder().user();
    for (let i = 0; i < toolLoopHistoryLimit(DEFAULT_SETTINGS) + 10; i++) session.step(bash(`echo ${i}`, `${i}\n`));
    session.step(echo).step(echo);
    expect(checkCall(session.messages, finished(echo), settings()).runs).toBe(3);
  });

  it("never throws on malformed history", () => {
    const echo = finished(bash("echo hi"));
    for (const messages of [[], [null], [{}], [{ info: { id: "x", role: "assistant" }, parts: "nope" }], [42, "text"]]) {
      expect(checkCall(messages as unknown[], echo, settings())).toEqual({ runs: 1, action: null });
    }
  });

  it("callKey: the same tool and input up to key order and the description label", () => {
    expect(callKey("bash", { command: "echo hi", description: "a" })).toBe(callKey("bash", { description: "b", command: "echo hi" }));
    expect(callKey("bash", { command: "echo hi" })).not.toBe(callKey("bash", { command: "echo ho" }));
  });

  it("the notice starts with the mark the timeline strips, and says what to do", () => {
    expect(toolLoopNotice(3, false).startsWith(TOOL_LOOP_NOTICE_MARK)).toBe(true);
    expect(toolLoopNotice(3, false)).toContain("the same result 3 times");
    expect(toolLoopNotice(3, false)).toContain("stop and tell the user");
    expect(toolLoopNotice(4, true)).toContain("will be refused");
  });

  it("the timeline strips the notice at the first mark in an output's last 1,000 characters, as a search for the whole mark would", () => {
    // Pieces that make near misses: the mark's text without its line feeds, with one, line feeds alone.
    const mark = TOOL_LOOP_NOTICE_MARK;
    const piece = fc.oneof(fc.constantFrom(mark, mark.slice(1), mark.slice(2), "\n", "\n\n", "x"), fc.string({ maxLength: 300 }));
    let stripped = 0;
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const output = pieces.join("");
        const at = output.indexOf(mark, Math.max(0, output.length - 1000));
        if (at !== -1) stripped += 1;
        expect(withoutToolLoopNotice(output)).toBe(at === -1 ? output : output.slice(0, at));
      }),
      { numRuns: 3000 },
    );
    expect(stripped).toBeGreaterThan(300);
    expect(withoutToolLoopNotice(`hi\n${toolLoopNotice(3, false)}`)).toBe("hi\n");
    expect(withoutToolLoopNotice({ mark })).toEqual({ mark });
  });
});

describe("toolLoopsOf: where the guard would have acted in a whole session", () => {
  it("warn at every run from threshold on; stop once at threshold + 2", () => {
    const echo = bash("echo hi", "hi\n");
    const session = new SessionBuilder().user();
    for (let i = 0; i < 6; i++) session.step(echo, 1000);
    expect(loops(session)).toEqual([
      [3, "warn", 3],
      [4, "warn", 4],
      [5, "warn", 5],
      [6, "warn", 6],
    ]);
    expect(loops(session, { toolLoop: "stop" })).toEqual([
      [3, "warn", 3],
      [4, "warn", 4],
      [5, "stop", 5],
    ]);
    expect(loops(session, { toolLoop: "off" })).toEqual([]);
  });

  it("a stop the live guard made (its refusal in the export) is shown where it happened, whatever the replay's settings", () => {
    const poll = bash("gh run view 42", "in_progress\n");
    const session = new SessionBuilder().user();
    for (let i = 0; i < 4; i++) session.step(poll, 1000);
    session.step({ ...poll, status: "error", output: refusalMessage("bash", 5) }, 1000);
    expect(loops(session, { toolLoop: "stop" })).toEqual([
      [3, "warn", 3],
      [4, "warn", 4],
      [5, "stop", 5],
    ]);
    expect(loops(session)).toEqual([
      [3, "warn", 3],
      [4, "warn", 4],
      [5, "stop", 5],
    ]);
  });

  it("three different calls and a final answer: nothing", () => {
    const session = new SessionBuilder().user().step(bash("ls")).step(read("a.ts")).step(bash("npm test")).say("Done.");
    expect(loops(session)).toEqual([]);
  });

  it("agrees with checkToolCall at every call", () => {
    const a = bash("npm test", "1 failing\n");
    const b = read("src/a.ts");
    const session = new SessionBuilder().user().step(a).step(b).compact().step(a).step(b).step(a).step(b).step(a).step(bash("ls")).step(a);
    const timeline = buildTimeline(session.messages);
    const entries = toolLoopsOf(timeline, settings());
    for (const entry of entries) {
      const at = session.messages.findIndex((m) => m.info.id === entry.messageID);
      const part = (
        session.messages[at]!.parts as Array<{ type: string; callID: string; tool: string; state: { input: unknown; output: unknown } }>
      ).find((p) => p.type === "tool")!;
      const check = checkCall(
        session.messages.slice(0, at + 1),
        { callID: part.callID, tool: part.tool, input: part.state.input, output: part.state.output, status: "completed" },
        settings(),
      );
      expect(check).toEqual({ runs: entry.runs, action: entry.action });
    }
    expect(entries.map((e) => [e.tool, e.runs])).toEqual([
      ["read", 3],
      ["bash", 3],
    ]);
  });
});

/** Every case the project holds, with expect.json's answer: firstDeny null = healthy. */
const SETS = [
  "../../fixtures/",
  "../../fixtures/judgement/",
  "../../fixtures/judgement2/",
  "../../fixtures/review/",
  "../../fixtures/breaker/",
].map((path) => new URL(path, import.meta.url));
const CASES = SETS.flatMap((dir) => {
  const expected = JSON.parse(readFileSync(new URL("expect.json", dir), "utf8")) as Record<string, { firstDeny: number | null }>;
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json") && name !== "expect.json" && expected[name.slice(0, -5)] !== undefined)
    .map((name) => ({
      name: `${dir.pathname.split("/").at(-2)}/${name.slice(0, -5)}`,
      healthy: expected[name.slice(0, -5)]!.firstDeny === null,
      messages: (JSON.parse(readFileSync(new URL(name, dir), "utf8")) as { messages: unknown[] }).messages,
    }));
});

describe("over every case the project holds", () => {
  const listOf = (messages: unknown[]) =>
    toolLoopsOf(buildTimeline(messages), settings()).map(({ step, action, runs, tool }) => `${step} ${action} ${runs} ${tool}`);

  it("reads them all (sanity)", () => {
    expect(CASES.length).toBe(25 + 12 + 10 + 22 + 18);
    expect(CASES.filter((c) => c.healthy).length).toBeGreaterThan(15);
  });

  /**
   * The one healthy case that gets a notice, and why it is right to: the same build failed the
   * same way three times in a row with nothing in between (the model then fixed it; a notice
   * stops nothing). Searches whose rephrasings bring back the same pages get none at tool time:
   * the notice speaks of "this exact call".
   */
  const NOTICED: Record<string, string[]> = { "breaker/stale-chain-then-fixed": ["3 warn 3 bash"] };

  it.each(CASES.filter((c) => c.healthy).map((c) => [c.name, c] as const))("healthy %s: no notice", (name, c) => {
    expect(listOf(c.messages)).toEqual(NOTICED[name] ?? []);
  });

  /** Loops and the calls expected: the first call named, and how many calls in all. */
  const LOOPS: Record<string, { first: string; count: number }> = {
    "fixtures/opencode-1.18.33-loop-bash": { first: "3 warn 3 bash", count: 1 },
    "fixtures/e2e-fixed-point-unguarded": { first: "3 warn 3 bash", count: 6 },
    "fixtures/e2e-repeat-with-progress": { first: "3 warn 3 bash", count: 6 },
    "fixtures/e2e-errored-repeat": { first: "3 warn 3 bash", count: 6 },
    "judgement/four-read-cycle": { first: "12 warn 3 read", count: 9 },
    "judgement/errored-repeat": { first: "3 warn 3 bash", count: 4 },
    "judgement2/replan-reworded-todos": { first: "16 warn 3 read", count: 5 },
    "review/loop-node-pid-warning": { first: "6 warn 3 bash", count: 3 },
    "review/loop-failing-edits-different-oldstrings": { first: "6 warn 3 edit", count: 3 },
    "review/loop-user-replies-mid-loop": { first: "3 warn 3 bash", count: 1 },
  };
  it.each(Object.entries(LOOPS))("loop %s: names the repeated calls", (name, { first, count }) => {
    const c = CASES.find((x) => x.name === name)!;
    expect(c.healthy).toBe(false);
    const list = listOf(c.messages);
    expect(list[0]).toBe(first);
    expect(list).toHaveLength(count);
  });
});

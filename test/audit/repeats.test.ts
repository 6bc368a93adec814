import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NO_REPEATS, repeatsAfterCompaction } from "../../src/audit/repeats.js";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { bash, SessionBuilder } from "../support/session.js";

const read = (file: string) => ({ tool: "read", input: { filePath: file }, output: "contents\n" });
const timelineOf = (b: SessionBuilder) => buildTimeline(b.messages);
const fixture = (name: string) =>
  buildTimeline((JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8")) as { messages: unknown[] }).messages);

describe("calls repeated after a compaction", () => {
  it("counts a call redone after the summary, not a new one, not one redone before any compaction", () => {
    const b = new SessionBuilder()
      .user()
      .step(bash("npm test"))
      .step(bash("npm test"))
      .step(read("a.ts"))
      .compact()
      .step(bash("npm test"))
      .step(read("a.ts"))
      .step(read("b.ts"))
      .say("done");
    expect(repeatsAfterCompaction(timelineOf(b))).toEqual({
      calls: 2,
      compactions: 1,
      byTool: [
        { tool: "bash", calls: 1 },
        { tool: "read", calls: 1 },
      ],
    });
  });

  it("a real user message between the first run and the compaction: the run after it is asked for, not a repeat", () => {
    const b = new SessionBuilder().user().step(bash("npm test")).user("run the tests again").compact().step(bash("npm test"));
    expect(repeatsAfterCompaction(timelineOf(b))).toEqual(NO_REPEATS);
    // …and a user message after the compaction ends the span counted.
    const c = new SessionBuilder().user().step(bash("npm test")).compact().user("again please").step(bash("npm test"));
    expect(repeatsAfterCompaction(timelineOf(c)).calls).toBe(0);
  });

  it("a call repeated after each of three compactions counts three times; a call that failed before is no repeat", () => {
    const b = new SessionBuilder().user().step(bash("ls"));
    for (let i = 0; i < 3; i++) b.compact().step(bash("ls"));
    expect(repeatsAfterCompaction(timelineOf(b))).toEqual({ calls: 3, compactions: 3, byTool: [{ tool: "bash", calls: 3 }] });
    const failed = new SessionBuilder()
      .user()
      .step({ tool: "bash", input: { command: "make" }, output: "boom", status: "error" })
      .compact()
      .step(bash("make"));
    expect(repeatsAfterCompaction(timelineOf(failed)).calls).toBe(0);
  });

  it("bookkeeping and deliberate waits are left out", () => {
    const todo = { tool: "todowrite", input: { todos: [] }, output: "[]" };
    const b = new SessionBuilder().user().step(todo).step(bash("sleep 60")).compact().step(todo).step(bash("sleep 60"));
    expect(repeatsAfterCompaction(timelineOf(b)).calls).toBe(0);
  });

  it("a session without compactions has none", () => {
    expect(repeatsAfterCompaction(timelineOf(new SessionBuilder().user().step(bash("ls")).step(bash("ls"))))).toBe(NO_REPEATS);
  });

  it("in real opencode 1.18.33 exports: the unguarded fixed-point loop redoes its call after 7 of its 8 compactions (the 8th met the server's cap), the healthy session never", () => {
    expect(repeatsAfterCompaction(fixture("e2e-fixed-point-unguarded.json"))).toEqual({
      calls: 7,
      compactions: 7,
      byTool: [{ tool: "bash", calls: 7 }],
    });
    expect(repeatsAfterCompaction(fixture("e2e-healthy.json"))).toEqual(NO_REPEATS);
  });
});

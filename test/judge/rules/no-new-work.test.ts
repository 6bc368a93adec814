import { describe, expect, it } from "vitest";
import { replayMessages } from "../../../src/core.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import { bash, SessionBuilder } from "../../support/session.js";

/** The verdict at the last automatic compaction under the default settings. */
const last = (session: SessionBuilder) => replayMessages(session.messages, DEFAULT_SETTINGS).at(-1)!;

/** A cycle of four different reads: longer than the window allows repeated-tool-call to see as a chain. */
const reads = (session: SessionBuilder, files: string[]) => {
  for (const filePath of files) session.step({ tool: "read", input: { filePath }, output: `contents of ${filePath}\n` }, 20_000);
  return session;
};

describe("no-new-work", () => {
  it("fires when the cycle after the previous compaction redid every call from before it", () => {
    const session = reads(new SessionBuilder().user(), ["a", "b", "c", "d"]).compact();
    reads(session, ["a", "b", "c", "d"]).compact();
    const verdict = last(session);
    expect(verdict.fired).toContain("no-new-work");
    expect(verdict.evidence["no-new-work"]).toMatchObject({ status: "measured", steps: 4, actions: 4, firstNew: null });
    expect(verdict.evidence["no-new-work"]).toMatchObject({ example: { tool: "read" } });
  });

  it("one new call in the cycle is new work: firstNew names it", () => {
    const session = reads(new SessionBuilder().user(), ["a", "b", "c", "d"]).compact();
    reads(session, ["a", "b", "e", "d"]).compact();
    const verdict = last(session);
    expect(verdict.fired).not.toContain("no-new-work");
    expect(verdict.evidence["no-new-work"]).toMatchObject({ status: "measured", actions: 4, firstNew: 2, example: null });
  });

  it("the same call with a new result is new work", () => {
    const session = new SessionBuilder().user();
    session.step(bash("npm test", "3 failing\n"), 20_000).compact();
    session.step(bash("npm test", "1 failing\n"), 20_000).compact();
    expect(last(session).evidence["no-new-work"]).toMatchObject({ status: "measured", firstNew: 0 });
  });

  it("abstains at the first compaction, and after a real user message", () => {
    const first = reads(new SessionBuilder().user(), ["a"]).compact();
    expect(last(first).evidence["no-new-work"]).toEqual({ status: "abstain", reason: "no earlier automatic compaction" });

    const spoken = reads(new SessionBuilder().user(), ["a"]).compact();
    reads(spoken.user("look again"), ["a"]).compact();
    expect(last(spoken).evidence["no-new-work"]).toEqual({
      status: "abstain",
      reason: "a real user message came after the previous compaction",
    });
  });

  it("abstains on a cycle that did nothing the rules count", () => {
    const session = reads(new SessionBuilder().user(), ["a"]).compact();
    session.refused().compact();
    expect(last(session).evidence["no-new-work"]).toMatchObject({ status: "abstain" });
    expect(last(session).fired).not.toContain("no-new-work");
  });
});

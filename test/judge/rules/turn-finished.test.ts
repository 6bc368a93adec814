import { describe, expect, it } from "vitest";
import { replayMessages } from "../../../src/core.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import { SessionBuilder } from "../../support/session.js";

/** The verdict at the only automatic compaction, under the default settings. */
const only = (session: SessionBuilder, subagent = false) => {
  const rows = replayMessages(session.messages, DEFAULT_SETTINGS, { subagent });
  expect(rows).toHaveLength(1);
  return rows[0]!;
};

describe("turn-finished", () => {
  it("a finished answer set off the compaction: the continue turn is skipped as housekeeping (info)", () => {
    const session = new SessionBuilder().user();
    session
      .step({ tool: "read", input: { filePath: "a" } }, 20_000)
      .say("Done: the bug was in a.ts.", 60_000)
      .compact();
    const verdict = only(session);
    expect(verdict.decision).toBe("deny");
    expect(verdict.rule).toBe("turn-finished");
    expect(verdict.severity).toBe("info");
    expect(verdict.evidence["turn-finished"]).toMatchObject({ finish: "stop", toolParts: 0, subagent: false });
  });

  it("a step that called tools did not end the turn", () => {
    const session = new SessionBuilder().user();
    session.step({ tool: "read", input: { filePath: "a" } }, 60_000).compact();
    const verdict = only(session);
    expect(verdict.fired).not.toContain("turn-finished");
    expect(verdict.evidence["turn-finished"]).toMatchObject({ finish: "tool-calls", toolParts: 1 });
  });

  it("text cut off by the output limit (finish length) did not end the turn", () => {
    const session = new SessionBuilder().user();
    session.say("The plan is", 60_000, "length").compact();
    expect(only(session).fired).not.toContain("turn-finished");
  });

  it("never in a subagent's session: its caller would get the summary instead of the report", () => {
    const session = new SessionBuilder().user();
    session.say("Report: three call sites.", 60_000).compact();
    const verdict = only(session, true);
    expect(verdict.fired).not.toContain("turn-finished");
    expect(verdict.evidence["turn-finished"]).toMatchObject({ finish: "stop", subagent: true });
  });
});

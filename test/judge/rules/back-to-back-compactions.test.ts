import { describe, expect, it } from "vitest";
import { replayMessages } from "../../../src/core.js";
import { BACK_TO_BACK_LIMIT } from "../../../src/judge/rules/back-to-back-compactions.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import { SessionBuilder } from "../../support/session.js";

/** Every automatic compaction's verdict under the default settings. */
const rows = (session: SessionBuilder) => replayMessages(session.messages, DEFAULT_SETTINGS);

describe("back-to-back-compactions", () => {
  it("denies the third automatic compaction in a row with no step between", () => {
    const session = new SessionBuilder().user();
    session.step({ tool: "read", input: { filePath: "a" } }, 60_000).compact({ continueTurn: false });
    session.compact({ continueTurn: false }).compact({ continueTurn: false });
    const [first, second, third] = rows(session);
    expect(first!.evidence["back-to-back-compactions"]).toEqual({ inARow: 1, limit: BACK_TO_BACK_LIMIT });
    expect(second!.evidence["back-to-back-compactions"]).toEqual({ inARow: 2, limit: 3 });
    expect(second!.fired).not.toContain("back-to-back-compactions");
    expect(third!.fired).toContain("back-to-back-compactions");
    expect(third!.decision).toBe("deny");
  });

  it("two in a row and then work is opencode's known double fire: the run starts again after the step", () => {
    const session = new SessionBuilder().user();
    session.step({ tool: "read", input: { filePath: "a" } }, 60_000).compact({ continueTurn: false });
    session.compact({ continueTurn: false });
    session.step({ tool: "read", input: { filePath: "b" } }, 20_000).compact();
    const last = rows(session).at(-1)!;
    expect(last.evidence["back-to-back-compactions"]).toEqual({ inARow: 1, limit: 3 });
    expect(last.fired).not.toContain("back-to-back-compactions");
  });

  it("a step that did nothing (a refused request) does not break the run", () => {
    const session = new SessionBuilder().user();
    session.step({ tool: "read", input: { filePath: "a" } }, 60_000).compact({ continueTurn: false });
    session.refused().compact({ continueTurn: false });
    session.refused().compact({ continueTurn: false });
    expect(rows(session).at(-1)!.evidence["back-to-back-compactions"]).toEqual({ inARow: 3, limit: 3 });
  });

  it("a manual compaction is not a decision point and does not count", () => {
    const session = new SessionBuilder().user();
    session.step({ tool: "read", input: { filePath: "a" } }, 60_000).compact({ continueTurn: false });
    session.compact({ auto: false });
    session.compact({ continueTurn: false });
    const all = rows(session);
    expect(all).toHaveLength(2);
    expect(all[1]!.evidence["back-to-back-compactions"]).toEqual({ inARow: 2, limit: 3 });
  });
});

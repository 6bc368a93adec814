import { describe, expect, it } from "vitest";
import { replayMessages } from "../../../src/core.js";
import { DEFAULT_SETTINGS, type GuardSettings } from "../../../src/config/settings.js";
import { SessionBuilder } from "../../support/session.js";

const settings = (over: Partial<GuardSettings> = {}): GuardSettings => ({ ...DEFAULT_SETTINGS, ...over });
const LIMITS_65K = { context: 65_536, output: 16_384 };

describe("no-progress edges", () => {
  it("no-progress: a cut of exactly minReduction (10%) allows, just under denies", () => {
    const run = (after: number) => {
      const session = new SessionBuilder().user();
      session.step({ tool: "read", input: { filePath: "a" } }, 10_000).compact();
      session.step({ tool: "read", input: { filePath: "b" } }, after).compact();
      return replayMessages(session.messages, settings())[1]!;
    };
    expect(run(9_000).decision).toBe("allow");
    expect(run(9_001).rule).toBe("no-progress");
  });

  it("no-progress: a good reduction that is still over the usable context denies", () => {
    const session = new SessionBuilder().user();
    session.step({ tool: "read", input: { filePath: "a" } }, 60_000).compact();
    session.step({ tool: "read", input: { filePath: "b" } }, 50_000).compact();
    const [, withLimits] = replayMessages(session.messages, settings(), { limits: LIMITS_65K });
    const [, withoutLimits] = replayMessages(session.messages, settings());
    expect(withLimits!.evidence["no-progress"]).toMatchObject({ stalled: "still-over-usable-context", usableTokens: 49_152 });
    expect(withoutLimits!.decision).toBe("allow");
  });
});

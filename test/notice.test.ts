import { describe, expect, it } from "vitest";
import { denialLogMessage, denialToast, describeEvidence } from "../src/notice.js";
import { DEFAULT_SETTINGS } from "../src/settings.js";
import { replayMessages } from "../src/verdict.js";
import { SessionBuilder } from "./support/session.js";

/** Two automatic compactions; the first step after compaction 1 has `after` tokens. */
function stalled(after: number, limits?: { context: number; output: number }) {
  const session = new SessionBuilder("ses_n").user();
  session.step({ tool: "read", input: { filePath: "a" } }, 10_000).compact();
  session.step({ tool: "read", input: { filePath: "b" } }, after).compact();
  return replayMessages(session.messages, { ...DEFAULT_SETTINGS }, { limits })[1]!;
}

describe("what the user is told", () => {
  it("a compaction that cut too little", () => {
    expect(describeEvidence(stalled(9_500))).toBe(
      "the previous compaction left 9,500 tokens of context, down from 10,000 tokens (5% smaller), less than the 10% needed to make progress",
    );
  });

  it("a compaction after which the context grew", () => {
    expect(describeEvidence(stalled(10_500))).toBe(
      "the previous compaction left 10,500 tokens of context, up from 10,000 tokens (5% larger), less than the 10% needed to make progress",
    );
  });

  it("a good cut that is still over opencode's usable context", () => {
    expect(describeEvidence(stalled(7_000, { context: 8_000, output: 2_000 }))).toBe(
      "the previous compaction left 7,000 tokens of context, down from 10,000 tokens (30% smaller), still over opencode's usable context of 6,000 tokens, so every step compacts again",
    );
  });

  it("the warn line names the session, the compaction, the rule and what to do; the toast is short", () => {
    const verdict = stalled(9_500);
    expect(denialLogMessage("ses_n", verdict, 2)).toMatch(
      /^compaction-guard stopped auto-continue in session ses_n after compaction 2 \(msg_\d+\): no-progress: the previous compaction .* Reply to continue, start a new session, or free context/,
    );
    expect(denialToast(verdict)).toEqual({
      title: "Compaction loop stopped",
      message: `no-progress: ${describeEvidence(verdict)}. Reply to continue, start a new session, or free context (compaction.prune, a model with a larger context) in opencode.json.`,
      variant: "warning",
    });
  });
});

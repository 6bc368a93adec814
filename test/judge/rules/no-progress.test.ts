import { expect } from "vitest";
import { noProgress } from "../../../src/judge/rules/no-progress.js";
import { exactly, ruleTester } from "../../support/rule-tester.js";
import { SessionBuilder, type TokenSpec } from "../../support/session.js";

const LIMITS_65K = { context: 65_536, output: 16_384 }; // usable 49,152

/**
 * user msg_0001; a read of `trigger` tokens (msg_0003); compaction 1 (msg_0007); a read of
 * `after` tokens (msg_0013); compaction 2 (msg_0017). `between` goes after compaction 1's cycle.
 */
const twoCompactions = (trigger: TokenSpec, after: TokenSpec, between: (s: SessionBuilder) => SessionBuilder = (s) => s) => {
  const session = new SessionBuilder().user();
  session.step({ tool: "read", input: { filePath: "a" } }, trigger).compact();
  return between(session)
    .step({ tool: "read", input: { filePath: "b" } }, after)
    .compact();
};

const overLimits = twoCompactions(60_000, 50_000);

/** The measured evidence of `twoCompactions` at compaction 2, less `reduction` and `stalled`. */
const measured = (trigger: number, after: number) => ({
  status: "measured" as const,
  previousMessageID: "msg_0007",
  triggerTokens: trigger,
  triggerMessageID: "msg_0003",
  afterTokens: after,
  afterMessageID: "msg_0013",
  minReduction: 0.1,
});

ruleTester(noProgress, {
  valid: [
    {
      name: "a cut of exactly minReduction (10%) allows",
      session: twoCompactions(10_000, 9_000),
      at: 2,
      verdict: { decision: "allow" },
      evidence: exactly({ ...measured(10_000, 9_000), usableTokens: null, reduction: expect.closeTo(0.1, 9), stalled: null }),
    },
    {
      name: "a good reduction over the usable context allows when the limits are unknown",
      session: overLimits,
      at: 2,
      verdict: { decision: "allow" },
      evidence: { usableTokens: null, stalled: null },
    },
    {
      name: "a cut of exactly a lower minReduction (5%) allows",
      session: twoCompactions(10_000, 9_500),
      settings: { minReduction: 0.05 },
      evidence: { status: "measured", minReduction: 0.05, stalled: null },
    },
    {
      name: "abstains at the first automatic compaction",
      session: overLimits,
      at: 1,
      evidence: exactly({ status: "abstain", reason: "no earlier automatic compaction" }),
    },
    {
      name: "a manual compaction is no k−1",
      session: new SessionBuilder()
        .user()
        .step({ tool: "read", input: { filePath: "a" } }, 10_000)
        .compact({ auto: false })
        .step({ tool: "read", input: { filePath: "b" } }, 10_000)
        .compact(),
      decisionPoints: 1,
      evidence: exactly({ status: "abstain", reason: "no earlier automatic compaction" }),
    },
    {
      name: "abstains after a real user message: only real input re-arms",
      session: twoCompactions(10_000, 10_000, (s) => s.user("go on")),
      evidence: exactly({ status: "abstain", reason: "a real user message came after the previous compaction" }),
    },
    {
      name: "a missing size is no stall",
      session: twoCompactions(10_000, null),
      evidence: exactly({ status: "abstain", reason: "token sizes around the previous compaction are missing" }),
    },
    {
      name: "an overflow compaction after a measured step is judged by its sizes, not as a refusal",
      session: (() => {
        const session = new SessionBuilder().user();
        session.step({ tool: "read", input: { filePath: "a" } }, 10_000).compact();
        return session
          .step({ tool: "read", input: { filePath: "b" } }, 5_000)
          .refused()
          .compact({ overflow: true });
      })(),
      evidence: { status: "measured", triggerTokens: 10_000, afterTokens: 5_000, reduction: 0.5, stalled: null },
    },
  ],
  invalid: [
    {
      name: "a cut just under minReduction denies",
      session: twoCompactions(10_000, 9_001),
      at: 2,
      verdict: { rule: "no-progress" },
      evidence: { ...measured(10_000, 9_001), usableTokens: null, stalled: "reduction-below-minimum" },
    },
    {
      name: "a good reduction that is still over the usable context denies",
      session: overLimits,
      at: 2,
      limits: LIMITS_65K,
      evidence: { ...measured(60_000, 50_000), stalled: "still-over-usable-context", usableTokens: 49_152 },
    },
    {
      name: "a compaction that made the context larger denies",
      session: twoCompactions(10_000, 11_000),
      evidence: { triggerTokens: 10_000, afterTokens: 11_000, reduction: expect.closeTo(-0.1, 9), stalled: "reduction-below-minimum" },
    },
    {
      name: "an overflow compaction after only refused requests: the previous one made no room",
      session: (() => {
        const session = new SessionBuilder().user();
        session.step({ tool: "read", input: { filePath: "a" } }, 60_000).compact();
        return session.refused().compact({ overflow: true });
      })(),
      evidence: { status: "measured", reduction: null, afterTokens: null, stalled: "provider-overflow-again" },
    },
  ],
});

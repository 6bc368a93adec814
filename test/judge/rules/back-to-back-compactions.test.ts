import { backToBackCompactions } from "../../../src/judge/rules/back-to-back-compactions.js";
import { exactly, ruleTester } from "../../support/rule-tester.js";
import { SessionBuilder } from "../../support/session.js";

/** A first step of 60,000 tokens, then `n` automatic compactions with no continue turn and nothing between them. */
const inARow = (n: number) => {
  const session = new SessionBuilder().user();
  session.step({ tool: "read", input: { filePath: "a" } }, 60_000);
  for (let i = 0; i < n; i++) session.compact({ continueTurn: false });
  return session;
};

const three = inARow(3);

ruleTester(backToBackCompactions, {
  valid: [
    { name: "the first compaction is one in a row", session: three, at: 1, evidence: exactly({ inARow: 1, limit: 3 }) },
    { name: "the second in a row does not deny yet", session: three, at: 2, evidence: exactly({ inARow: 2, limit: 3 }) },
    {
      name: "two in a row and then work is opencode's known double fire: the run starts again after the step",
      session: inARow(2)
        .step({ tool: "read", input: { filePath: "b" } }, 20_000)
        .compact(),
      evidence: exactly({ inARow: 1, limit: 3 }),
    },
    {
      name: "a manual compaction is not a decision point and does not count",
      session: inARow(1).compact({ auto: false }).compact({ continueTurn: false }),
      decisionPoints: 2,
      evidence: exactly({ inARow: 2, limit: 3 }),
    },
    {
      name: "text cut off by the output limit between the second and the third is a step: the run starts again",
      session: inARow(2).say("The plan is", 20_000, "length").compact({ continueTurn: false }),
      evidence: exactly({ inARow: 1, limit: 3 }),
    },
  ],
  invalid: [
    {
      name: "denies the third automatic compaction in a row with no step between",
      session: three,
      at: 3,
      evidence: exactly({ inARow: 3, limit: 3 }),
      verdict: { decision: "deny" },
    },
    {
      name: "a step that did nothing (a refused request) does not break the run",
      session: inARow(1).refused().compact({ continueTurn: false }).refused().compact({ continueTurn: false }),
      evidence: exactly({ inARow: 3, limit: 3 }),
    },
    {
      name: "a step of reasoning alone (finish length, no text) does not break the run",
      session: inARow(2).think(20_000).compact({ continueTurn: false }),
      evidence: exactly({ inARow: 3, limit: 3 }),
    },
    {
      name: "a real user message between them is no step: the run goes on",
      session: inARow(2).user("please go on").compact({ continueTurn: false }),
      evidence: exactly({ inARow: 3, limit: 3 }),
    },
    {
      name: "a failed automatic compaction counts in the run, as Claude Code and Codex count failed ones",
      session: inARow(1).compact({ failed: true }).compact({ continueTurn: false }),
      decisionPoints: 2,
      evidence: exactly({ inARow: 3, limit: 3 }),
    },
    { name: "a fourth in a row counts up to the limit only", session: inARow(4), evidence: exactly({ inARow: 3, limit: 3 }) },
  ],
});

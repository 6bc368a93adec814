import { turnFinished } from "../../../src/judge/rules/turn-finished.js";
import { exactly, ruleTester } from "../../support/rule-tester.js";
import { SessionBuilder } from "../../support/session.js";

/** user msg_0001; a read of 20,000 tokens (msg_0003); the answer "Done …" of 60,000 (msg_0007); then what `then` adds. */
const answered = (then: (session: SessionBuilder) => SessionBuilder = (s) => s) =>
  then(
    new SessionBuilder()
      .user()
      .step({ tool: "read", input: { filePath: "a" } }, 20_000)
      .say("Done: the bug was in a.ts.", 60_000),
  ).compact();

/** The answer of `answered` (msg_0007) ended in a provider error. */
const erred = () => {
  const session = answered();
  session.messages[2]!.info.error = { name: "APIError", data: { message: "overloaded" } };
  return session;
};

ruleTester(turnFinished, {
  valid: [
    {
      name: "a step that called tools did not end the turn",
      decisionPoints: 1,
      session: new SessionBuilder()
        .user()
        .step({ tool: "read", input: { filePath: "a" } }, 60_000)
        .compact(),
      evidence: { finish: "tool-calls", toolParts: 1 },
    },
    {
      name: "text cut off by the output limit (finish length) did not end the turn",
      decisionPoints: 1,
      session: new SessionBuilder().user().say("The plan is", 60_000, "length").compact(),
      evidence: exactly({ messageID: "msg_0003", finish: "length", toolParts: 0, subagent: false }),
    },
    {
      name: "never in a subagent's session: its caller would get the summary instead of the report",
      decisionPoints: 1,
      session: new SessionBuilder().user().say("Report: three call sites.", 60_000).compact(),
      subagent: true,
      evidence: { finish: "stop", subagent: true },
    },
    {
      name: "a real user message after the answer: the compaction is the user's turn's, not the answer's",
      session: answered((s) => s.user("and the tests?")),
      evidence: exactly({ messageID: "msg_0007", finish: "stop", toolParts: 0, subagent: false }),
    },
    {
      name: "a manual compaction between the answer and the automatic one interrupts it",
      session: answered((s) => s.compact({ auto: false })),
      evidence: { messageID: "msg_0007", finish: "stop" },
    },
    {
      name: "an answer that ended in a provider error did not finish the turn",
      session: erred(),
      evidence: exactly({ messageID: "msg_0007", finish: "stop", toolParts: 0, subagent: false }),
    },
  ],
  invalid: [
    {
      name: "a finished answer set off the compaction: the continue turn is skipped as housekeeping (info)",
      decisionPoints: 1,
      session: answered(),
      evidence: exactly({ messageID: "msg_0007", finish: "stop", toolParts: 0, subagent: false }),
      verdict: { decision: "deny", rule: "turn-finished", severity: "info" },
    },
    {
      name: "a finished answer at a later compaction, after a cycle of work",
      session: new SessionBuilder()
        .user()
        .step({ tool: "read", input: { filePath: "a" } }, 60_000)
        .compact()
        .step({ tool: "edit", input: { filePath: "a", oldString: "x", newString: "y" } }, 20_000)
        .say("Fixed in a.ts.", 60_000)
        .compact(),
      decisionPoints: 2,
      evidence: exactly({ messageID: "msg_0017", finish: "stop", toolParts: 0, subagent: false }),
    },
  ],
});

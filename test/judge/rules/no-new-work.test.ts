import { noNewWork } from "../../../src/judge/rules/no-new-work.js";
import { exactly, ruleTester } from "../../support/rule-tester.js";
import { bash, SessionBuilder } from "../../support/session.js";

/** A cycle of different reads (four: longer than the window allows repeated-tool-call to see as a chain). */
const reads = (session: SessionBuilder, files: string[]) => {
  for (const filePath of files) session.step({ tool: "read", input: { filePath }, output: `contents of ${filePath}\n` }, 20_000);
  return session;
};

/** A user message, then `cycles` compaction cycles, each the steps `cycle` adds and an automatic compaction. */
const cycles = (count: number, cycle: (session: SessionBuilder) => SessionBuilder) => {
  const session = new SessionBuilder().user();
  for (let i = 0; i < count; i++) cycle(session).compact();
  return session;
};

const abcd = (s: SessionBuilder) => reads(s, ["a", "b", "c", "d"]);

/** Two cycles of writing a.ts twice, "1" then "2": each cycle's first write changes the file again (new), yet the cycle redoes the one before it. */
const rewrites = cycles(2, (s) =>
  s
    .step({ tool: "write", input: { filePath: "a.ts", content: "1" } }, 20_000)
    .step({ tool: "write", input: { filePath: "a.ts", content: "2" } }, 20_000),
);

ruleTester(noNewWork, {
  valid: [
    {
      name: "one new call in the cycle is new work: firstNew names it",
      session: reads(abcd(new SessionBuilder().user()).compact(), ["a", "b", "e", "d"]).compact(),
      evidence: { status: "measured", actions: 4, firstNew: 2, example: null },
    },
    {
      name: "the same call with a new result is new work",
      session: new SessionBuilder()
        .user()
        .step(bash("npm test", "3 failing\n"), 20_000)
        .compact()
        .step(bash("npm test", "1 failing\n"), 20_000)
        .compact(),
      evidence: { status: "measured", firstNew: 0 },
    },
    {
      name: "abstains at the first compaction",
      session: reads(new SessionBuilder().user(), ["a"]).compact(),
      evidence: exactly({ status: "abstain", reason: "no earlier automatic compaction" }),
    },
    {
      name: "abstains after a real user message",
      session: reads(reads(new SessionBuilder().user(), ["a"]).compact().user("look again"), ["a"]).compact(),
      evidence: exactly({ status: "abstain", reason: "a real user message came after the previous compaction" }),
    },
    {
      name: "abstains on a cycle that did nothing the rules count",
      session: reads(new SessionBuilder().user(), ["a"]).compact().refused().compact(),
      evidence: exactly({ status: "abstain", reason: "the cycle since the previous compaction did nothing the rules count" }),
    },
    {
      name: "a cycle of calls on the ignore list counts as doing nothing",
      session: cycles(2, abcd),
      settings: { ignore: ["read"] },
      evidence: exactly({ status: "abstain", reason: "the cycle since the previous compaction did nothing the rules count" }),
    },
    {
      name: "a deliberate wait brings something every cycle, even with the same answer",
      session: cycles(4, (s) => s.step(bash("sleep 30 && gh pr checks 1", "pending\n"), 20_000)),
      evidence: { status: "measured", steps: 1, actions: 1, firstNew: 0, repeatsPreviousCycle: false, example: null },
    },
    {
      name: "a cycle that redoes the one before it is no loop yet at the default threshold (3 cycles needed)",
      session: rewrites,
      evidence: { status: "measured", steps: 2, actions: 2, firstNew: 0, repeatsPreviousCycle: false, example: null },
    },
  ],
  invalid: [
    {
      name: "a cycle that redoes the one before it call for call fires at threshold 2, though its first write is new",
      session: rewrites,
      settings: { threshold: 2 },
      evidence: {
        status: "measured",
        steps: 2,
        actions: 2,
        firstNew: 0,
        repeatsPreviousCycle: true,
        example: { tool: "write", preview: "filePath=a.ts" },
      },
    },
    {
      name: "fires when the cycle after the previous compaction redid every call from before it",
      session: cycles(2, abcd),
      evidence: { status: "measured", steps: 4, actions: 4, firstNew: null, example: { tool: "read" } },
    },
    {
      name: "the same words every step are a text-only loop",
      session: cycles(2, (s) => s.say("I will run the tests now.", 20_000, "unknown")),
      evidence: exactly({
        status: "measured",
        previousMessageID: "msg_0007",
        steps: 1,
        actions: 1,
        firstNew: null,
        repeatsPreviousCycle: false,
        example: { tool: "text", preview: null },
      }),
    },
  ],
});

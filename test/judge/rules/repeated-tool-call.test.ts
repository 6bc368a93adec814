import { repeatedToolCall } from "../../../src/judge/rules/repeated-tool-call.js";
import { exactly, ruleTester } from "../../support/rule-tester.js";
import { bash, SessionBuilder, type ToolSpec } from "../../support/session.js";

// Every session here has no token data (no-progress abstains).
const read = (filePath: string): ToolSpec => ({ tool: "read", input: { filePath } });
const session = () => new SessionBuilder().user();
const failing: ToolSpec = { ...bash("./deploy.sh"), status: "error" };
const testRun = bash("npm test", "1 failing\n");

/**
 * X before a manual compaction; after it, X again (n runs in all). No-new-work compares the
 * cycles of automatic compactions, so at the first automatic one this rule decides alone.
 */
const runs = (n: number, s = session()) => {
  s.step(read("a"), null).step(bash("npm test"), null).compact({ auto: false });
  for (let i = 1; i < n; i++) s.step(bash("npm test"), null);
  return s.compact();
};

/** Three runs of npm test, over a manual compaction, with only the window's say on what counts. */
const overWindow = session()
  .step(read("first"), null)
  .step(bash("npm test"), null)
  .compact({ auto: false })
  .step(bash("npm test"), null)
  .step(bash("npm test"), null)
  .compact();

/** npm test with pending or running parts over a compaction, then a read. */
const open = (status: "pending" | "running") =>
  session()
    .step(read("a"), null)
    .step({ ...bash("npm test"), status }, null)
    .compact()
    .step({ ...bash("npm test"), status }, null)
    .step({ ...bash("npm test"), status }, null)
    .step(read("b"), null)
    .compact();

/** gh pr checks (a poll) three times, each before an automatic compaction. */
const watch = (() => {
  const s = session();
  for (let i = 0; i < 3; i++) s.step(bash("gh pr checks 123", "in progress\n"), null).compact();
  return s;
})();

/** A test run before each of three compactions, with a new read before the second and third (and `between` before the second run). */
const checkRuns = (between: (s: SessionBuilder) => SessionBuilder = (s) => s) =>
  between(session().step(testRun, null).compact().step(read("a"), null))
    .step(testRun, null)
    .compact()
    .step(read("b"), null)
    .step(testRun, null)
    .compact();

ruleTester(repeatedToolCall, {
  valid: [
    {
      name: "one below the threshold allows",
      session: runs(2),
      verdict: { decision: "allow" },
      evidence: { count: 2, acrossCompaction: true },
    },
    {
      name: "at the default threshold, a threshold of 4 allows",
      session: runs(3),
      settings: { threshold: 4 },
      verdict: { decision: "allow" },
      evidence: { count: 3, threshold: 4 },
    },
    {
      name: "a chain followed by new reads does not deny: the model moved on",
      session: runs(3, session().step(read("b"), null))
        .step(read("c"), null)
        .step(read("d"), null)
        .compact(),
      evidence: { count: 3, movedOn: true },
    },
    {
      name: "a chain followed by an edit does not deny: the model moved on",
      session: session()
        .step(read("a"), null)
        .step(bash("npm test"), null)
        .compact()
        .step(bash("npm test"), null)
        .step(bash("npm test"), null)
        .step({ tool: "edit", input: { filePath: "a.ts", oldString: "x", newString: "y" } }, null)
        .compact(),
      verdict: { decision: "allow" },
      evidence: { count: 3, acrossCompaction: true, movedOn: true },
    },
    {
      name: "a window of 2 starts after the run before the compaction: 2 runs, all after it",
      session: overWindow,
      settings: { window: 2 },
      verdict: { decision: "allow" },
      evidence: { count: 2, messagesRead: 2, acrossCompaction: false },
    },
    {
      name: "repeats that lie wholly before the first compaction never deny: a poll looks the same",
      session: session()
        .step(bash("npm test"), null)
        .step(bash("npm test"), null)
        .step(bash("npm test"), null)
        .step(bash("npm test"), null)
        .compact(),
      verdict: { decision: "allow" },
      evidence: { count: 4, acrossCompaction: false },
    },
    {
      name: "repeats wholly inside the newest cycle do not deny either",
      session: session()
        .step(read("a"), null)
        .compact()
        .step(read("b"), null)
        .step(bash("ls"), null)
        .step(bash("ls"), null)
        .step(bash("ls"), null)
        .compact(),
      verdict: { decision: "allow" },
      evidence: { tool: "bash", count: 3, acrossCompaction: false },
    },
    {
      name: "new work between two runs makes the second no repeat (npm test after each new file)",
      session: (() => {
        const s = session();
        for (let i = 0; i < 3; i++) s.step({ tool: "write", input: { filePath: `p${i}.ts`, content: `${i}` } }, null).step(testRun, null);
        s.compact();
        for (let i = 3; i < 6; i++) s.step({ tool: "write", input: { filePath: `p${i}.ts`, content: `${i}` } }, null).step(testRun, null);
        return s.compact();
      })(),
      verdict: { decision: "allow", evidence: { "no-new-work": { actions: 6, firstNew: 0 } } },
      evidence: { count: 1 },
    },
    { name: "pending parts never count", session: open("pending"), evidence: { tool: "read", count: 1 } },
    { name: "running parts never count", session: open("running"), evidence: { tool: "read", count: 1 } },
    {
      name: "errored calls interleaved with succeeding new work never count",
      session: (() => {
        const s = session();
        const lint: ToolSpec = { ...bash("npm run lint"), status: "error" };
        for (let i = 0; i < 6; i++)
          s.step(lint, null)
            .step({ tool: "edit", input: { filePath: `f${i}.ts`, oldString: "a", newString: "b" } }, null)
            .compact();
        return s;
      })(),
      verdict: { decision: "allow" },
      evidence: { count: 1 },
    },
    {
      name: "the ignore setting takes calls out of every count, by bash command start",
      session: watch,
      settings: { ignore: ["gh pr checks"] },
      verdict: { decision: "allow" },
      evidence: { tool: null, count: 0, messageIDs: [] },
    },
    {
      name: "the ignore setting takes calls out of every count, by tool name",
      session: watch,
      settings: { ignore: ["bash"] },
      verdict: { decision: "allow" },
      evidence: { tool: null, count: 0 },
    },
    {
      name: "a real user message resets the count, even over a compaction",
      session: session()
        .step(read("a"), null)
        .step(bash("npm test"), null)
        .compact({ auto: false })
        .user("try again")
        .step(bash("npm test"), null)
        .step(bash("npm test"), null)
        .compact(),
      evidence: { count: 2, messagesRead: 2, acrossCompaction: false },
    },
    {
      name: "a check re-run across two compactions with an edit before a run is no stuck check",
      session: checkRuns((s) => s.step({ tool: "edit", input: { filePath: "a.ts", oldString: "x", newString: "y" } }, null)),
      evidence: { readsBetween: false },
    },
    {
      name: "a check asked three times, all after compaction k−2, with only reads between, is no stuck check yet",
      session: session()
        .step(read("x"), null)
        .compact()
        .step(testRun, null)
        .compact()
        .step(read("a"), null)
        .step(testRun, null)
        .step(read("b"), null)
        .step(testRun, null)
        .compact(),
      evidence: { tool: "bash", readsBetween: false, acrossCompaction: false },
    },
  ],
  invalid: [
    {
      name: "exactly at the threshold denies",
      session: runs(3),
      verdict: { fired: ["repeated-tool-call"] },
      evidence: { tool: "bash", count: 3, threshold: 3, acrossCompaction: true, movedOn: false },
    },
    {
      name: "a threshold of 2 denies the second run",
      session: runs(2),
      settings: { threshold: 2 },
      evidence: { tool: "bash", count: 2, threshold: 2, acrossCompaction: true },
    },
    {
      name: "only the last `window` steps count: 4 hold all three runs",
      session: overWindow,
      settings: { window: 4 },
      verdict: { fired: ["repeated-tool-call"] },
      evidence: { count: 3, messagesRead: 4, acrossCompaction: true },
    },
    {
      name: "a manual compaction between the runs counts as a compaction",
      session: session().step(bash("make"), null).compact({ auto: false }).step(bash("make"), null).step(bash("make"), null).compact(),
      verdict: {
        rule: "repeated-tool-call",
        evidence: { "no-progress": exactly({ status: "abstain", reason: "no earlier automatic compaction" }) },
      },
      evidence: { tool: "bash", count: 3, acrossCompaction: true },
    },
    {
      name: "a step with several tool parts counts each part, and names each message once",
      session: session()
        .step(read("a"), null)
        .step([bash("make"), bash("make")], null)
        .compact({ auto: false })
        .step(bash("make"), null)
        .compact(),
      verdict: { fired: ["repeated-tool-call"] },
      evidence: { count: 3, messageIDs: ["msg_0007", "msg_0016"] },
    },
    {
      name: "catches an A,B,A,B,A,B cycle (opencode#47759)",
      session: (() => {
        const s = session();
        for (let i = 0; i < 3; i++) s.step(bash("git status"), null).step(read("a.ts"), null).compact();
        return s;
      })(),
      verdict: { fired: ["repeated-tool-call", "no-new-work"] },
      evidence: { tool: "read", count: 3 },
    },
    {
      name: "counts a call that fails the same way",
      session: session()
        .step(read("a"), null)
        .step(failing, null)
        .compact({ auto: false })
        .step(failing, null)
        .step(failing, null)
        .compact(),
      verdict: { fired: ["repeated-tool-call"] },
      evidence: { tool: "bash", count: 3 },
    },
    {
      name: "a poll repeated before three compactions denies without an ignore setting",
      session: watch,
      verdict: { rule: "repeated-tool-call" },
      evidence: { tool: "bash", count: 3, acrossCompaction: true },
    },
    {
      name: "an ignored command start matches whole words only",
      session: watch,
      settings: { ignore: ["gh pr check"] },
      verdict: { decision: "deny" },
      evidence: { tool: "bash", count: 3 },
    },
    {
      name: "a check re-run across two compactions with only reads between, nothing changed",
      session: checkRuns(),
      evidence: exactly({
        tool: "bash",
        preview: "npm test",
        count: 3,
        threshold: 3,
        matchOutput: true,
        acrossCompaction: true,
        messagesRead: 5,
        messageIDs: ["msg_0003", "msg_0017", "msg_0031"],
        movedOn: false,
        readsBetween: true,
      }),
    },
  ],
});

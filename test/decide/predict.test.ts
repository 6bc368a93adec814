import { describe, expect, it } from "vitest";
import { createGuard } from "../../src/plugin/guard.js";
import { buildTimeline } from "../../src/decide/history.js";
import { describeEvidence } from "../../src/decide/explain.js";
import { predictionMargin, predictNextPrompt } from "../../src/decide/predict.js";
import { replayMessages } from "../../src/decide/replay.js";
import { DEFAULT_SETTINGS, resolveSettings, type GuardSettings } from "../../src/decide/settings.js";
import { fakeClient, newestMessages } from "../support/client.js";
import { bash, SessionBuilder, type Message } from "../support/session.js";

const LIMITS = { context: 8_000, output: 2_000 }; // usable 6,000
const ON: GuardSettings = { ...DEFAULT_SETTINGS, predict: true };

/** Raw tokens of a step or summary: prompt `input`, `output`. */
const tokens = (input: number, output: number) => ({ input, output, reasoning: 0, cache: { read: 0, write: 0 } });

/** The summary of the compaction message at `compactionIndex` (position in messages): its tokens and the part's tail_start_id. */
function shape(messages: Message[], compactionIndex: number, summaryOutput: number, tailStartID?: string): void {
  const compaction = messages[compactionIndex]!;
  if (tailStartID !== undefined) compaction.parts[0]!.tail_start_id = tailStartID;
  messages[compactionIndex + 1]!.info.tokens = tokens(300, summaryOutput);
}

/** user "run echo hi" (11 bytes: at most 11 tokens in any byte-level tokenizer), one step of `prompt` tokens, a compaction with a summary of 30. */
function firstStepOver(prompt: number): SessionBuilder {
  const session = new SessionBuilder("ses_p").user("run echo hi").step(bash("echo hi"), prompt).compact();
  shape(session.messages, 2, 30);
  return session;
}

const predictAt = (messages: Message[], index = 0, start = 0) => {
  const timeline = buildTimeline(messages);
  return predictNextPrompt(timeline, timeline.compactions[index]!, start);
};

describe("predictNextPrompt: a lower bound of the first prompt after a compaction", () => {
  it("no kept tail: system prompt and tools (first step less the user's words) + summary + the two fixed texts", () => {
    expect(predictAt(firstStepOver(7_000).messages)).toEqual({
      status: "predicted",
      firstStepTokens: 7_000,
      firstUserTokens: 11,
      baseTokens: 6_989,
      summaryTokens: 30,
      tailTokens: 0,
      // "What did we do so far?" (22 characters: 6) + the continue text (100 characters: 25).
      fixedTokens: 31,
      predictedTokens: 6_989 + 30 + 0 + 31,
      tailStartID: null,
      triggerTokens: 7_000,
    });
  });

  it("a kept tail from a step: the context's growth from that step's prompt to the end of the last step", () => {
    const session = new SessionBuilder("ses_p")
      .user("run the steps")
      .step(bash("echo 1"), tokens(2_000, 20))
      .step(bash("echo 2"), tokens(3_500, 20))
      .step(bash("echo 3"), tokens(5_000, 20))
      .step(bash("echo 4"), tokens(6_500, 20))
      .compact();
    const third = session.messages[3]!.info.id as string;
    shape(session.messages, 5, 250, third);
    expect(predictAt(session.messages)).toMatchObject({
      firstStepTokens: 2_000,
      firstUserTokens: 13, // 13 bytes
      baseTokens: 1_987,
      summaryTokens: 250,
      // 6,500 + 20 − 5,000: steps 3 and 4 without step 4's tool result (never measured).
      tailTokens: 1_520,
      predictedTokens: 1_987 + 250 + 1_520 + 31,
      tailStartID: third,
      triggerTokens: 6_520,
    });
  });

  it("a kept tail from a user message: measured from the first step after it", () => {
    const session = new SessionBuilder("ses_p")
      .user("first")
      .say("Hello.", tokens(1_000, 5))
      .user("now the real work")
      .step(bash("echo 1"), tokens(2_500, 20))
      .step(bash("echo 2"), tokens(6_100, 20))
      .compact();
    const second = session.messages[2]!.info.id as string;
    shape(session.messages, 5, 100, second);
    expect(predictAt(session.messages)).toMatchObject({
      baseTokens: 995,
      tailTokens: 6_120 - 2_500,
      predictedTokens: 995 + 100 + 3_620 + 31,
    });
  });

  it("every compaction whose tail no earlier compaction cuts through; the base stays the first step's", () => {
    const session = new SessionBuilder("ses_p")
      .user("run echo hi")
      .step(bash("echo 1"), tokens(7_000, 20))
      .compact()
      .step(bash("echo 2"), tokens(7_100, 20))
      .compact();
    shape(session.messages, 2, 30);
    shape(session.messages, 6, 40, session.messages[5]!.info.id as string);
    expect(predictAt(session.messages, 1)).toMatchObject({ baseTokens: 6_989, summaryTokens: 40, tailTokens: 20 });
    // A tail that begins before compaction 1 cannot be measured by differences.
    session.messages[6]!.parts[0]!.tail_start_id = session.messages[1]!.info.id;
    expect(predictAt(session.messages, 1)).toEqual({ status: "abstain", reason: "the kept tail spans an earlier compaction" });
  });

  it.each([
    ["the session's start out of view", (m: Message[]) => m, 1, "the session's first step is out of view"],
    ["a summary without token data", (m: Message[]) => ((m[3]!.info.tokens = tokens(300, 0)), m), 0, "no token data for the summary"],
    ["a first step without token data", (m: Message[]) => (delete m[1]!.info.tokens, m), 0, "no token data for the session's first step"],
    [
      "a first message with a file",
      (m: Message[]) => (m[0]!.parts.push({ type: "file", mime: "image/png", url: "data:," }), m),
      0,
      "the first user message carries files or parts of unknown size",
    ],
    [
      "a tail start the history does not hold",
      (m: Message[]) => ((m[2]!.parts[0]!.tail_start_id = "msg_gone"), m),
      0,
      "the kept tail's first message is not in the history",
    ],
  ])("abstains on %s", (_, change, start, reason) => {
    expect(predictAt(change(firstStepOver(7_000).messages), 0, start)).toEqual({ status: "abstain", reason });
  });

  it("takes the first message off at one token per UTF-8 byte, whatever its script (CJK is 3 bytes a character)", () => {
    const session = new SessionBuilder("ses_p").user("修复登录页面").step(bash("echo hi"), 7_000).compact();
    shape(session.messages, 2, 30);
    expect(predictAt(session.messages)).toMatchObject({ firstUserTokens: 18, baseTokens: 7_000 - 18 });
  });

  it("abstains when the model or agent answering now is not the first step's (another system prompt, tools, tokenizer)", () => {
    const session = new SessionBuilder("ses_p")
      .user("run echo hi")
      .step(bash("echo 1"), tokens(7_000, 20))
      .step(bash("echo 2"), tokens(7_100, 20))
      .compact();
    shape(session.messages, 3, 30);
    Object.assign(session.messages[1]!.info, { providerID: "anthropic", modelID: "claude-sonnet-4-5", agent: "build" });
    Object.assign(session.messages[2]!.info, { providerID: "openai", modelID: "gpt-5", agent: "build" });
    expect(predictAt(session.messages)).toEqual({
      status: "abstain",
      reason: "the model or agent answering now is not the one of the session's first step (another system prompt and tools)",
    });
    Object.assign(session.messages[2]!.info, { providerID: "anthropic", modelID: "claude-sonnet-4-5", agent: "plan" });
    expect(predictAt(session.messages)).toMatchObject({ status: "abstain" });
    Object.assign(session.messages[2]!.info, { agent: "build" });
    expect(predictAt(session.messages)).toMatchObject({ status: "predicted", baseTokens: 6_989 });
  });

  it("the margin: 200 tokens, or 5% of the prediction when that is more", () => {
    expect([predictionMargin(1_000), predictionMargin(4_000), predictionMargin(4_001), predictionMargin(20_000)]).toEqual([
      200, 200, 201, 1_000,
    ]);
  });
});

describe("cannot-make-room", () => {
  const at1 = (session: SessionBuilder, settings: GuardSettings = ON, limits: typeof LIMITS | null = LIMITS) =>
    replayMessages(session.messages, settings, { limits: limits ?? undefined })[0]!;

  it("denies at compaction 1 when the lower bound less the margin is at or over the usable context", () => {
    // 6,265 − 11 + 30 + 31 = 6,315 … and 6,316: less the margin (316) 5,999 and 6,000.
    const over = at1(firstStepOver(6_266), { ...ON, minReduction: 0 });
    expect(over).toMatchObject({ decision: "deny", rule: "cannot-make-room", severity: "warning", fired: ["cannot-make-room"] });
    expect(over.evidence["cannot-make-room"]).toMatchObject({
      predictedTokens: 6_316,
      marginTokens: 316,
      usableTokens: 6_000,
      stalled: "still-over-usable-context",
    });
    expect(at1(firstStepOver(6_265), { ...ON, minReduction: 0 })).toMatchObject({ decision: "allow", rule: null });
  });

  it("or when the cut it could make at best is under minReduction", () => {
    // Trigger 6,100 (a prompt of 5,600 and 500 of output); at least 5,650 − 283 = 5,367 after: a 12.02% cut.
    const session = new SessionBuilder("ses_p").user("run echo hi").step(bash("echo hi"), tokens(5_600, 500)).compact();
    shape(session.messages, 2, 30);
    const row = at1(session, { ...ON, minReduction: 0.121 });
    expect(row).toMatchObject({ decision: "deny", rule: "cannot-make-room" });
    expect(row.evidence["cannot-make-room"]).toMatchObject({
      predictedTokens: 5_650,
      marginTokens: 283,
      stalled: "reduction-below-minimum",
    });
    expect(at1(session, { ...ON, minReduction: 0.12 })).toMatchObject({ decision: "allow" });
  });

  it("says why in the user's terms", () => {
    expect(describeEvidence(at1(firstStepOver(7_000)))).toBe(
      "compaction cannot get this session under the usable context: the system prompt and tools alone are ~6,989 tokens, " +
        "the summary 30 tokens, the kept tail nothing, against a usable context of 6,000 tokens, so every step would compact again",
    );
  });

  it.each([
    ["prediction is off", DEFAULT_SETTINGS, LIMITS, "prediction is off (predict: false)"],
    ["the limits are unknown", ON, null, "the model's limits are unknown"],
  ])("abstains when %s", (_, settings, limits, reason) => {
    const row = at1(firstStepOver(7_000), settings, limits);
    expect(row.evidence["cannot-make-room"]).toEqual({ status: "abstain", reason });
    expect(row.rule).not.toBe("cannot-make-room");
  });

  it("leaves a finished answer over the line to turn-finished (housekeeping, no loop alarm), and to the subagent's continue turn", () => {
    const session = new SessionBuilder("ses_p").user("say hi").say("Hi.", tokens(7_000, 20)).compact();
    shape(session.messages, 2, 30);
    const reason = "the step before the compaction ended the turn (turn-finished decides)";
    const row = at1(session);
    expect([row.decision, row.rule, row.severity]).toEqual(["deny", "turn-finished", "info"]);
    expect(row.evidence["cannot-make-room"]).toEqual({ status: "abstain", reason });
    const inSubagent = replayMessages(session.messages, ON, { limits: LIMITS, subagent: true })[0]!;
    expect([inSubagent.decision, inSubagent.rule]).toEqual(["allow", null]);
    expect(inSubagent.evidence["cannot-make-room"]).toEqual({ status: "abstain", reason });
  });

  it("never fires after the first compaction: from compaction 2 on, no-progress measures", () => {
    // Compaction 1 made room (2,000 → a prompt of 2,100 after it); compaction 2's numbers say no room.
    const session = new SessionBuilder("ses_p")
      .user("run echo hi")
      .step(bash("echo 1"), tokens(2_000, 20))
      .step(bash("echo 2"), tokens(6_100, 20))
      .compact()
      .step(bash("echo 3"), tokens(2_100, 20))
      .step(bash("echo 4"), tokens(9_000, 20))
      .compact();
    shape(session.messages, 3, 30);
    shape(session.messages, 8, 7_000);
    const rows = replayMessages(session.messages, ON, { limits: LIMITS });
    expect(rows.map((r) => r.decision)).toEqual(["allow", "allow"]);
    expect(rows[1]!.evidence["cannot-make-room"]).toEqual({
      status: "abstain",
      reason: "not the session's first compaction (from the second on, no-progress measures)",
    });
  });

  it("the fixed point: denied at compaction 1 with prediction on, at 2 by no-progress with it off", () => {
    const session = firstStepOver(7_000).step(bash("echo hi"), 7_000).compact();
    shape(session.messages, 6, 30);
    expect(replayMessages(session.messages, ON, { limits: LIMITS }).map((r) => [r.decision, r.rule])).toEqual([
      ["deny", "cannot-make-room"],
      ["deny", "no-progress"],
    ]);
    expect(replayMessages(session.messages, DEFAULT_SETTINGS, { limits: LIMITS }).map((r) => [r.decision, r.rule])).toEqual([
      ["allow", null],
      ["deny", "no-progress"],
    ]);
  });
});

describe("the predict setting", () => {
  it("is off by default; the option and OPENCODE_COMPACTION_GUARD_PREDICT turn it on, the variable over the option", () => {
    expect(resolveSettings(undefined, {}).settings.predict).toBe(false);
    expect(resolveSettings({ predict: true }, {}).settings.predict).toBe(true);
    expect(resolveSettings({ predict: true }, { OPENCODE_COMPACTION_GUARD_PREDICT: "0" })).toMatchObject({
      settings: { predict: false },
      sources: { predict: "env" },
    });
    expect(resolveSettings(undefined, { OPENCODE_COMPACTION_GUARD_PREDICT: "yes" }).settings.predict).toBe(true);
  });

  it("an invalid value is reported and ignored", () => {
    expect(resolveSettings({ predict: "sometimes" }, { OPENCODE_COMPACTION_GUARD_PREDICT: "maybe" }).problems).toEqual([
      'plugin option predict: predict must be true or false, got "sometimes"; using false',
      'OPENCODE_COMPACTION_GUARD_PREDICT: predict must be true or false (or 1/0, yes/no, on/off), got "maybe"; using false',
    ]);
  });
});

describe("in the hook (the newest 200 messages only)", () => {
  /** Runs the hook on `messages` (ending with compaction 1's summary), prediction on; returns the output and the log lines. */
  async function hook(messages: Message[]) {
    const fake = fakeClient(newestMessages(messages));
    const hooks = createGuard({ client: fake.client as never }, { predict: true }, { env: {} });
    const compaction = [...messages].reverse().find((m) => m.parts.some((p) => p.type === "compaction"))!;
    const output = { enabled: true };
    const input = { sessionID: "ses_p", agent: "build", model: { id: "m", providerID: "p", limit: LIMITS }, message: compaction.info };
    await hooks["experimental.compaction.autocontinue"]!(
      { ...input, provider: { source: "config", info: {}, options: {} }, overflow: false } as never,
      output,
    );
    return { output, logs: fake.logs };
  }

  it("a short session: its first step is in view, the fixed point is denied at compaction 1", async () => {
    const { output, logs } = await hook(firstStepOver(7_000).messages.slice(0, 4));
    expect(output.enabled).toBe(false);
    expect(logs[0]!.message).toContain("cannot-make-room: compaction cannot get this session under the usable context");
  });

  it("a longer session: the newest 200 messages begin mid-session, so their first step is no base; it abstains", async () => {
    // 100 turns of a question and an answer (5,900 tokens each, under the line), then one step over it.
    const session = new SessionBuilder("ses_p");
    for (let i = 0; i < 100; i++) session.user(`question ${i}`).say(`answer ${i}`, tokens(5_900, 10));
    session.user("run echo hi").step(bash("echo hi"), tokens(6_100, 20)).compact();
    shape(session.messages, 202, 30);
    const messages = session.messages.slice(0, 204);
    // Read as a whole session the 200 newest would start at a question answered with 5,900: a false cut under 10%.
    const sliced = replayMessages(messages.slice(-200), ON, { limits: LIMITS });
    expect(sliced[0]).toMatchObject({ decision: "deny", rule: "cannot-make-room" });
    const { output, logs } = await hook(messages);
    expect(output.enabled).toBe(true);
    expect(logs[0]).toMatchObject({ level: "info", extra: { decision: "allow", rule: null } });
  });
});

import { describe, expect, it } from "vitest";
import { createGuard } from "../../src/plugin/opencode-v1/guard.js";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { predictionMargin, predictNextPrompt, tokensAtLeast } from "../../src/judge/predict.js";
import { replayMessages } from "../../src/core.js";
import { OPENCODE_FACTS } from "../../src/hosts/opencode/facts.js";
import { resolveSettings } from "../../src/config/settings.js";
import { fakeClient, newestMessages } from "../support/client.js";
import { firstStepOver, LIMITS, ON, shape, tokens } from "../support/prediction.js";
import { bash, SessionBuilder, type Message } from "../support/session.js";

const predictAt = (messages: Message[], index = 0, start = 0) => {
  const timeline = buildTimeline(messages);
  return predictNextPrompt(timeline, timeline.compactions[index]!, OPENCODE_FACTS, start);
};

describe("predictNextPrompt: a lower bound of the first prompt after a compaction", () => {
  it("no kept tail: system prompt and tools (first step less the user's words) + summary + the two fixed texts", () => {
    expect(predictAt(firstStepOver(7_000).messages)).toEqual({
      status: "predicted",
      firstStepTokens: 7_000,
      firstUserTokens: 11,
      smallestStepTokens: 7_000,
      baseTokens: 6_989,
      summaryTokens: 30,
      tailTokens: 0,
      // "What did we do so far?" (22 characters: 4) + the continue text (100 characters: 20), at 5 a token.
      fixedTokens: 24,
      predictedTokens: 6_989 + 30 + 0 + 24,
      tailStartID: null,
      triggerTokens: 7_000,
    });
  });

  it("counts the host's own fixed texts: none sent, none counted; a 10-character text is 2 tokens", () => {
    const timeline = buildTimeline(firstStepOver(7_000).messages);
    const at = (afterCompaction: readonly string[]) =>
      predictNextPrompt(timeline, timeline.compactions[0]!, { source: "a host", afterCompaction });
    expect(at([])).toMatchObject({ fixedTokens: 0, predictedTokens: 6_989 + 30 });
    expect(at(["0123456789", "abcd"])).toMatchObject({ fixedTokens: 2, predictedTokens: 6_989 + 30 + 2 });
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
      // 6,500 + 20 − 5,000: steps 3 and 4; and step 4's tool result ("ok\n"), never measured: one chunk.
      tailTokens: 1_520 + 1,
      predictedTokens: 1_987 + 250 + 1_521 + 24,
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
      tailTokens: 6_120 - 2_500 + 1, // and the last step's "ok\n"
      predictedTokens: 995 + 100 + 3_621 + 24,
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
    expect(predictAt(session.messages, 1)).toMatchObject({ baseTokens: 6_989, summaryTokens: 40, tailTokens: 20 + 1 });
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

  it("never takes more off for the system prompt and tools than the smallest step's whole prompt (every step carries them)", () => {
    // A first step of 6,500, then a step of 4,200: the first step's figure cannot be the base.
    const session = new SessionBuilder("ses_p")
      .user("run echo hi")
      .step(bash("echo 1"), tokens(6_500, 20))
      .step(bash("echo 2"), tokens(4_200, 2_000))
      .compact();
    shape(session.messages, 3, 30);
    expect(predictAt(session.messages)).toMatchObject({ firstStepTokens: 6_500, smallestStepTokens: 4_200, baseTokens: 4_200 });
  });

  it("the margin: 100 tokens, or 1% of the prediction when that is more", () => {
    expect([predictionMargin(1_000), predictionMargin(10_000), predictionMargin(10_001), predictionMargin(200_000)]).toEqual([
      100, 100, 101, 2_000,
    ]);
  });
});

describe("tokensAtLeast: one token per run of non-whitespace", () => {
  it.each<[string, number]>([
    ["", 0],
    ["ok\n", 1],
    ["  two words\n\tthree\u00a0four\u3000five ", 5],
    ["进度报告：第一阶段完成", 1],
    ['{"a": [1, 2]}', 3],
  ])("%j: %i", (text, count) => {
    expect(tokensAtLeast(text)).toBe(count);
  });
});

describe("the predict setting", () => {
  it("is on by default; the option and OPENCODE_COMPACTION_GUARD_PREDICT turn it off, the variable over the option", () => {
    expect(resolveSettings(undefined, {}).settings.predict).toBe(true);
    expect(resolveSettings({ predict: false }, {}).settings.predict).toBe(false);
    expect(resolveSettings({ predict: false }, { OPENCODE_COMPACTION_GUARD_PREDICT: "1" })).toMatchObject({
      settings: { predict: true },
      sources: { predict: "env" },
    });
    expect(resolveSettings(undefined, { OPENCODE_COMPACTION_GUARD_PREDICT: "no" }).settings.predict).toBe(false);
  });

  it("an invalid value is reported and ignored", () => {
    expect(resolveSettings({ predict: "sometimes" }, { OPENCODE_COMPACTION_GUARD_PREDICT: "maybe" }).problems).toEqual([
      'plugin option predict: predict must be true or false, got "sometimes"; using true',
      'OPENCODE_COMPACTION_GUARD_PREDICT: predict must be true or false (or 1/0, yes/no, on/off), got "maybe"; using true',
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

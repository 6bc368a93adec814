import { expect } from "vitest";
import { cannotMakeRoom } from "../../../src/judge/rules/cannot-make-room.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import { firstStepOver, LIMITS, OFF, ON, shape, tokens } from "../../support/prediction.js";
import { exactly, ruleTester } from "../../support/rule-tester.js";
import { bash, SessionBuilder } from "../../support/session.js";

const TURN_FINISHED = "the step before the compaction ended the turn (turn-finished decides)";
const NOT_FIRST = "not the session's first compaction, nor the first after a message of the user's (no-progress measures)";
/** A model with an input limit: opencode's usable line is input − compaction.reserved. */
const INPUT_LIMITED = { context: 10_000, input: 8_000, output: 2_000 };

/** Trigger 6,100 (a prompt of 5,600 and 500 of output); at least 5,643 − 100 = 5,543 after: a 9.13% cut. */
const cutBy9 = (() => {
  const session = new SessionBuilder("ses_p").user("run echo hi").step(bash("echo hi"), tokens(5_600, 500)).compact();
  shape(session.messages, 2, 30);
  return session;
})();

/** A finished answer over the line. */
const answered = (() => {
  const session = new SessionBuilder("ses_p").user("say hi").say("Hi.", tokens(7_000, 20)).compact();
  shape(session.messages, 2, 30);
  return session;
})();

/** Compaction 1 made room (2,000 → a prompt of 2,100 after it); compaction 2's numbers say no room. */
const roomThenNone = (() => {
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
  return session;
})();

/**
 * The base (2,000 − 11) and summary are far under the usable 6,000; the last step's output,
 * 4,200 words that no step measured, is kept in the tail and fills the rest.
 */
const bigTail = (() => {
  const session = new SessionBuilder("ses_p").user("run echo hi").step(bash("echo hi"), tokens(2_000, 20));
  session.step(bash("gh api repos/o/r/issues", "ok ".repeat(4_200)), tokens(2_100, 20)).compact();
  shape(session.messages, 3, 30, session.messages[2]!.info.id as string);
  return session;
})();

/** Compaction 1 is denied (the first step alone is over the usable 6,000); the user replies, the next step is over the line again, compaction 2 follows. */
const replied = (() => {
  const session = firstStepOver(7_000).user("please go on").step(bash("echo again"), 7_050).compact();
  shape(session.messages, 7, 30);
  return session;
})();

/** The fixed point: the first step over the line, and the step after compaction 1 as well. */
const fixedPoint = (() => {
  const session = firstStepOver(7_000).step(bash("echo hi"), 7_000).compact();
  shape(session.messages, 6, 30);
  return session;
})();

/** A manual compaction first, then the session's first automatic one, over the line. */
const manualFirst = (() => {
  const session = new SessionBuilder("ses_p").user("run echo hi").step(bash("echo hi"), 7_000).compact({ auto: false });
  session.step(bash("echo again"), 7_000).compact();
  shape(session.messages, 2, 30);
  shape(session.messages, 5, 30);
  return session;
})();

/** The first step has no token data. */
const unmeasured = (() => {
  const session = new SessionBuilder("ses_p").user("run echo hi").step(bash("echo hi"), null).compact();
  shape(session.messages, 2, 30);
  return session;
})();

/** What a row denied by a prediction still over the usable context must show. */
const deniedOver = {
  verdict: { decision: "deny", rule: "cannot-make-room" },
  evidence: { status: "predicted", stalled: "still-over-usable-context" },
} as const;

ruleTester(
  cannotMakeRoom,
  {
    valid: [
      {
        name: "one token under: the lower bound less the margin is under the usable context",
        session: firstStepOver(6_056),
        at: 1,
        settings: { minReduction: 0 },
        verdict: { decision: "allow", rule: null },
        evidence: { predictedTokens: 6_099, marginTokens: 100, usableTokens: 6_000, stalled: null },
      },
      {
        name: "a cut at best just over minReduction allows",
        session: cutBy9,
        at: 1,
        settings: { minReduction: 0.091 },
        verdict: { decision: "allow" },
        evidence: { predictedTokens: 5_643, stalled: null },
      },
      {
        name: "abstains when prediction is off",
        session: firstStepOver(7_000),
        at: 1,
        settings: OFF,
        verdict: { decision: "allow", rule: null },
        evidence: exactly({ status: "abstain", reason: "prediction is off (predict: false)" }),
      },
      {
        name: "abstains when the limits are unknown",
        session: firstStepOver(7_000),
        at: 1,
        limits: null,
        verdict: { decision: "allow", rule: null },
        evidence: exactly({ status: "abstain", reason: "the model's limits are unknown" }),
      },
      {
        name: "leaves a finished answer over the line to turn-finished (housekeeping, no loop alarm)",
        session: answered,
        at: 1,
        verdict: { decision: "deny", rule: "turn-finished", severity: "info" },
        evidence: exactly({ status: "abstain", reason: TURN_FINISHED }),
      },
      {
        name: "leaves a finished answer over the line in a subagent's session to its continue turn",
        session: answered,
        at: 1,
        subagent: true,
        verdict: { decision: "allow", rule: null },
        evidence: exactly({ status: "abstain", reason: TURN_FINISHED }),
      },
      {
        name: "compaction 1 that made room allows",
        session: roomThenNone,
        decisionPoints: 2,
        at: 1,
        verdict: { decision: "allow" },
        evidence: { status: "predicted", stalled: null },
      },
      {
        name: "never fires after the first compaction: from compaction 2 on, no-progress measures",
        session: roomThenNone,
        decisionPoints: 2,
        at: 2,
        verdict: { decision: "allow" },
        evidence: exactly({ status: "abstain", reason: NOT_FIRST }),
      },
      {
        name: "the fixed point's compaction 2 is no-progress's",
        session: fixedPoint,
        decisionPoints: 2,
        at: 2,
        verdict: { decision: "deny", rule: "no-progress" },
        evidence: exactly({ status: "abstain", reason: NOT_FIRST }),
      },
      {
        name: "with prediction off the fixed point costs one continue turn",
        session: fixedPoint,
        decisionPoints: 2,
        at: 1,
        settings: OFF,
        verdict: { decision: "allow", rule: null },
        evidence: exactly({ status: "abstain", reason: "prediction is off (predict: false)" }),
      },
      {
        name: "with prediction off no-progress stops the fixed point at compaction 2",
        session: fixedPoint,
        decisionPoints: 2,
        at: 2,
        settings: OFF,
        verdict: { decision: "deny", rule: "no-progress" },
        evidence: exactly({ status: "abstain", reason: "prediction is off (predict: false)" }),
      },
      {
        name: "abstains when the history may not begin with the session's first message",
        session: firstStepOver(7_000),
        wholeSession: false,
        evidence: exactly({ status: "abstain", reason: "the session's first message is not known to be in view" }),
      },
      {
        name: "after a manual compaction the first automatic one is not the session's first",
        session: manualFirst,
        decisionPoints: 1,
        evidence: exactly({ status: "abstain", reason: NOT_FIRST }),
      },
      {
        name: "abstains without token data for the session's first step",
        session: unmeasured,
        evidence: exactly({ status: "abstain", reason: "no token data for the session's first step" }),
      },
      {
        name: "a smaller compaction.reserved raises the usable line of a model with an input limit over the bound",
        session: firstStepOver(7_000),
        limits: INPUT_LIMITED,
        reserved: 500,
        settings: { minReduction: 0 },
        evidence: {
          predictedTokens: 7_043,
          marginTokens: 100,
          usableTokens: 7_500,
          reduction: expect.closeTo(57 / 7_000, 9),
          stalled: null,
        },
      },
    ],
    invalid: [
      {
        name: "denies at compaction 1 when the lower bound less the margin is at the usable context",
        // 6,057 − 11 + 30 + 24 = 6,100: less the margin (100) 6,000.
        session: firstStepOver(6_057),
        at: 1,
        settings: { minReduction: 0 },
        verdict: { decision: "deny", rule: "cannot-make-room", severity: "warning", fired: ["cannot-make-room"] },
        evidence: { predictedTokens: 6_100, marginTokens: 100, usableTokens: 6_000, stalled: "still-over-usable-context" },
      },
      {
        name: "or when the cut it could make at best is under minReduction",
        session: cutBy9,
        at: 1,
        settings: { minReduction: 0.092 },
        verdict: { decision: "deny", rule: "cannot-make-room" },
        evidence: { predictedTokens: 5_643, marginTokens: 100, stalled: "reduction-below-minimum" },
      },
      {
        name: "says why in the user's terms",
        session: firstStepOver(7_000),
        at: 1,
        verdict: { rule: "cannot-make-room" },
        evidence: { stalled: "still-over-usable-context" },
        explain:
          "compaction cannot get this session under the usable context: the system prompt and tools alone are ~6,989 tokens, " +
          "the summary 30 tokens, no recent messages kept, against a usable context of 6,000 tokens, so every step would compact again",
      },
      {
        name: "a fixed point made by the kept tail's last tool result is denied at compaction 1: the result counts at one token a word",
        session: bigTail,
        at: 1,
        verdict: { decision: "deny", rule: "cannot-make-room" },
        evidence: { tailTokens: 20 + 4_200, stalled: "still-over-usable-context" },
      },
      {
        name: "a fixed point denied at compaction 1",
        session: replied,
        decisionPoints: 2,
        at: 1,
        ...deniedOver,
      },
      {
        name: "the first compaction after the user's reply to a denial is predicted again: the same fixed point is denied at once",
        session: replied,
        decisionPoints: 2,
        at: 2,
        ...deniedOver,
      },
      {
        name: "the fixed point: denied at compaction 1 with prediction on",
        session: fixedPoint,
        decisionPoints: 2,
        at: 1,
        ...deniedOver,
      },
      {
        name: "the fixed point: denied at compaction 1 under the default settings",
        session: fixedPoint,
        decisionPoints: 2,
        at: 1,
        settings: DEFAULT_SETTINGS,
        ...deniedOver,
      },
      {
        name: "compaction.reserved moves the usable line of a model with an input limit under the bound",
        session: firstStepOver(7_000),
        limits: INPUT_LIMITED,
        reserved: 1_500,
        evidence: { predictedTokens: 7_043, marginTokens: 100, usableTokens: 6_500, stalled: "still-over-usable-context" },
      },
    ],
  },
  { settings: ON, limits: LIMITS },
);

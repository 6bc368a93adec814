import { describe, expect, it } from "vitest";
import { describeEvidence } from "../../../src/judge/explain.js";
import { replayMessages } from "../../../src/core.js";
import { DEFAULT_SETTINGS, type GuardSettings } from "../../../src/config/settings.js";
import { firstStepOver, LIMITS, OFF, ON, shape, tokens } from "../../support/prediction.js";
import { bash, SessionBuilder } from "../../support/session.js";

describe("cannot-make-room", () => {
  const at1 = (session: SessionBuilder, settings: GuardSettings = ON, limits: typeof LIMITS | null = LIMITS) =>
    replayMessages(session.messages, settings, { limits: limits ?? undefined })[0]!;

  it("denies at compaction 1 when the lower bound less the margin is at or over the usable context", () => {
    // 6,056 − 11 + 30 + 24 = 6,099 … and 6,100: less the margin (100) 5,999 and 6,000.
    const over = at1(firstStepOver(6_057), { ...ON, minReduction: 0 });
    expect(over).toMatchObject({ decision: "deny", rule: "cannot-make-room", severity: "warning", fired: ["cannot-make-room"] });
    expect(over.evidence["cannot-make-room"]).toMatchObject({
      predictedTokens: 6_100,
      marginTokens: 100,
      usableTokens: 6_000,
      stalled: "still-over-usable-context",
    });
    expect(at1(firstStepOver(6_056), { ...ON, minReduction: 0 })).toMatchObject({ decision: "allow", rule: null });
  });

  it("or when the cut it could make at best is under minReduction", () => {
    // Trigger 6,100 (a prompt of 5,600 and 500 of output); at least 5,643 − 100 = 5,543 after: a 9.13% cut.
    const session = new SessionBuilder("ses_p").user("run echo hi").step(bash("echo hi"), tokens(5_600, 500)).compact();
    shape(session.messages, 2, 30);
    const row = at1(session, { ...ON, minReduction: 0.092 });
    expect(row).toMatchObject({ decision: "deny", rule: "cannot-make-room" });
    expect(row.evidence["cannot-make-room"]).toMatchObject({
      predictedTokens: 5_643,
      marginTokens: 100,
      stalled: "reduction-below-minimum",
    });
    expect(at1(session, { ...ON, minReduction: 0.091 })).toMatchObject({ decision: "allow" });
  });

  it("says why in the user's terms", () => {
    expect(describeEvidence(at1(firstStepOver(7_000)))).toBe(
      "compaction cannot get this session under the usable context: the system prompt and tools alone are ~6,989 tokens, " +
        "the summary 30 tokens, no recent messages kept, against a usable context of 6,000 tokens, so every step would compact again",
    );
  });

  it.each([
    ["prediction is off", OFF, LIMITS, "prediction is off (predict: false)"],
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
      reason: "not the session's first compaction, nor the first after a message of the user's (no-progress measures)",
    });
  });

  it("a fixed point made by the kept tail's last tool result is denied at compaction 1: the result counts at one token a word", () => {
    // The base (2,000 − 11) and summary are far under the usable 6,000; the last step's
    // output, 4,200 words that no step measured, is kept in the tail and fills the rest.
    const big = "ok ".repeat(4_200);
    const session = new SessionBuilder("ses_p").user("run echo hi").step(bash("echo hi"), tokens(2_000, 20));
    session.step(bash("gh api repos/o/r/issues", big), tokens(2_100, 20)).compact();
    shape(session.messages, 3, 30, session.messages[2]!.info.id as string);
    const row = replayMessages(session.messages, ON, { limits: LIMITS })[0]!;
    expect([row.decision, row.rule]).toEqual(["deny", "cannot-make-room"]);
    expect(row.evidence["cannot-make-room"]).toMatchObject({ tailTokens: 20 + 4_200, stalled: "still-over-usable-context" });
  });

  it("the first compaction after the user's reply to a denial is predicted again: the same fixed point is denied at once", () => {
    // Compaction 1 is denied (the first step alone is over the usable 6,000); the user replies,
    // the next step is over the line again, compaction 2 follows.
    const session = firstStepOver(7_000).user("please go on").step(bash("echo again"), 7_050).compact();
    shape(session.messages, 7, 30);
    const rows = replayMessages(session.messages, ON, { limits: LIMITS });
    expect(rows.map((r) => [r.decision, r.rule])).toEqual([
      ["deny", "cannot-make-room"],
      ["deny", "cannot-make-room"],
    ]);
    expect(rows[1]!.evidence["cannot-make-room"]).toMatchObject({ status: "predicted", stalled: "still-over-usable-context" });
  });

  it("the fixed point: denied at compaction 1 with prediction on (the default), at 2 by no-progress with it off", () => {
    const session = firstStepOver(7_000).step(bash("echo hi"), 7_000).compact();
    shape(session.messages, 6, 30);
    expect(replayMessages(session.messages, ON, { limits: LIMITS }).map((r) => [r.decision, r.rule])).toEqual([
      ["deny", "cannot-make-room"],
      ["deny", "no-progress"],
    ]);
    expect(replayMessages(session.messages, DEFAULT_SETTINGS, { limits: LIMITS })[0]!.rule).toBe("cannot-make-room");
    expect(replayMessages(session.messages, OFF, { limits: LIMITS }).map((r) => [r.decision, r.rule])).toEqual([
      ["allow", null],
      ["deny", "no-progress"],
    ]);
  });
});

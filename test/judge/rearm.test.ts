import { describe, expect, it } from "vitest";
import { replayMessages } from "../../src/core.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { bash, SessionBuilder } from "../support/session.js";

const LIMITS = { context: 8_000, output: 2_000 }; // usable 6,000
const SETTINGS = { ...DEFAULT_SETTINGS, predict: false };

/** The guard's stop note after a compaction, as the V1 plugin writes it (an ignored text part). */
const note = (sessionID: string, compactionMessageID: string) => ({
  info: { id: "msg_note", sessionID, role: "user" },
  parts: [
    {
      id: "prt_note",
      type: "text",
      text: "Compaction loop stopped by compaction-guard after compaction 2.",
      ignored: true,
      metadata: { compaction_guard: { note: "loop-stopped", rule: "no-progress", compactionMessageID } },
    },
  ],
});
/** A message no person wrote that makes the session go on (a background task's result). */
const backgroundResult = (sessionID: string) => ({
  info: { id: "msg_bg", sessionID, role: "user" },
  parts: [{ id: "prt_bg", type: "text", text: "Background task finished: build ok.", synthetic: true }],
});

/**
 * The fixed point stopped at compaction 2 (no continue turn), the guard's note, then the
 * session goes on by itself: a first step whose prompt is `firstPrompt` tokens, then the same
 * call at 7,020 twice, and compaction 3.
 */
function afterStop(firstPrompt: number, withNote = true) {
  const s = new SessionBuilder("ses_r").user("run echo hi");
  s.step(bash("echo hi")).step(bash("echo hi")).compact().step(bash("echo hi")).step(bash("echo hi")).compact({ continueTurn: false });
  const compaction2 = s.messages.at(-2)!.info.parentID as string;
  if (withNote) s.messages.push(note("ses_r", compaction2) as never);
  s.messages.push(backgroundResult("ses_r") as never);
  s.step(bash("echo hi"), firstPrompt).step(bash("echo hi")).step(bash("echo hi")).compact();
  return replayMessages(s.messages, SETTINGS, { limits: LIMITS });
}

describe("release without lock-out: after a stop, a step under the usable context re-arms the guard", () => {
  it("stops the fixed point at compaction 2, as before", () => {
    const rows = afterStop(7_020);
    expect(rows.map((r) => [r.compaction.index, r.decision, r.rule])).toEqual([
      [1, "allow", null],
      [2, "deny", "no-progress"],
      [3, "deny", "no-progress"],
    ]);
  });

  it("a step after the stop that fits under the usable line: compaction 3 is judged afresh (no repeat, no stall from before the stop)", () => {
    const rows = afterStop(3_000);
    expect(rows[2]).toMatchObject({ decision: "allow", rule: null });
    expect(rows[2]!.evidence["no-progress"]).toEqual({
      status: "abstain",
      reason: "the guard stopped here and a later step fit under the usable context",
    });
    expect(rows[2]!.evidence["no-new-work"]).toMatchObject({ status: "abstain" });
  });

  it("without the guard's note (not its stop) or with the step still over the line, nothing is released", () => {
    expect(afterStop(3_000, false)[2]).toMatchObject({ decision: "deny" });
    expect(afterStop(6_000)[2]).toMatchObject({ decision: "deny" });
  });
});

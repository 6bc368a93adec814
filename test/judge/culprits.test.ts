import { describe, expect, it } from "vitest";
import { replayMessages } from "../../src/core.js";
import { keptCulprits } from "../../src/judge/culprits.js";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { denialToast, stopRecord } from "../../src/guard/notices.js";
import { LIMITS, ON, shape, tokens } from "../support/prediction.js";
import { bash, SessionBuilder } from "../support/session.js";
import { OPENCODE_WORDS } from "../../src/hosts/opencode/words.js";

/** A session whose first compaction keeps a tail from the step at message `tailFrom`: returns its messages. */
function session(steps: Array<[command: string, output: string]>, tailFrom: number): SessionBuilder {
  const s = new SessionBuilder("ses_c").user("run echo hi").step(bash("echo hi"), tokens(2_000, 20));
  for (const [command, output] of steps) s.step(bash(command, output), tokens(2_100, 20));
  s.compact();
  const compactionAt = s.messages.findIndex((m) => (m.parts[0] as { type?: string } | undefined)?.type === "compaction");
  shape(s.messages, compactionAt, 30, s.messages[tailFrom]!.info.id as string);
  return s;
}

const timelineOf = (s: SessionBuilder) => {
  const timeline = buildTimeline(s.messages);
  return { timeline, compaction: timeline.compactions[0]! };
};

describe("keptCulprits: the largest tool calls a compaction keeps", () => {
  it("sizes each kept call at 4 characters a token of input and output, largest first, at most 3, the same call summed", () => {
    const s = session(
      [
        ["cat small.txt", "x".repeat(400)],
        ["seq 1 3000", "n".repeat(8_000)],
        ["ls", "a".repeat(40)],
        ["seq 1 3000", "n".repeat(8_000)],
        ["cat big.txt", "b".repeat(2_000)],
      ],
      2, // the tail starts at `cat small.txt`'s step (message 2)
    );
    const { timeline, compaction } = timelineOf(s);
    const kept = keptCulprits(timeline, compaction, { residualTokens: 7_000, usableTokens: 6_000 });
    // {"command":"seq 1 3000","description":"run"} is 44 characters: (44 + 8,000) / 4 = 2,011 a run.
    expect(kept.items).toEqual([
      { tool: "bash", preview: "seq 1 3000", runs: 2, tokens: 2 * 2_011 },
      { tool: "bash", preview: "cat big.txt", runs: 1, tokens: Math.ceil((45 + 2_000) / 4) },
      { tool: "bash", preview: "cat small.txt", runs: 1, tokens: Math.ceil((47 + 400) / 4) },
    ]);
    expect(kept.keptTokens).toBe(4_022 + 512 + 112 + Math.ceil((36 + 40) / 4));
    // One run of the largest, 2,011 tokens, is over a quarter of the usable 6,000.
    expect(kept.remedy).toBe("narrow-output");
  });

  it("the steps before the tail are not kept; no tail keeps nothing, and then only a larger model helps", () => {
    const s = session(
      [
        ["seq 1 3000", "n".repeat(8_000)],
        ["ls", "a".repeat(40)],
      ],
      3, // only the `ls` step (message 3) is kept
    );
    const { timeline, compaction } = timelineOf(s);
    expect(keptCulprits(timeline, compaction, { residualTokens: 7_000, usableTokens: 6_000 }).items).toEqual([
      { tool: "bash", preview: "ls", runs: 1, tokens: Math.ceil((36 + 40) / 4) },
    ]);
    const none = { ...compaction, tailStartID: undefined };
    expect(keptCulprits(timeline, none, { residualTokens: 7_000, usableTokens: 6_000 })).toEqual({
      items: [],
      keptTokens: 0,
      remedy: "larger-model",
    });
    // A tail that begins before the first position in view is not known.
    expect(keptCulprits(timeline, compaction, { residualTokens: 7_000, usableTokens: 6_000 }, 4).items).toEqual([]);
  });

  it("keep-less when the kept calls together are a quarter of what is left and none alone a quarter of the usable context", () => {
    const steps: Array<[string, string]> = [1, 2, 3, 4].map((n) => [`cat part${n}.txt`, "p".repeat(2_000)]);
    const { timeline, compaction } = timelineOf(session(steps, 2));
    const kept = keptCulprits(timeline, compaction, { residualTokens: 8_000, usableTokens: 14_000 });
    // {"command":"cat part1.txt","description":"run"}: 47 characters; 4 × 512 = 2,048, a quarter of 8,000 or more.
    expect(kept.keptTokens).toBe(4 * Math.ceil((47 + 2_000) / 4));
    expect(kept.remedy).toBe("keep-less");
    expect(keptCulprits(timeline, compaction, { residualTokens: 8_200, usableTokens: 14_000 }).remedy).toBe("larger-model");
  });

  it("never shows an output or a secret of the input", () => {
    const s = session([["curl -H 'Authorization: Bearer sk-live-abcdef1234567890' https://x.test", "SECRET-OUTPUT ".repeat(900)]], 2);
    expect(timelineOf(s).timeline.compactions[0]!.tailStartID).toBe(s.messages[2]!.info.id);
    const { timeline, compaction } = timelineOf(s);
    const text = JSON.stringify(keptCulprits(timeline, compaction, { residualTokens: 7_000, usableTokens: 6_000 }));
    expect(text).not.toContain("SECRET-OUTPUT");
    expect(text).not.toContain("sk-live");
  });
});

describe("a stop that cannot make room names the culprit", () => {
  // The base (2,000 − 11) and summary are far under the usable 6,000; the last step's output
  // (4,200 words, 12,600 characters) is kept in the tail and fills the rest.
  const s = new SessionBuilder("ses_p").user("run echo hi").step(bash("echo hi"), tokens(2_000, 20));
  s.step(bash("gh api repos/o/r/issues", "ok ".repeat(4_200)), tokens(2_100, 20)).compact();
  shape(s.messages, 3, 30, s.messages[2]!.info.id as string);
  const verdict = replayMessages(s.messages, ON, { limits: LIMITS })[0]!;

  it("in the evidence, the note and the toast: the item, its tokens, the sizes and one remedy", () => {
    expect([verdict.decision, verdict.rule]).toEqual(["deny", "cannot-make-room"]);
    const tokensOfCall = Math.ceil((JSON.stringify({ command: "gh api repos/o/r/issues", description: "run" }).length + 12_600) / 4);
    expect(verdict.evidence["cannot-make-room"]).toMatchObject({
      culprits: { items: [{ tool: "bash", preview: "gh api repos/o/r/issues", runs: 1, tokens: tokensOfCall }], remedy: "narrow-output" },
    });
    // At least (2,000 − 11) + 30 + (20 + 4,200) + 24 − 100 = 6,163.
    const note = stopRecord("continue-turn", "ses_p", verdict, 1, OPENCODE_WORDS).split("\n");
    expect(note[3]).toBe(
      `Kept by compaction: bash gh api repos/o/r/issues (~${tokensOfCall.toLocaleString("en-US")} tokens); ` +
        "left after compaction at least 6,163 tokens, usable 6,000 tokens, trigger 2,120 tokens.",
    );
    expect(note[4]).toBe("Fix: ask for that command's output to be narrowed (head, tail, grep, a smaller range), not printed whole.");
    expect(denialToast(verdict, "ses_p", undefined, "note", OPENCODE_WORDS).message).toBe(
      `ses_p stopped: compaction cannot make room here. Largest kept: bash gh api repos/o/r/issues (~${tokensOfCall.toLocaleString("en-US")} tokens). ` +
        "Reply to go on; the note in the session says why.",
    );
  });

  it("a rule that is not about room adds nothing", () => {
    const allowed = replayMessages(s.messages, { ...ON, predict: false }, { limits: LIMITS })[0]!;
    expect(allowed.decision).toBe("allow");
    expect(stopRecord("continue-turn", "ses_p", allowed, 1, OPENCODE_WORDS).split("\n")).toHaveLength(5);
  });
});

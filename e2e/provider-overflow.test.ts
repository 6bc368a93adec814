/**
 * What opencode 1.18.33 does when the provider itself refuses a request as too long
 * (HTTP 400, OpenAI `context_length_exceeded`), and what the guard sees of it.
 * Findings in e2e/FINDINGS.md.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { expectHookTimes, expectLiveMatchesReplay } from "./expect-run.js";
import { runScenario, type ScenarioRun } from "./harness.js";
import { e2eConcurrency, mapLimit } from "./pool.js";
import { PROMPTS } from "./scenarios.js";

/** Requests answered before the cap: the first chat, then (compaction, continue) pairs. */
const CAP = 8;
/** The text opencode puts before "Continue if you have next steps…" after an overflow compaction. */
const OVERFLOW_CONTINUE_PREFIX = "The previous request exceeded the provider's size limit";

let single: ScenarioRun;
let twoTurns: ScenarioRun;

beforeAll(async () => {
  const runs = await mapLimit([false, true], e2eConcurrency(), (priorTurn) =>
    runScenario({ scenario: "provider-overflow", guard: true, maxRequests: CAP, priorTurn }),
  );
  [single, twoTurns] = runs as [ScenarioRun, ScenarioRun];
});

/** The synthetic continue texts of a run's export. */
const continueTexts = (run: ScenarioRun): string[] =>
  run.export!.messages.flatMap((m) => m.parts.filter((p) => p.metadata?.compaction_continue === true).map((p) => p.text ?? ""));

describe("provider-overflow in a one-prompt session (opencode run)", () => {
  it("compacts with overflow: true after every refused request", () => {
    const f = single.figures!;
    expect(f.compactionCycles).toBe(2);
    expect(f.overflowCompactions).toBe(f.compactionCycles);
    // The refused request leaves an assistant message with no parts and zero tokens.
    const refused = single.export!.messages.filter((m) => m.info.role === "assistant" && !m.info.summary);
    expect(refused).toHaveLength(2);
    for (const m of refused) {
      expect(m.parts).toEqual([]);
      expect(m.info.tokens?.input).toBe(0);
    }
  });

  it("calls the autocontinue hook every time (nothing to replay), and adds the overflow continue text", () => {
    const f = single.figures!;
    expect(f.compactions.every((c) => c.overflow && c.hookCalled)).toBe(true);
    expect(f.compactions.map((c) => c.next)).toEqual(["continue", "none"]);
    expect(single.decisions).toHaveLength(f.compactionCycles);
    expect(continueTexts(single)).toHaveLength(1);
    for (const text of continueTexts(single)) {
      expect(text.startsWith(OVERFLOW_CONTINUE_PREFIX)).toBe(true);
      expect(text).toContain("Continue if you have next steps");
    }
  });

  it("the guard denies the second overflow compaction: the provider refused again, the first made no room", () => {
    expect(single.decisions.map((d) => [d.index, d.decision, d.rule])).toEqual([
      [1, "allow", null],
      [2, "deny", "no-progress"],
    ]);
    expect(single.decisions[1]!.message).toContain(
      "the provider refused the request after the previous compaction as over its context limit again",
    );
    expect(single.metrics.ended.kind).toBe("guard-stop");
    // opencode run reports the provider's refusal as an error event and exits 1 for it,
    // even though it went on to compact; the session itself is idle, not looping.
    expect(single.exitCode).toBe(1);
    expect(single.requests.some((r) => r.reply === "cap")).toBe(false);
    expect(single.timedOut).toBe(false);
    expectLiveMatchesReplay(single);
    expectHookTimes(single);
  });
});

describe("provider-overflow after an earlier real user turn (opencode run --session)", () => {
  it("replays the user's message after the first overflow compaction instead of calling the hook", () => {
    const [first, ...rest] = twoTurns.figures!.compactions;
    expect(first).toMatchObject({ index: 1, overflow: true, summaryOk: true, next: "replay", hookCalled: false });
    // The replay is a new, non-synthetic user message with the same text as the prompt.
    const users = twoTurns.export!.messages.filter((m) => m.info.role === "user" && m.parts.some((p) => p.type === "text" && !p.synthetic));
    const texts = users.map((m) => m.parts.find((p) => p.type === "text")!.text);
    expect(texts.filter((t) => t?.includes(PROMPTS["provider-overflow"]))).toHaveLength(2);
    expect(twoTurns.figures!.realUserTurns).toBe(3);
    // From the second overflow on there is nothing left to replay: the hook is called.
    expect(rest).toHaveLength(1);
    expect(rest[0]).toMatchObject({ index: 2, overflow: true, summaryOk: true, hookCalled: true, next: "none" });
  });

  it("logs no decision for the replayed compaction, denies the first one it is asked about, and matches the replay CLI", () => {
    const called = twoTurns.figures!.compactions.filter((c) => c.hookCalled);
    expect(twoTurns.decisions).toHaveLength(called.length);
    expect(twoTurns.decisions.map((d) => d.messageID)).not.toContain(twoTurns.figures!.compactions[0]!.messageID);
    expect(twoTurns.decisions.map((d) => [d.index, d.decision, d.rule])).toEqual([[2, "deny", "no-progress"]]);
    expectLiveMatchesReplay(twoTurns);
    expect(twoTurns.metrics.ended.kind).toBe("guard-stop");
  });
});

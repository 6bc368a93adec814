/**
 * A decision that takes over the judging of an earlier read (view.ts `TimelineSteps` with
 * `earlier`, what the plugin judges while opencode writes the summary) gives the verdict it
 * gives without it, byte for byte, on every opencode V1 session under fixtures/: at each
 * automatic compaction, the earlier read is the newest messages up to the compaction's own
 * message, the decision's the same and the summary. Each is tried with the newest 200
 * messages (the hook's read), and cut to 40 and to 12 so that the steps since the user last
 * spoke begin before the read does.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { opencodeInputs } from "../../src/hosts/opencode/facts.js";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { InformationState } from "../../src/judge/information.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { decide, findDecisionPoint } from "../../src/judge/verdict.js";
import { TimelineSteps } from "../../src/judge/view.js";
import { ROOT } from "../support/golden.js";

interface Message {
  info: { id: string; role: string; summary?: boolean };
  parts: Array<{ type: string; auto?: boolean; state?: { status?: string; output?: unknown } }>;
}

/** Every opencode export under fixtures/ (`{ info, messages }` with V1 messages), by path. */
function v1Sessions(): Array<[string, Message[]]> {
  const found: Array<[string, Message[]]> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".json") && entry.name !== "expect.json") {
        try {
          const data = JSON.parse(readFileSync(path, "utf8")) as { messages?: unknown };
          if (Array.isArray(data.messages) && data.messages.every((m) => (m as Message)?.info?.id && Array.isArray((m as Message).parts)))
            found.push([path.slice(ROOT.length), data.messages as Message[]]);
        } catch {
          // not JSON: a transcript of another host
        }
      }
    }
  };
  walk(join(ROOT, "fixtures"));
  return found.sort(([a], [b]) => (a < b ? -1 : 1));
}

/** Indexes of the automatic compactions' messages that a summary message follows. */
const compactionsOf = (messages: readonly Message[]): number[] =>
  messages.flatMap((m, i) =>
    m.info.role === "user" && m.parts.some((p) => p.type === "compaction" && p.auto === true) && messages[i + 1]?.info.summary === true
      ? [i]
      : [],
  );

/** The hook's inputs with no model limits known, over a read that may not start at the session's beginning. */
const options = { ...opencodeInputs(undefined, undefined), wholeSession: false };

/** The verdict at the compaction whose message is `messages[at]`, read as the newest `size` messages up to its summary, without and with an earlier read; and the judgements each made. */
function both(messages: readonly Message[], at: number, size: number) {
  const start = Math.max(0, at + 2 - size);
  const id = messages[at]!.info.id;
  const judge = vi.spyOn(InformationState.prototype, "judge");
  const later = buildTimeline(messages.slice(start, at + 2));
  const alone = decide(later, findDecisionPoint(later, id)!, DEFAULT_SETTINGS, options);
  const judgedAlone = judge.mock.calls.length;
  const earlier = new TimelineSteps(buildTimeline(messages.slice(start, at + 1)));
  earlier.judgeNewest(DEFAULT_SETTINGS);
  judge.mockClear();
  const timeline = buildTimeline(messages.slice(start, at + 2));
  const taken = decide(timeline, findDecisionPoint(timeline, id)!, DEFAULT_SETTINGS, options, earlier);
  return { alone, taken, judgedAlone, judgedTaken: judge.mock.calls.length };
}

afterEach(() => void vi.restoreAllMocks());

describe("a decision taking over an earlier read's judging", () => {
  const sessions = v1Sessions();

  it("finds the fixtures' opencode sessions", () => {
    expect(sessions.length).toBeGreaterThan(100);
    expect(sessions.filter(([, m]) => compactionsOf(m).length > 0).length).toBeGreaterThan(80);
  });

  it("gives every compaction of every session the same verdict, and judges again only what the earlier read did not", () => {
    let decisions = 0;
    let saved = 0;
    for (const [name, messages] of sessions) {
      for (const at of compactionsOf(messages)) {
        for (const size of [200, 40, 12]) {
          const { alone, taken, judgedAlone, judgedTaken } = both(messages, at, size);
          expect(JSON.stringify(taken), `${name} at message ${at}, newest ${size}`).toBe(JSON.stringify(alone));
          expect(judgedTaken).toBeLessThanOrEqual(judgedAlone);
          decisions += 1;
          saved += judgedAlone - judgedTaken;
        }
      }
    }
    expect(decisions).toBeGreaterThan(1000);
    // The summary is no step of its own: almost every judgement is taken over.
    expect(saved).toBeGreaterThan(10_000);
  });

  it("judges afresh when the earlier read's steps are not the same (a result changed since)", () => {
    let tried = 0;
    let afresh = 0;
    for (const [name, messages] of sessions) {
      const at = compactionsOf(messages).at(-1);
      if (at === undefined) continue;
      const changed = structuredClone(messages);
      const tool = changed
        .slice(0, at)
        .flatMap((m) => m.parts)
        .filter((p) => p.type === "tool" && p.state?.status === "completed" && typeof p.state.output === "string")
        .at(-1);
      if (!tool) continue;
      tool.state!.output = `${String(tool.state!.output)}\nchanged`;
      const earlier = new TimelineSteps(buildTimeline(changed.slice(0, at + 1)));
      earlier.judgeNewest(DEFAULT_SETTINGS);
      const judge = vi.spyOn(InformationState.prototype, "judge");
      const timeline = buildTimeline(messages.slice(0, at + 2));
      const id = messages[at]!.info.id;
      const taken = decide(timeline, findDecisionPoint(timeline, id)!, DEFAULT_SETTINGS, options, earlier);
      const judgedTaken = judge.mock.calls.length;
      judge.mockClear();
      const alone = decide(timeline, findDecisionPoint(timeline, id)!, DEFAULT_SETTINGS, options);
      expect(JSON.stringify(taken), name).toBe(JSON.stringify(alone));
      // Taken over only when the call changed lies before the user's last message.
      if (judgedTaken === judge.mock.calls.length) afresh += 1;
      vi.restoreAllMocks();
      tried += 1;
    }
    expect(tried).toBeGreaterThan(80);
    expect(afresh).toBeGreaterThan(tried * 0.8);
  });
});

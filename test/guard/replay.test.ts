/**
 * Replay decides every compaction of a session on one timeline, and the decisions share what
 * an earlier one learnt (view.ts: each action linked to the earlier runs of its key, whether
 * it is new, its preview). The hook decides one compaction on a timeline of its own. These
 * tests hold the two to the same verdicts: on every recorded export and on generated
 * histories, replay's rows equal `decide` on a fresh timeline per compaction (nothing shared),
 * in either order, and the tool-loop entries equal those of a fresh timeline. The decisions and
 * the tool-loop walk share every action but the asking calls' (view.ts `stepViews`): whichever
 * runs first, the other's answers are those of a fresh timeline.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fixtureCases, fixtureExports, SETTINGS_VARIANTS as VARIANTS } from "../support/fixtures.js";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { exportedSession } from "../../src/hosts/opencode/session.js";
import { decide, replayMessages, replayTimeline, type DecideOptions } from "../../src/core.js";
import { replaySession } from "../../src/guard/replay.js";
import type { SessionData } from "../../src/model/session.js";
import { sessionInputs } from "../../src/sources/sources.js";
import { DEFAULT_SETTINGS, type GuardSettings } from "../../src/config/settings.js";
import { compactionSizes } from "../../src/model/timeline.js";
import { toolLoopsOf } from "../../src/judge/tool-loop.js";
import { guardSettings, history, modelLimits } from "../support/arbitraries.js";

/** Replay's rows the slow way: each automatic compaction decided on a timeline built for it alone. */
function decidedApart(
  messages: readonly unknown[],
  settings: GuardSettings,
  options: DecideOptions,
  order: "oldest" | "newest" = "oldest",
) {
  const points = buildTimeline(messages).compactions.filter((c) => c.auto && c.succeeded);
  const rows = points.map((point) => {
    const timeline = buildTimeline(messages);
    const compaction = timeline.compactions.find((c) => c.position === point.position)!;
    const { triggerTokens, afterTokens } = compactionSizes(timeline.entries, compaction);
    return { ...decide(timeline, compaction, settings, { wholeSession: true, ...options }), triggerTokens, afterTokens };
  });
  return order === "oldest" ? rows : rows.reverse();
}

/** Plain data all through: objects of Object's prototype or arrays, no getters or setters (as `replay --json` prints them). */
function expectPlain(value: unknown, path = "row"): void {
  if (value === null || typeof value !== "object") {
    expect(typeof value, path).not.toBe("function");
    return;
  }
  expect([Object.prototype, Array.prototype], `${path}'s prototype`).toContain(Object.getPrototypeOf(value));
  for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(value))) {
    expect(descriptor.get ?? descriptor.set, `${path}.${key} is an accessor`).toBeUndefined();
    expectPlain(descriptor.value, `${path}.${key}`);
  }
}

/** Replay's rows with the compactions decided newest first on one shared timeline (caches filled in the other order). */
function sharedNewestFirst(messages: readonly unknown[], settings: GuardSettings, options: DecideOptions) {
  const timeline = buildTimeline(messages);
  return timeline.compactions
    .filter((c) => c.auto && c.succeeded)
    .reverse()
    .map((compaction) => {
      const { triggerTokens, afterTokens } = compactionSizes(timeline.entries, compaction);
      return { ...decide(timeline, compaction, settings, { wholeSession: true, ...options }), triggerTokens, afterTokens };
    });
}

describe("replay's shared decisions equal decisions made apart", () => {
  const files = fixtureExports();

  it("finds the recorded exports", () => {
    expect(files.length).toBeGreaterThan(40);
  });

  it.each(fixtureCases())("%s", (_name, file) => {
    const exported = JSON.parse(readFileSync(file, "utf8")) as Parameters<typeof exportedSession>[0];
    const session: SessionData = exportedSession(exported);
    const limits = { context: 200_000, output: 32_000 };
    VARIANTS.forEach((variant) => {
      const settings = { ...DEFAULT_SETTINGS, ...variant };
      const replayed = replaySession(session, sessionInputs(session, { settings, limits }));
      const { directory } = session.record;
      const apart = decidedApart(exported.messages, settings, { limits, directory, subagent: session.record.parent !== null });
      expect(replayed.rows).toEqual(apart);
      replayed.rows.forEach((row) => expectPlain(row));
      // The tool-loop walk first, then the decisions: they share its actions the other way round.
      const timeline = buildTimeline(exported.messages);
      expect(toolLoopsOf(timeline, settings, directory)).toEqual(replayed.toolLoop);
      expect(replayTimeline(timeline, settings, { limits, directory, subagent: session.record.parent !== null })).toEqual(apart);
    });
  });

  it("on generated histories, in either order", () => {
    fc.assert(
      fc.property(history({}, 60), guardSettings, modelLimits, (messages, settings, limits) => {
        const rows = replayMessages(messages, settings, { limits });
        expect(rows).toEqual(decidedApart(messages, settings, { limits }));
        rows.forEach((row) => expectPlain(row));
        expect(sharedNewestFirst(messages, settings, { limits })).toEqual(decidedApart(messages, settings, { limits }, "newest"));
      }),
      { numRuns: 100 },
    );
  }, 60_000);
});

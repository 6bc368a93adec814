/**
 * audit's replay without the tool-loop walk (`replaySession(…, { toolLoop: false })`, for the
 * table and `--json`, which do not show the walk) decides every session as the full replay
 * does (the walk fills caches the decisions share): the same rows and timeline, on every export under fixtures/ and on generated sessions (with a
 * project directory or none, a subagent's or not), under several settings and limits.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fixtureCases, fixtureExports, SETTINGS_VARIANTS as VARIANTS } from "../support/fixtures.js";
import { replaySession } from "../../src/guard/replay.js";
import type { SessionData } from "../../src/model/session.js";
import { sessionInputs, type SessionDecisionOptions } from "../../src/sources/sources.js";
import { exportedSession } from "../../src/hosts/opencode/session.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { guardSettings, history, modelLimits } from "../support/arbitraries.js";

/** The two replays of one session, compared on what a row is made of. */
function expectSameDecisions(session: SessionData, options: SessionDecisionOptions): void {
  const full = replaySession(session, sessionInputs(session, options));
  const without = replaySession(session, sessionInputs(session, options), { toolLoop: false });
  expect(without.rows).toEqual(full.rows);
  expect(without.timeline).toEqual(full.timeline);
  expect(without.toolLoop).toEqual([]);
}

describe("replaySession without the tool-loop walk: the same rows and timeline", () => {
  const files = fixtureExports();

  it("finds the recorded exports", () => {
    expect(files.length).toBeGreaterThan(40);
  });

  it.each(fixtureCases())("%s", (_name, file) => {
    const session = exportedSession(JSON.parse(readFileSync(file, "utf8")) as Parameters<typeof exportedSession>[0]);
    for (const variant of VARIANTS) {
      const settings = { ...DEFAULT_SETTINGS, ...variant };
      expectSameDecisions(session, { settings });
      expectSameDecisions(session, { settings, limits: { context: 200_000, output: 32_000 }, reserved: 20_000 });
    }
  });

  it("on generated sessions, with or without a directory and a parent", () => {
    fc.assert(
      fc.property(
        history({}, 60),
        guardSettings,
        modelLimits,
        fc.option(fc.nat({ max: 50_000 }), { nil: undefined }),
        fc.option(fc.constantFrom("/home/dev/project", ""), { nil: undefined }),
        fc.option(fc.constantFrom("ses_parent", ""), { nil: undefined }),
        (messages, settings, limits, reserved, directory, parentID) => {
          const info = {
            id: "ses_fuzz",
            ...(directory !== undefined ? { directory } : {}),
            ...(parentID !== undefined ? { parentID } : {}),
          };
          expectSameDecisions(exportedSession({ info, messages }), { settings, limits: limits ?? undefined, reserved });
        },
      ),
      { numRuns: 100 },
    );
  }, 60_000);
});

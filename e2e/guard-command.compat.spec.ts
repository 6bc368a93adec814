/**
 * `/guard` in every release of the compatibility matrix (`npm run test:compat`): the flow of
 * ./guard-command-flow.ts, headless (`opencode run --command guard`), per release. The
 * releases: OPENCODE_COMPAT_VERSIONS, else the older releases of ./compat.spec.ts's list
 * (1.18.33 runs the same flow and more in ./guard-command.test.ts, in npm run test:e2e).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAP, guardCommandFlow, lastNote, type GuardCommandFlow } from "./guard-command-flow.js";
import { e2eConcurrency, mapLimit } from "./pool.js";
import { installedOpencode } from "./sandbox.js";
import { switchLine } from "../src/plugin/opencode-v1/guard-command.js";

const versions = (process.env.OPENCODE_COMPAT_VERSIONS ?? "1.14.34,1.15.13,1.17.11")
  .split(",")
  .map((v) => v.trim())
  .filter(Boolean);

const flows = new Map<string, GuardCommandFlow>();

beforeAll(async () => {
  const results = await mapLimit(
    versions,
    e2eConcurrency(),
    async (version) => [version, await guardCommandFlow(installedOpencode(version))] as const,
  );
  for (const [version, flow] of results) flows.set(version, flow);
}, 1_800_000);

afterAll(async () => {
  for (const flow of flows.values()) await flow.sandbox.dispose();
});

describe.each(versions)("/guard in opencode %s", (version) => {
  it("reports the stopped session (compaction 2 stopped) and the healthy one (all allowed), with no model request", () => {
    const flow = flows.get(version)!;
    expect(lastNote(flow.reportStopped.export)).toContain("compaction 2: stopped auto-continue (no-progress:");
    expect(lastNote(flow.reportHealthy.export)).toContain("Automatic compactions: 2, 0 with a rule that fired.");
    expect([flow.reportStopped.requests, flow.reportHealthy.requests, flow.off.requests]).toEqual([[], [], []]);
  });

  it("/guard off: the next loop in that session runs to the cap in a new process; a new session is still stopped", () => {
    const flow = flows.get(version)!;
    expect(lastNote(flow.off.export)).toBe(switchLine("off"));
    expect(flow.afterOff.requests.filter((r) => r.kind !== "title" && r.reply !== "cap")).toHaveLength(CAP);
    expect(flow.afterOff.decisions.filter((d) => d.decision === "deny")).toEqual([]);
    expect(flow.other.decisions.find((d) => d.decision === "deny")?.rule).toBe("no-progress");
  });
});

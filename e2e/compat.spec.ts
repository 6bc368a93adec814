/**
 * The compatibility matrix: the built plugin in every opencode release it claims
 * (`engines.opencode`), on three scenarios: the fixed-point loop stopped at compaction 2,
 * healthy work reaching its answer with no denial, and one finished turn whose restart is
 * skipped (turn-finished); and prevention in the fixed-point run (the summary requests carry
 * the ledger, the continue request carries the note, no summary request holds opencode's
 * continue text). Run by `npm run test:compat`; the releases come from
 * OPENCODE_COMPAT_VERSIONS (comma-separated), default COMPAT_VERSIONS. Each release is
 * installed by e2e/install-opencode.sh into .cache/opencode/<version>/ (only the platform
 * package, reused when present; the pinned one is the e2e suite's own).
 *
 * What differs between releases is opencode, not the plugin: up to 1.15.x `--print-logs`
 * writes `service=… key=value … message` lines (guard-log.ts reads both formats), and
 * 1.15.x sometimes drops the last JSON events of `run --format json` (nothing here relies
 * on them: the session id falls back to the log, the figures come from `opencode export`).
 */
import { execFileSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { expectLiveMatchesReplay } from "./expect-run.js";
import { runScenario, type ScenarioRun } from "./harness.js";
import { e2eConcurrency, mapLimit } from "./pool.js";
import { installedOpencode } from "./sandbox.js";
import { HEALTHY_FINAL_TEXT, REPEATED_TEXT, type RequestKind, type ScenarioName } from "./scenarios.js";
import { CONTINUE_TEXT } from "../src/hosts/opencode/facts.js";

/** The releases the matrix proves: the oldest installable with the hook, through the pinned one. */
export const COMPAT_VERSIONS = ["1.14.34", "1.15.13", "1.17.11", "1.18.33"] as const;

const versions = (process.env.OPENCODE_COMPAT_VERSIONS ?? COMPAT_VERSIONS.join(","))
  .split(",")
  .map((v) => v.trim())
  .filter(Boolean);

const SCENARIOS: ScenarioName[] = ["fixed-point", "healthy", "same-text-stop"];

const runs = new Map<string, ScenarioRun>();
const binaries = new Map<string, string>();
/** The fixed-point run's request bodies, by release: kind and the JSON text. */
const bodies = new Map<string, Array<{ kind: RequestKind; text: string }>>();

const bodyList = (version: string) => {
  if (!bodies.has(version)) bodies.set(version, []);
  return bodies.get(version)!;
};

beforeAll(async () => {
  for (const v of versions) binaries.set(v, installedOpencode(v));
  const jobs = versions.flatMap((version) => SCENARIOS.map((scenario) => ({ version, scenario })));
  const results = await mapLimit(jobs, e2eConcurrency(), (job) =>
    runScenario({
      scenario: job.scenario,
      guard: true,
      opencodeBin: binaries.get(job.version)!,
      // The fixed point with prediction off: it then gets one continue turn, whose rewrite
      // (prevention) and the no-progress stop at 2 are what each release is checked for.
      ...(job.scenario === "fixed-point"
        ? {
            env: { OPENCODE_COMPACTION_GUARD_PREDICT: "0" },
            onRequest: (kind: RequestKind, body: unknown) => bodyList(job.version).push({ kind, text: JSON.stringify(body) }),
          }
        : {}),
    }),
  );
  jobs.forEach((job, i) => runs.set(`${job.version}/${job.scenario}`, results[i]!));
});

describe.each(versions)("opencode %s", (version) => {
  const run = (scenario: ScenarioName) => runs.get(`${version}/${scenario}`)!;

  it("is the release asked for", () => {
    expect(execFileSync(binaries.get(version)!, ["--version"], { encoding: "utf8" }).trim()).toBe(version);
  });

  it("loads the plugin (its start-up line)", () => {
    for (const s of SCENARIOS) expect(run(s).guardLines[0]?.message).toMatch(/^compaction-guard \S+ loaded: /);
  });

  it("fixed-point (prediction off): stopped at compaction 2 by no-progress, exit 0, one continue turn", () => {
    const r = run("fixed-point");
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(0);
    expect(r.metrics.ended.kind).toBe("guard-stop");
    expect(r.requests.some((q) => q.reply === "cap")).toBe(false);
    expect(r.decisions.map((d) => [d.index, d.decision, d.rule, d.level])).toEqual([
      [1, "allow", null, "INFO"],
      [2, "deny", "no-progress", "WARN"],
    ]);
    expect(r.decisions[1]!.message).toMatch(/^compaction-guard stopped auto-continue/);
    expect(r.decisions[1]!.message).toContain(r.sessionID!);
    expect(r.figures!.compactionCycles).toBe(2);
    expect(r.figures!.continueTurns).toBe(1);
    expectLiveMatchesReplay(r);
  });

  it("fixed-point: prevention runs; the ledger names the repeated call, the continue request carries the note", () => {
    expect(run("fixed-point").guardLines[0]?.message).toContain("prevent true (default)");
    const sent = bodies.get(version)!;
    const summaries = sent.filter((b) => b.kind === "compaction");
    expect(summaries).toHaveLength(2);
    for (const s of summaries) expect(s.text).toContain("[compaction-guard ledger] Calls already completed");
    expect(summaries[1]!.text).toContain("- bash `echo hi` (done, 2×)");
    // Nowhere in what the summarizer reads does the earlier continue turn speak as the user.
    expect(summaries.filter((s) => s.text.includes(CONTINUE_TEXT))).toEqual([]);
    const continues = sent.filter((b) => b.kind === "continue");
    expect(continues).toHaveLength(1);
    expect(continues[0]!.text).toContain("[compaction-guard note] This message was added automatically after context compaction.");
    expect(continues[0]!.text).toContain("the most recent: bash `echo hi` (done).");
    expect(continues[0]!.text).not.toContain(CONTINUE_TEXT);
    expect(run("fixed-point").guardLines.filter((l) => l.message.includes("could not"))).toEqual([]);
  });

  it("healthy: reaches its final answer, every compaction allowed, no warn line", () => {
    const r = run("healthy");
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(0);
    expect(r.metrics.ended.kind).toBe("final-answer");
    expect(r.figures!.finalAssistantText).toBe(HEALTHY_FINAL_TEXT);
    expect(r.decisions.length).toBeGreaterThanOrEqual(1);
    expect(r.decisions.filter((d) => d.decision === "deny")).toEqual([]);
    expect(r.guardLines.some((l) => l.level === "WARN")).toBe(false);
    expectLiveMatchesReplay(r);
  });

  it("same-text-stop: the finished turn's restart skipped at compaction 1 (turn-finished, info)", () => {
    const r = run("same-text-stop");
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(0);
    expect(r.metrics.ended.kind).toBe("guard-skip");
    expect(r.decisions.map((d) => [d.index, d.decision, d.rule, d.level])).toEqual([[1, "deny", "turn-finished", "INFO"]]);
    expect(r.guardLines.some((l) => l.level === "WARN")).toBe(false);
    expect(r.figures!.continueTurns).toBe(0);
    expect(r.figures!.finalAssistantText).toBe(REPEATED_TEXT);
    expectLiveMatchesReplay(r);
  });
});

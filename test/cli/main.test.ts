import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { cli } from "../support/cli.js";

const LOOP = fileURLToPath(new URL("../../fixtures/opencode-1.18.33-loop-bash.json", import.meta.url));

describe("replay --json", () => {
  it("prints exactly one object with firstDeny 2 for the shared loop export", async () => {
    const { code, stdout, stderr } = await cli(["replay", LOOP, "--json"]);
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout.trim().split("\n")).toHaveLength(1);
    const report = JSON.parse(stdout);
    expect(Object.keys(report)).toEqual(["sessionID", "compactions", "firstDeny", "toolLoop", "liveGuard"]);
    // The same echo ran three times in a row before the first compaction: the tool-loop check's notice.
    expect(report.toolLoop.map((t: { step: number; action: string; runs: number }) => [t.step, t.action, t.runs])).toEqual([
      [3, "warn", 3],
    ]);
    expect(report.sessionID).toBe("ses_dd48353bdffeeLNjPk1FftaDqf");
    expect(report.firstDeny).toBe(2);
    // Compaction 3 used to be denied by repeated-tool-call; no-progress is now checked first
    // (a compaction that cannot make room explains the repeats), and every rule that fired is listed.
    expect(
      report.compactions.map((c: { index: number; decision: string; rule: string | null; fired: string[] }) => [
        c.index,
        c.decision,
        c.rule,
        c.fired,
      ]),
    ).toEqual([
      [1, "allow", null, []],
      [2, "deny", "no-progress", ["no-progress", "no-new-work"]],
      [3, "deny", "no-progress", ["no-progress", "repeated-tool-call", "no-new-work"]],
    ]);
    expect(report.compactions[1].severity).toBe("warning");
    // after: the prompt (input + cache) of the first step after the summary, 7,000; its total is 7,020.
    expect(report.compactions[0]).toMatchObject({ messageID: "msg_22b7cb6d0001bzMcMOyhULTJKu", triggerTokens: 7020, afterTokens: 7000 });
  });

  it("flags and environment change the settings; flags win", async () => {
    const rules = (report: { compactions: Array<{ rule: string | null }> }) => report.compactions.map((c) => c.rule);
    // --min-reduction 0: 7,020 → 7,000 is a cut, however small, so no-progress no longer
    // fires; the echo redone after each compaction is no new work.
    const lax = JSON.parse((await cli(["replay", LOOP, "--json", "--min-reduction", "0", "--threshold", "4"])).stdout);
    expect(lax.firstDeny).toBe(2);
    expect(rules(lax)).toEqual([null, "no-new-work", "no-new-work"]);
    expect(lax.compactions[1].evidence["no-progress"]).toMatchObject({ status: "measured", stalled: null });
    expect(lax.compactions[2].evidence["repeated-tool-call"]).toMatchObject({ count: 3, threshold: 4 });
    // The environment's threshold 2 makes the second echo a repeat; the flag's 3 wins over it.
    const env = { OPENCODE_COMPACTION_GUARD_THRESHOLD: "2" };
    expect(rules(JSON.parse((await cli(["replay", LOOP, "--json", "--min-reduction", "0"], env)).stdout))).toEqual([
      null,
      "repeated-tool-call",
      "repeated-tool-call",
    ]);
    expect(rules(JSON.parse((await cli(["replay", LOOP, "--json", "--min-reduction", "0", "--threshold", "3"], env)).stdout))).toEqual([
      null,
      "no-new-work",
      "repeated-tool-call",
    ]);
  });

  it("--ignore takes calls out of the repeat rules, by bash command start; the environment's list is overridden", async () => {
    const run = async (flags: string[], env: Record<string, string> = {}) =>
      JSON.parse((await cli(["replay", LOOP, "--json", "--min-reduction", "0", ...flags], env)).stdout);
    const ignored = await run(["--ignore", "echo hi"]);
    expect(ignored.firstDeny).toBeNull();
    expect(ignored.compactions[1].evidence["no-new-work"]).toEqual({
      status: "abstain",
      reason: "the cycle since the previous compaction did nothing the rules count",
    });
    expect(ignored.compactions[2].evidence["repeated-tool-call"]).toMatchObject({ tool: null, count: 0 });
    expect((await run(["--ignore", "echo"])).firstDeny).toBeNull();
    expect((await run(["--ignore", "ech"])).firstDeny).toBe(2); // whole words only
    expect((await run([], { OPENCODE_COMPACTION_GUARD_IGNORE: "echo hi" })).firstDeny).toBeNull();
    expect((await run(["--ignore", "todowrite, grep"], { OPENCODE_COMPACTION_GUARD_IGNORE: "echo hi" })).firstDeny).toBe(2);
  });

  it("--reserved moves the usable line of a model with an input limit", async () => {
    const limits = ["--context-limit", "8000", "--output-limit", "2000", "--input-limit", "7500", "--min-reduction", "0"];
    const run = async (...flags: string[]) =>
      JSON.parse((await cli(["replay", LOOP, "--json", ...limits, ...flags])).stdout).compactions[1];
    // opencode's default reserve: min(20,000, output 2,000); 7,000 left ≥ 7,500 − 2,000.
    expect(await run()).toMatchObject({
      rule: "no-progress",
      evidence: { "no-progress": { usableTokens: 5500, stalled: "still-over-usable-context" } },
    });
    // compaction.reserved 400: the line is 7,100 and 7,000 is under it.
    expect(await run("--reserved", "400")).toMatchObject({
      rule: "no-new-work",
      evidence: { "no-progress": { usableTokens: 7100, stalled: null } },
    });
    expect((await run("--reserved", "0")).evidence["no-progress"].usableTokens).toBe(7500);
  });
  it("uses the model limits for opencode's usable context", async () => {
    const report = JSON.parse((await cli(["replay", LOOP, "--json", "--context-limit", "8000", "--output-limit", "2000"])).stdout);
    expect(report.compactions[1].evidence["no-progress"].usableTokens).toBe(6000);
  });
});

describe("replay table", () => {
  it("shows one row per compaction and the first deny", async () => {
    const { code, stdout } = await cli(["replay", LOOP]);
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toBe(
      "session ses_dd48353bdffeeLNjPk1FftaDqf: 3 automatic compactions; model limits unknown (see --context-limit and --output-limit)",
    );
    expect(lines[1]).toMatch(/^#\s+compaction message\s+trigger\s+after\s+decision\s+rule$/);
    expect(lines[3]).toMatch(/^2\s+msg_22b7cb90b001Oacj8ldTaTA4T8\s+7,020\s+7,000\s+deny\s+no-progress$/);
    expect(lines[4]).toMatch(/^3\s+msg_22b7cbad0001ju6u1ULSB4ME6t\s+7,020\s+-\s+deny\s+no-progress$/);
    expect(lines.at(-2)).toBe(
      "first deny: compaction 2, no-progress: the previous compaction left 7,000 tokens of context, down from 7,020 tokens (0% smaller), less than the 10% cut needed to make progress",
    );
    // The same echo three times in a row before the first compaction: the tool-loop check's notice.
    expect(lines.at(-1)).toBe("tool loop: the guard would have acted at 1 call: step 3 warn (bash echo hi, run 3)");
  });

  it("names no tool loop for a healthy session, and a stop with --tool-loop stop", async () => {
    const healthy = fileURLToPath(new URL("../../fixtures/e2e-healthy.json", import.meta.url));
    expect((await cli(["replay", healthy])).stdout).not.toContain("tool loop");
    const unguarded = fileURLToPath(new URL("../../fixtures/e2e-fixed-point-unguarded.json", import.meta.url));
    const { stdout } = await cli(["replay", unguarded, "--tool-loop", "stop"]);
    expect(stdout.trim().split("\n").at(-1)).toBe(
      "tool loop: the guard would have acted at 3 calls: step 3 warn (bash echo hi, run 3), step 4 warn (bash echo hi, run 4), step 5 stop (bash echo hi, run 5)",
    );
  });

  it("names the usable context, with compaction.reserved from --reserved", async () => {
    const { stdout } = await cli([
      "replay",
      LOOP,
      "--context-limit",
      "8000",
      "--output-limit",
      "2000",
      "--input-limit",
      "7500",
      "--reserved",
      "400",
    ]);
    expect(stdout.split("\n")[0]).toBe("session ses_dd48353bdffeeLNjPk1FftaDqf: 3 automatic compactions; usable context 7,100 tokens");
  });
});

describe("usage and input errors: exit 2, one line naming the problem", () => {
  const dir = mkdtempSync(join(tmpdir(), "ocg-cli-"));
  const file = (name: string, content: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it.each([
    ["a missing path", () => [join(dir, "nope.json")], /nope\.json: no such file$/],
    ["a directory", () => [dir], /: is a folder; replay reads one export file \(audit .* reads every export in it\)$/],
    ["an empty file", () => [file("empty.json", "")], /empty\.json: is empty/],
    ["non-JSON", () => [file("text.json", "hello")], /text\.json: is not valid JSON \(.*\); truncated or not an export\?$/],
    ["a truncated export", () => [file("cut.json", '{"info":{"id":"ses_1"},"messages":[{"info"')], /cut\.json: is not valid JSON/],
    ["binary bytes", () => [file("bin.json", Buffer.from([0, 159, 146, 150, 255]))], /bin\.json: is not valid JSON/],
    ["JSON of another shape", () => [file("other.json", "[1,2]")], /other\.json: not an opencode session export \(/],
    [
      "no messages",
      () => [file("none.json", '{"info":{"id":"ses_1"},"messages":[]}')],
      /none\.json: .*messages: the export has no messages\)$/,
    ],
    [
      "an unknown role",
      () => [file("role.json", '{"info":{"id":"ses_1"},"messages":[{"info":{"id":"m","role":"robot"},"parts":[]}]}')],
      /role\.json: not an opencode session export \(`messages\[0\]\.info\.role` is "robot", not user or assistant\)$/,
    ],
    ["a bad flag value", () => [LOOP, "--threshold", "many"], /--threshold: threshold must be an integer from 2 to 1000, got "many"$/],
    [
      "a bad ignore list",
      () => [LOOP, "--ignore", "x".repeat(201)],
      /--ignore: ignore must be a list of up to 100 tool names or command starts, got \["x+\.\.\.$/,
    ],
    ["a bad reserve", () => [LOOP, "--reserved=lots"], /--reserved must be a whole number of tokens from 0 to 100,000,000, got "lots"$/],
    [
      "a fractional reserve",
      () => [LOOP, "--reserved", "1.5"],
      /--reserved must be a whole number of tokens from 0 to 100,000,000, got "1.5"$/,
    ],
    [
      "a negative limit",
      () => [LOOP, "--context-limit=-5", "--output-limit", "2000"],
      /--context-limit -5 is out of range: a whole number of tokens from 1 to 100,000,000$/,
    ],
    [
      "an empty limit",
      () => [LOOP, "--context-limit=", "--output-limit", "2000"],
      /--context-limit must be a whole number of tokens from 1 to 100,000,000, got ""$/,
    ],
    [
      "a context limit alone (the output limit would count as 32,000)",
      () => [LOOP, "--context-limit", "8000"],
      /--context-limit needs --output-limit too/,
    ],
    ["an output limit alone", () => [LOOP, "--output-limit", "2000"], /--output-limit needs --context-limit too$/],
    ["an input limit alone", () => [LOOP, "--input-limit", "6000"], /--input-limit needs --context-limit too$/],
    [
      "a flag without its value (the next word is a flag)",
      () => [LOOP, "--context-limit", "--json"],
      /^opencode-compaction-guard: --context-limit needs a value \(e\.g\. --context-limit 200000\); try --help$/,
    ],
    [
      "--predict last, without its value",
      () => [LOOP, "--predict"],
      /^opencode-compaction-guard: --predict needs a value \(e\.g\. --predict true\); try --help$/,
    ],
    [
      "--predict followed by another flag",
      () => [LOOP, "--predict", "--json"],
      /^opencode-compaction-guard: --predict needs a value \(e\.g\. --predict true\); try --help$/,
    ],
    [
      "a bad boolean flag value",
      () => [LOOP, "--match-output", "maybe"],
      /^opencode-compaction-guard: --match-output: matchOutput must be true or false \(or 1\/0, yes\/no, on\/off\), got "maybe"$/,
    ],
    // Far from every known flag: no guess.
    ["an unknown flag", () => [LOOP, "--frobnicate"], /^opencode-compaction-guard: unknown option --frobnicate \(try --help\)$/],
    ["an unknown flag near nothing", () => [LOOP, "--bogus"], /^opencode-compaction-guard: unknown option --bogus \(try --help\)$/],
  ])("%s", async (_, args, message) => {
    const { code, stdout, stderr } = await cli(["replay", ...args()]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(stderr.trim()).toMatch(/^opencode-compaction-guard: /);
    expect(stderr.trim()).toMatch(message);
  });

  it("unknown command and missing file", async () => {
    expect(await cli(["play", LOOP])).toMatchObject({ code: 2, stderr: 'opencode-compaction-guard: unknown command "play"; try --help\n' });
    expect(await cli(["replay"])).toMatchObject({
      code: 2,
      stderr: "opencode-compaction-guard: replay needs an export file or a transcript (or - for standard input)\n",
    });
  });

  it("replay --help prints replay's usage and exits 0", async () => {
    const { code, stdout } = await cli(["replay", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: opencode-compaction-guard replay <export.json | transcript.jsonl | -> [options]");
  });
});

describe("the executable", () => {
  const run = promisify(execFile);
  const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url));

  it("reads an export from standard input and sets the exit code", async () => {
    const child = run(process.execPath, ["--import", "tsx", bin, "replay", "-", "--json"]);
    child.child.stdin!.end(await import("node:fs").then((fs) => fs.readFileSync(LOOP)));
    const { stdout } = await child;
    expect(JSON.parse(stdout).firstDeny).toBe(2);
    await expect(run(process.execPath, ["--import", "tsx", bin, "replay", "/nonexistent/x.json"])).rejects.toMatchObject({
      code: 2,
      stderr: "opencode-compaction-guard: /nonexistent/x.json: no such file\n",
    });
  });
});

describe("newcomer issues: --predict without limits, bad booleans, missing values, unknown flags", () => {
  const WARNING =
    "warning: --predict needs the model's limits (--context-limit and --output-limit); cannot-make-room abstains without them\n";
  const FIXTURES = fileURLToPath(new URL("../../fixtures", import.meta.url));

  it("replay --predict true without limits: one warning line on stderr, the replay still runs", async () => {
    const run = await cli(["replay", LOOP, "--predict", "true", "--json"]);
    expect([run.code, run.stderr]).toEqual([0, WARNING]);
    expect(JSON.parse(run.stdout).firstDeny).toBe(2);
    // From the environment too.
    const env = await cli(["replay", LOOP, "--json"], { OPENCODE_COMPACTION_GUARD_PREDICT: "yes" });
    expect([env.code, env.stderr]).toEqual([0, WARNING]);
  });

  it("no warning with the limits, with predict off, or for audit with no path", async () => {
    const limits = ["--context-limit", "8000", "--output-limit", "2000"];
    expect(await cli(["replay", LOOP, "--predict", "true", ...limits, "--json"])).toMatchObject({ code: 0, stderr: "" });
    expect(await cli(["replay", LOOP, "--predict", "false", "--json"])).toMatchObject({ code: 0, stderr: "" });
    expect(await cli(["replay", LOOP, "--json"])).toMatchObject({ code: 0, stderr: "" });
    // audit with no path: opencode lists each session's limits; a missing opencode is the only line.
    const noPath = await cli(["audit", "--predict", "true", "--opencode", "/nonexistent/bin/opencode"]);
    expect(noPath.code).toBe(2);
    expect(noPath.stderr).not.toContain("warning: --predict");
  });

  it("audit <paths> --predict true without limits: the same one warning line", async () => {
    const run = await cli(["audit", join(FIXTURES, "e2e-healthy.json"), "--predict", "true", "--json"]);
    expect([run.code, run.stderr]).toEqual([0, WARNING]);
    expect(JSON.parse(run.stdout).totals.sessions).toBe(1);
  });

  it("a bad boolean in the environment names the words it may be, and the value that stands", async () => {
    const run = await cli(["replay", LOOP, "--json"], { OPENCODE_COMPACTION_GUARD_PREDICT: "maybe" });
    expect([run.code, run.stderr]).toEqual([
      0,
      'warning: OPENCODE_COMPACTION_GUARD_PREDICT: predict must be true or false (or 1/0, yes/no, on/off), got "maybe"; using true\n',
    ]);
  });

  it.each([
    [["--predict"], "--predict needs a value (e.g. --predict true); try --help"],
    [["--since"], "--since needs a value (e.g. --since 2026-11-01); try --help"],
    [["--html", "--json"], "--html needs a value (e.g. --html report.html); try --help"],
    [["--bogus"], "unknown option --bogus (try --help)"],
    [["--jsn"], "unknown option --jsn; did you mean --json? (try --help)"],
    [["--recursiv"], "unknown option --recursiv; did you mean --recursive? (try --help)"],
  ])("audit %j: one clear line, exit 2", async (args, line) => {
    expect(await cli(["audit", FIXTURES, ...args])).toEqual({ code: 2, stdout: "", stderr: `opencode-compaction-guard: ${line}\n` });
  });

  it("nearestFlag: a guess only when few edits away or a start of the flag", async () => {
    const { nearestFlag } = await import("../../src/cli/common.js");
    const known = ["--json", "--threshold", "--context-limit", "--match-output", "--version"];
    expect(nearestFlag("--jsn", known)).toBe("--json");
    expect(nearestFlag("--treshold", known)).toBe("--threshold");
    expect(nearestFlag("--context", known)).toBe("--context-limit");
    expect(nearestFlag("--match", known)).toBe("--match-output");
    expect(nearestFlag("--bogus", known)).toBeNull();
    expect(nearestFlag("--foo", known)).toBeNull();
    expect(nearestFlag("--verbose", known)).toBeNull();
    expect(nearestFlag("--x", known)).toBeNull();
  });
});

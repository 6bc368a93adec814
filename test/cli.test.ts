import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { main } from "../src/cli.js";

const LOOP = fileURLToPath(new URL("../fixtures/opencode-1.18.33-loop-bash.json", import.meta.url));

async function cli(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, (t) => (stdout += t), (t) => (stderr += t), env);
  return { code, stdout, stderr };
}

describe("replay --json", () => {
  it("prints exactly one object with firstDeny 2 for the shared loop export", async () => {
    const { code, stdout, stderr } = await cli(["replay", LOOP, "--json"]);
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout.trim().split("\n")).toHaveLength(1);
    const report = JSON.parse(stdout);
    expect(Object.keys(report)).toEqual(["sessionID", "compactions", "firstDeny"]);
    expect(report.sessionID).toBe("ses_dd48353bdffeeLNjPk1FftaDqf");
    expect(report.firstDeny).toBe(2);
    expect(report.compactions.map((c: { index: number; decision: string; rule: string | null }) => [c.index, c.decision, c.rule])).toEqual([
      [1, "allow", null],
      [2, "deny", "no-progress"],
      [3, "deny", "repeated-tool-call"],
    ]);
    expect(report.compactions[0]).toMatchObject({ messageID: "msg_22b7cb6d0001bzMcMOyhULTJKu", triggerTokens: 7020, afterTokens: 7020 });
  });

  it("flags and environment change the settings; flags win", async () => {
    const high = JSON.parse((await cli(["replay", LOOP, "--json", "--min-reduction", "0", "--threshold", "4"])).stdout);
    expect(high.firstDeny).toBe(2); // 7,020 ≥ 7,020 × (1 − 0): still no progress
    const env = { OPENCODE_COMPACTION_GUARD_THRESHOLD: "2" };
    expect(JSON.parse((await cli(["replay", LOOP, "--json"], env)).stdout).compactions[1].rule).toBe("repeated-tool-call");
    expect(JSON.parse((await cli(["replay", LOOP, "--json", "--threshold", "3"], env)).stdout).compactions[1].rule).toBe("no-progress");
  });

  it("uses the model limits for opencode's usable context", async () => {
    const report = JSON.parse((await cli(["replay", LOOP, "--json", "--context-limit", "8000", "--output-limit", "2000"])).stdout);
    expect(report.compactions[1].evidence.noProgress.usableTokens).toBe(6000);
  });
});

describe("replay table", () => {
  it("shows one row per compaction and the first deny", async () => {
    const { code, stdout } = await cli(["replay", LOOP]);
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toBe("session ses_dd48353bdffeeLNjPk1FftaDqf: 3 automatic compactions; model limits unknown (see --context-limit and --output-limit)");
    expect(lines[1]).toMatch(/^#\s+compaction message\s+trigger\s+after\s+decision\s+rule$/);
    expect(lines[3]).toMatch(/^2\s+msg_22b7cb90b001Oacj8ldTaTA4T8\s+7,020\s+7,020\s+deny\s+no-progress$/);
    expect(lines.at(-1)).toMatch(/^first deny: compaction 2, no-progress: /);
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
    ["a directory", () => [dir], /: is a directory, expected an opencode export file$/],
    ["an empty file", () => [file("empty.json", "")], /empty\.json: is empty/],
    ["non-JSON", () => [file("text.json", "hello")], /text\.json: is not valid JSON \(.*\); truncated or not an export\?$/],
    ["a truncated export", () => [file("cut.json", '{"info":{"id":"ses_1"},"messages":[{"info"')], /cut\.json: is not valid JSON/],
    ["binary bytes", () => [file("bin.json", Buffer.from([0, 159, 146, 150, 255]))], /bin\.json: is not valid JSON/],
    ["JSON of another shape", () => [file("other.json", "[1,2]")], /other\.json: not an opencode session export \(/],
    ["no messages", () => [file("none.json", '{"info":{"id":"ses_1"},"messages":[]}')], /none\.json: .*messages: the export has no messages\)$/],
    ["an unknown role", () => [file("role.json", '{"info":{"id":"ses_1"},"messages":[{"info":{"id":"m","role":"robot"},"parts":[]}]}')], /role\.json: .*messages\[0\]\.info\.role: /],
    ["a bad flag value", () => [LOOP, "--threshold", "many"], /--threshold: threshold must be an integer from 2 to 1000, got "many"$/],
    ["a bad limit", () => [LOOP, "--context-limit=-5", "--output-limit", "2000"], /--context-limit must be a positive whole number of tokens, got "-5"$/],
    ["an empty limit", () => [LOOP, "--context-limit=", "--output-limit", "2000"], /--context-limit must be a positive whole number of tokens, got ""$/],
    ["a context limit alone (the output limit would count as 32,000)", () => [LOOP, "--context-limit", "8000"], /--context-limit needs --output-limit too/],
    ["an output limit alone", () => [LOOP, "--output-limit", "2000"], /--output-limit needs --context-limit too$/],
    ["an input limit alone", () => [LOOP, "--input-limit", "6000"], /--input-limit needs --context-limit too$/],
    ["a flag without its value", () => [LOOP, "--context-limit", "-5"], /Option '--context-limit' argument is ambiguous.* \(try --help\)$/],
    ["an unknown flag", () => [LOOP, "--frobnicate"], /Unknown option '--frobnicate'.* \(try --help\)$/],
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
    expect(await cli(["replay"])).toMatchObject({ code: 2, stderr: "opencode-compaction-guard: replay needs an export file (or - for standard input)\n" });
  });

  it("--help prints usage and exits 0", async () => {
    const { code, stdout } = await cli(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: opencode-compaction-guard replay <export.json | -> [options]");
  });
});

describe("the executable", () => {
  const run = promisify(execFile);
  const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url));

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

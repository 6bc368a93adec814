/**
 * What a newcomer meets first on the command line: the commands before any command's flags,
 * `help` and `version` as words, negative numbers read as values (and refused as out of
 * range), model limits that must leave a usable context, `--reserved` that cannot act, and
 * audit's inputs (standard input, a folder's `*.json` files only).
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { helpLines, joinNegativeValues } from "../../src/cli/common.js";
import { main } from "../../src/cli/main.js";
import { VERSION } from "../../src/shared/version.js";
import { cli } from "../support/cli.js";

const FIXTURES = fileURLToPath(new URL("../../fixtures", import.meta.url));
const LOOP = join(FIXTURES, "opencode-1.18.33-loop-bash.json");
const HEALTHY = join(FIXTURES, "e2e-healthy.json");
const LIMITS = ["--context-limit", "8000", "--output-limit", "2000"];

describe("help and version", () => {
  it("--help and help list the commands first, before any command's flags", async () => {
    for (const args of [["--help"], ["-h"], ["help"]]) {
      const { code, stdout } = await cli(args);
      expect(code).toBe(0);
      const lines = stdout.split("\n");
      expect(lines[0]).toBe("Usage: opencode-compaction-guard <command> [options]");
      expect(lines[2]).toBe("Commands:");
      expect(lines.filter((l) => /^ {2}(replay|audit|help|version) /.test(l)).map((l) => l.trim().split(" ")[0])).toEqual([
        "replay",
        "audit",
        "help",
        "version",
      ]);
      expect(stdout).not.toContain("--threshold");
    }
  });

  it("help <command> is that command's --help; help of no command is one line, exit 2", async () => {
    expect((await cli(["help", "replay"])).stdout).toBe((await cli(["replay", "--help"])).stdout);
    expect((await cli(["help", "audit"])).stdout).toBe((await cli(["audit", "--help"])).stdout);
    expect((await cli(["help", "audit"])).stdout).toMatch(/^Usage: opencode-compaction-guard audit /);
    expect(await cli(["help", "play"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'opencode-compaction-guard: no command "play" to help with; try help\n',
    });
  });

  it("version, -v and --version print the version", async () => {
    for (const args of [["version"], ["-v"], ["--version"], ["audit", "--version"]]) {
      expect(await cli(args)).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    }
  });

  it("every help line fits in 100 columns", async () => {
    for (const args of [["help"], ["help", "replay"], ["help", "audit"]]) {
      const long = (await cli(args)).stdout.split("\n").filter((l) => l.length > 100);
      expect(long).toEqual([]);
    }
  });

  it("helpLines wraps a long help under itself, at word boundaries", () => {
    const text = helpLines("--flag N", `${"word ".repeat(30)}end`);
    const lines = text.split("\n");
    expect(lines.length).toBe(3);
    expect(lines[0]!.startsWith("  --flag N               word")).toBe(true);
    expect(lines.slice(1).every((l) => /^ {25}\S/.test(l))).toBe(true);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
    expect(text.replace(/\s+/g, " ")).toBe(`--flag N ${"word ".repeat(30)}end`.replace(/^/, " ").replace(/\s+/g, " "));
  });

  it("an internal error says where to report it", async () => {
    let stderr = "";
    // A progress stream whose isTTY getter throws: a failure no input can cause.
    const progress = Object.defineProperty({}, "isTTY", {
      get() {
        throw new Error("boom");
      },
    }) as NodeJS.WritableStream;
    const code = await main(
      ["audit", HEALTHY, "--context-limit", "8000", "--output-limit", "2000"],
      () => {},
      (t) => (stderr += t),
      {},
      progress,
    );
    expect(code).toBe(1);
    expect(stderr).toBe(
      `opencode-compaction-guard: internal error: boom (please report it (see the README's "Report a bug"), with this line and version ${VERSION})\n`,
    );
  });
});

describe("a negative number after a flag is its value, and out of range", () => {
  it("joinNegativeValues joins -5 to a flag that takes a value, nothing else", () => {
    const options = { "context-limit": { type: "string" }, json: { type: "boolean" } };
    expect(joinNegativeValues(["replay", "--context-limit", "-5", "--json", "-3"], options)).toEqual([
      "replay",
      "--context-limit=-5",
      "--json",
      "-3",
    ]);
    expect(joinNegativeValues(["--context-limit", "-.5"], options)).toEqual(["--context-limit=-.5"]);
    expect(joinNegativeValues(["--context-limit", "--json"], options)).toEqual(["--context-limit", "--json"]);
  });

  it.each([
    [
      ["replay", LOOP, "--context-limit", "-5", "--output-limit", "2000"],
      "--context-limit -5 is out of range: a whole number of tokens from 1 to 100,000,000",
    ],
    [["replay", LOOP, "--threshold", "-3"], "--threshold: threshold must be an integer from 2 to 1000, got -3"],
    [["replay", LOOP, ...LIMITS, "--reserved", "-1"], "--reserved -1 is out of range: a whole number of tokens from 0 to 100,000,000"],
    [["audit", HEALTHY, "--since", "-1"], '--since must be an ISO date (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]), got "-1"'],
    [
      ["audit", HEALTHY, "--context-limit", "-5", "--output-limit", "2000"],
      "--context-limit -5 is out of range: a whole number of tokens from 1 to 100,000,000",
    ],
  ])("%j", async (args, line) => {
    expect(await cli(args)).toEqual({ code: 2, stdout: "", stderr: `opencode-compaction-guard: ${line}\n` });
  });
});

describe("model limits must be physical and leave a usable context", () => {
  it.each([
    [
      ["--context-limit", "99999999999999999999999", "--output-limit", "2000"],
      "--context-limit 99999999999999999999999 is out of range: a whole number of tokens from 1 to 100,000,000",
    ],
    [
      ["--context-limit", "8000", "--output-limit", "200000000"],
      "--output-limit 200000000 is out of range: a whole number of tokens from 1 to 100,000,000",
    ],
    [
      ["--input-limit", "100", ...LIMITS],
      "--input-limit 100 minus the 2,000 tokens opencode reserves (min(20,000, --output-limit)) leaves no usable context: opencode would compact before every step",
    ],
    [
      ["--input-limit", "6500", ...LIMITS, "--reserved", "7000"],
      "--input-limit 6500 minus --reserved 7000 leaves no usable context: opencode would compact before every step",
    ],
  ])("replay %j: one line, exit 2", async (flags, line) => {
    expect(await cli(["replay", LOOP, ...flags])).toEqual({ code: 2, stdout: "", stderr: `opencode-compaction-guard: ${line}\n` });
  });

  it("the largest allowed limits still replay", async () => {
    const run = await cli(["replay", LOOP, "--context-limit", "100000000", "--output-limit", "2000", "--json"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
  });

  it("--reserved without an input limit warns that it has no effect, and the replay runs", async () => {
    const WARNING =
      "warning: --reserved 700 has no effect: opencode's compaction.reserved only moves the usable line of a model with an input limit (--input-limit)\n";
    const run = await cli(["replay", LOOP, ...LIMITS, "--reserved", "700", "--json"]);
    expect([run.code, run.stderr, JSON.parse(run.stdout).firstDeny]).toEqual([0, WARNING, 1]);
    expect((await cli(["replay", LOOP, "--reserved", "700", "--json"])).stderr).toBe(WARNING);
    expect((await cli(["audit", HEALTHY, "--reserved", "700", "--json"])).stderr).toBe(WARNING);
    // With an input limit it moves the line: no warning.
    expect((await cli(["replay", LOOP, ...LIMITS, "--input-limit", "7000", "--reserved", "700", "--json"])).stderr).toBe("");
    // audit with no path: opencode's limits may have an input limit; only opencode's absence is said.
    const noPath = await cli(["audit", "--reserved", "700", "--opencode", "/nonexistent/bin/opencode"]);
    expect(noPath.stderr).not.toContain("--reserved");
  });
});

describe("audit's inputs", () => {
  it("audit - reads one export from standard input", async () => {
    const { Readable } = await import("node:stream");
    const { readExport } = await import("../../src/sources/export.js");
    expect(readExport).toBeTypeOf("function");
    const original = Object.getOwnPropertyDescriptor(process, "stdin")!;
    Object.defineProperty(process, "stdin", { value: Readable.from([readFileSync(HEALTHY)]), configurable: true });
    try {
      const run = await cli(["audit", "-", ...LIMITS, "--json"]);
      expect(run.code).toBe(0);
      const json = JSON.parse(run.stdout);
      expect(json.totals.sessions).toBe(1);
      expect(json.sessions.map((s: { sessionID: string; source: string }) => [s.sessionID, s.source])).toEqual([
        ["ses_dd42f0d8effeNfBHsd3ylExYB1", "-"],
      ]);
    } finally {
      Object.defineProperty(process, "stdin", original);
    }
  });

  it("a folder: only its *.json files are read; the others are counted in one line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-cli-"));
    copyFileSync(HEALTHY, join(dir, "a.json"));
    copyFileSync(LOOP, join(dir, "b.JSON"));
    writeFileSync(join(dir, "screen.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    writeFileSync(join(dir, "run.log"), "INFO started\n");
    copyFileSync(HEALTHY, join(dir, "export.txt"));
    const run = await cli(["audit", dir, ...LIMITS, "--json"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("passed over 3 files in the folders given: only *.json and *.jsonl files are read there\n");
    expect(JSON.parse(run.stdout).totals.sessions).toBe(2);
    // A file named on the command line is read whatever its name.
    const named = await cli(["audit", join(dir, "export.txt"), ...LIMITS, "--json"]);
    expect([named.code, named.stderr, JSON.parse(named.stdout).totals.sessions]).toEqual([0, "", 1]);
  });
});

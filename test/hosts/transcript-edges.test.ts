/**
 * Transcripts at their edges: a first message of megabytes, lines passed over (a torn last
 * line, record kinds not read), files that start with (or hold only) Claude Code's records
 * about a session, an empty agent folder, and what help and errors say about `.jsonl` files.
 * Every file here is made by the test.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../support/cli.js";
import { titleOf } from "../../src/hosts/transcript.js";
import { transcriptAgent } from "../../src/hosts/read.js";

const FIXTURES = new URL("../../fixtures/", import.meta.url).pathname;
const CONVERSATION = join(FIXTURES, "claude-code/claude-code-2.1.0-compact-after-rewind.jsonl");
const tempDir = () => mkdtempSync(join(tmpdir(), "hosts-edges-"));
const jsonl = (records: readonly unknown[]) => records.map((r) => `${JSON.stringify(r)}\n`).join("");

/** Claude Code's records about a session, in the shapes it writes them (2.x). */
const summaries = (n: number) => Array.from({ length: n }, (_, i) => ({ type: "summary", summary: `Topic ${i}`, leafUuid: `x${i}` }));
const snapshots = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    type: "file-history-snapshot",
    messageId: `m${i}`,
    snapshot: { messageId: `m${i}`, trackedFileBackups: {}, timestamp: "2026-02-03T14:20:23.301Z" },
    isSnapshotUpdate: false,
  }));

describe("a first message of megabytes", () => {
  const huge = () => {
    const file = join(tempDir(), "cc6.jsonl");
    const content = "x".repeat(6 * 2 ** 20);
    writeFileSync(file, jsonl([{ type: "user", sessionId: "s", message: { role: "user", content } }]));
    return file;
  };

  it("titles the session with its first 80 characters", () => {
    expect(titleOf(`${"x".repeat(6 * 2 ** 20)}\nsecond line`)).toBe("x".repeat(80));
  });

  it("replay and audit read it", async () => {
    const file = huge();
    const replayed = await cli(["replay", file]);
    expect([replayed.code, replayed.stdout.split("\n")[0], replayed.stderr]).toEqual([
      0,
      "session s: 0 automatic compactions; usable context 167,000 tokens",
      "",
    ]);
    const audited = await cli(["audit", file, "--json"]);
    expect([audited.code, JSON.parse(audited.stdout).totals.sessions, audited.stderr]).toEqual([0, 1, ""]);
  });
});

describe("lines passed over", () => {
  it("replay says in one warning what it passed over; standard output is as without those lines", async () => {
    const dir = tempDir();
    const torn = join(dir, "torn.jsonl");
    writeFileSync(torn, `${readFileSync(CONVERSATION, "utf8")}{"type":"hologram","x":1}\n{"type":"user","mess`);
    const whole = await cli(["replay", CONVERSATION]);
    const read = await cli(["replay", torn]);
    expect([read.code, read.stdout]).toEqual([0, whole.stdout]);
    expect(read.stderr).toBe(`warning: ${torn}: 1 line is not JSON (torn or damaged; passed over); record kinds not read: hologram\n`);
  });

  it("audit says it per file, and reads the others", async () => {
    const dir = tempDir();
    copyFileSync(join(FIXTURES, "claude-code/claude-code-2.0.46-sidechain.jsonl"), join(dir, "a.jsonl"));
    writeFileSync(join(dir, "b.jsonl"), `${readFileSync(CONVERSATION, "utf8")}not json\nnot json either\n`);
    const { code, stdout, stderr } = await cli(["audit", dir, "--json"]);
    expect([code, JSON.parse(stdout).totals.sessions]).toEqual([0, 2]);
    expect(stderr).toBe(`warning: ${join(dir, "b.jsonl")}: 2 lines are not JSON (torn or damaged; passed over)\n`);
  });
});

describe("Claude Code's records about a session", () => {
  it("are passed over to tell the agent, however many come first", () => {
    const conversation = readFileSync(CONVERSATION, "utf8");
    expect(transcriptAgent(jsonl(summaries(60)) + conversation)).toBe("claude-code");
    expect(transcriptAgent(jsonl(snapshots(60)) + conversation)).toBe("claude-code");
    expect(transcriptAgent(jsonl([{ type: "summary", summary: "no leaf" }]))).toBeNull();
  });

  it("before a conversation: replay reads it as without them", async () => {
    const dir = tempDir();
    const file = join(dir, "s.jsonl");
    writeFileSync(file, jsonl([...summaries(30), ...snapshots(30)]) + readFileSync(CONVERSATION, "utf8"));
    const [plain, read] = [await cli(["replay", CONVERSATION]), await cli(["replay", file])];
    expect([read.code, read.stdout, read.stderr]).toEqual([0, plain.stdout, ""]);
  });

  it("alone: one line that says so, exit 2", async () => {
    const dir = tempDir();
    for (const [name, records] of [
      ["summaries.jsonl", summaries(60)],
      ["snapshots.jsonl", snapshots(60)],
    ] as const) {
      writeFileSync(join(dir, name), jsonl(records));
      const { code, stderr } = await cli(["replay", join(dir, name)]);
      expect([code, stderr]).toEqual([
        2,
        `opencode-compaction-guard: ${join(dir, name)}: is a Claude Code transcript with no conversation (only summary or file-history-snapshot records)\n`,
      ]);
    }
  });
});

describe("what audit --agent says about the agent's folder", () => {
  it("empty: no Claude Code transcript in it", async () => {
    const home = tempDir();
    mkdirSync(join(home, "projects"));
    const { code, stdout, stderr } = await cli(["audit", "--agent", "claude-code"], { CLAUDE_CONFIG_DIR: home });
    expect([code, stdout, stderr]).toEqual([
      2,
      "",
      `opencode-compaction-guard: nothing to audit: no Claude Code transcript in ${join(home, "projects")}\n`,
    ]);
  });

  it("holding only files passed over: they are named, then the one line", async () => {
    const home = tempDir();
    mkdirSync(join(home, "sessions"));
    writeFileSync(join(home, "sessions", "x.jsonl"), "");
    const { code, stderr } = await cli(["audit", "--agent", "codex"], { CODEX_HOME: home });
    const folder = join(home, "sessions");
    expect([code, stderr]).toEqual([
      2,
      `skipped ${join(folder, "x.jsonl")}: is empty, expected an opencode export or a Claude Code or Codex transcript\n` +
        `opencode-compaction-guard: nothing to audit: no Codex transcript in ${folder} could be read (each file passed over is named above)\n`,
    ]);
  });
});

describe("what help and errors say about transcripts", () => {
  it.each([[["--help"]], [["replay", "--help"]], [["audit", "--help"]]])("%j names Claude Code and Codex transcripts", async (argv) => {
    const { code, stdout } = await cli(argv);
    expect(code).toBe(0);
    expect(stdout.replace(/\s+/g, " ")).toMatch(/Claude Code (or|\/) Codex transcript/);
  });

  it("a .jsonl that is no transcript is told both things it could have been", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "x.jsonl"), '{"a":1}\n{"b":2}\n');
    const { code, stderr } = await cli(["replay", join(dir, "x.jsonl")]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /x\.jsonl: is not valid JSON \(.*\); neither an opencode export nor a Claude Code or Codex transcript, or cut short\?\n$/,
    );
  });
});

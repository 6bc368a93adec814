/** `replay` and `audit` on Claude Code and Codex transcripts: told apart by content, `audit --agent` reads the agent's folder. */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli } from "../support/cli.js";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { toClaudeCode, toCodex } from "../support/transcripts.js";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";

const FIXTURES = new URL("../../fixtures/", import.meta.url).pathname;
const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

async function run(argv: string[], env: Record<string, string> = {}) {
  const { code, stdout, stderr } = await cli(argv, env);
  return { code, out: stdout, err: stderr };
}

describe("replay", () => {
  it("a Codex rollout: its compaction row, the usable line its window gives, what a deny means for Codex", async () => {
    const { code, out } = await run(["replay", join(FIXTURES, "codex/codex-0.104.0-alpha.1-compacted.jsonl")]);
    expect(code).toBe(0);
    expect(out.split("\n")).toEqual([
      "session 019c8a59-e9dd-71f0-9ae3-4079fe9726a9: 1 automatic compaction; usable context 244,800 tokens",
      "#  compaction message  trigger   after  decision  rule",
      "1  line-220            212,134  48,297  allow     -",
      "no deny: the guard would have let every continue turn through",
      'Codex transcript: Codex has no continue turn; it goes on in the same turn after compacting. Read "continue turn" as that going on: at a deny, the guard would have stopped the turn there (docs/audit.md).',
      "",
    ]);
  });

  it("a loop written as a Claude Code transcript is denied where opencode's export is (--json)", async () => {
    const dir = tempDir("hosts-cli-");
    const messages = (JSON.parse(readFileSync(join(FIXTURES, "judgement/four-read-cycle.json"), "utf8")) as { messages: unknown[] })
      .messages;
    writeFileSync(join(dir, "loop.jsonl"), toClaudeCode(buildTimeline(messages)));
    writeFileSync(join(dir, "loop-codex.jsonl"), toCodex(buildTimeline(messages)));
    for (const file of ["loop.jsonl", "loop-codex.jsonl"]) {
      const { code, out } = await run(["replay", join(dir, file), "--json"]);
      expect(code).toBe(0);
      expect(JSON.parse(out).firstDeny).toBe(2);
    }
  });

  it("a transcript of one line (which parses as one JSON document) is still read as the agent's", async () => {
    const dir = tempDir("hosts-cli-");
    const first = readFileSync(join(FIXTURES, "codex/codex-0.144.1-context-compacted.jsonl"), "utf8").split("\n")[0]!;
    writeFileSync(join(dir, "one.jsonl"), `${first}\n`);
    const { code, out } = await run(["replay", join(dir, "one.jsonl"), "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ sessionID: "root-session", compactions: [] });
  });

  it("a .jsonl that is no agent's transcript is one line, exit 2", async () => {
    const dir = tempDir("hosts-cli-");
    writeFileSync(join(dir, "x.jsonl"), '{"a":1}\n{"b":2}\n');
    const { code, err } = await run(["replay", join(dir, "x.jsonl")]);
    expect(code).toBe(2);
    expect(err.trim().split("\n")).toHaveLength(1);
  });
});

describe("audit", () => {
  it("--agent claude-code reads $CLAUDE_CONFIG_DIR/projects, --agent codex $CODEX_HOME/sessions, with an agent column and totals per agent", async () => {
    const home = tempDir("hosts-cli-");
    mkdirSync(join(home, "claude/projects/-p"), { recursive: true });
    mkdirSync(join(home, "codex/sessions/2026/02/24"), { recursive: true });
    copyFileSync(join(FIXTURES, "claude-code/claude-code-2.1.0-compact-after-rewind.jsonl"), join(home, "claude/projects/-p/s1.jsonl"));
    copyFileSync(join(FIXTURES, "codex/codex-0.144.1-context-compacted.jsonl"), join(home, "codex/sessions/2026/02/24/rollout-1.jsonl"));
    const claude = await run(["audit", "--agent", "claude-code", "--json"], { CLAUDE_CONFIG_DIR: join(home, "claude") });
    expect(claude.code).toBe(0);
    expect(
      JSON.parse(claude.out).sessions.map((s: { agent: string; sessionID: string; usable: number }) => [s.agent, s.sessionID, s.usable]),
    ).toEqual([["claude-code", "s1", 155_000]]);
    const codex = await run(["audit", "--agent", "codex"], { CODEX_HOME: join(home, "codex") });
    expect(codex.code).toBe(0);
    expect(codex.out).toMatch(/^agent  session/);
    expect(codex.out).toContain("by agent (listed): codex 1 (0 looping, 0 tokens saved)");
  });

  it("--agent takes no path and only the two agents", async () => {
    expect((await run(["audit", "--agent", "gemini"])).err).toMatch(/--agent must be claude-code or codex/);
    expect((await run(["audit", FIXTURES, "--agent", "codex"])).err).toMatch(/--agent is for audit with no path/);
  });
});

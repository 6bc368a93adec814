/**
 * What a stop tells the user comes from the host it judged (model/host-words.ts): a Claude Code
 * or Codex session is told its own config, never opencode's; an opencode session keeps its words.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { claudeCodeLive } from "../../src/live/claude-code.js";
import { live as codexLive } from "../../src/live/codex.js";
import { hostWords } from "../../src/hosts/read.js";
import { CLAUDE_CODE_WORDS } from "../../src/hosts/claude-code/words.js";
import { CODEX_WORDS } from "../../src/hosts/codex/words.js";
import { OPENCODE_WORDS } from "../../src/hosts/opencode/words.js";
import { main } from "../../src/cli/main.js";
import type { AgentLive } from "../../src/live/agent.js";
import { toClaudeCode, toCodex } from "../support/transcripts.js";
import { SessionBuilder } from "../support/session.js";

/**
 * Two automatic compactions; the first step after compaction 1 keeps 9,500 of `trigger` tokens:
 * no-progress denies compaction 2 (of 10,000: a cut under 10%).
 */
function stalled(trigger = 10_000): SessionBuilder {
  const session = new SessionBuilder("ses_w").user();
  session.step({ tool: "read", input: { filePath: "a" } }, trigger).compact();
  session.step({ tool: "read", input: { filePath: "b" } }, 9_500).compact();
  return session;
}

const file = (name: string, text: string): string => {
  const path = join(mkdtempSync(join(tmpdir(), "host-words-")), name);
  writeFileSync(path, text);
  return path;
};

/**
 * What a live hook answers to one `event` of a session whose transcript is `text` (written to
 * a file first), parsed; run with no settings file anywhere.
 */
async function hookReply(live: AgentLive, event: string, text: string, extra: Record<string, unknown>): Promise<{ stopReason: string }> {
  const home = mkdtempSync(join(tmpdir(), "host-words-home-"));
  const reply = await live.handle(
    { session_id: "s", transcript_path: file("session.jsonl", text), cwd: home, hook_event_name: event, ...extra },
    { env: { HOME: home, XDG_CONFIG_HOME: join(home, "xdg") }, cwd: home, home },
  );
  return JSON.parse(reply.stdout!) as { stopReason: string };
}

describe("each host's words", () => {
  it("name each host's own config, and no other's", () => {
    expect([hostWords("claude-code"), hostWords("codex"), hostWords(undefined)]).toEqual([CLAUDE_CODE_WORDS, CODEX_WORDS, OPENCODE_WORDS]);
    for (const words of [CLAUDE_CODE_WORDS, CODEX_WORDS])
      expect(JSON.stringify(words)).not.toMatch(/opencode|compaction\.prune|keep\.tokens/i);
    expect(CLAUDE_CODE_WORDS.freeContext).toContain("CLAUDE.md");
    expect(CODEX_WORDS.freeContext).toContain("model_auto_compact_token_limit");
    expect(CODEX_WORDS.freeContext).toContain("~/.codex/config.toml");
  });
});

describe("the stop texts of a no-progress loop, by host", () => {
  it("Claude Code's hook names Claude Code's remedies, not opencode.json", async () => {
    const reply = await hookReply(claudeCodeLive, "PreToolUse", toClaudeCode(buildTimeline(stalled().messages)), { tool_name: "Read" });
    expect(reply.stopReason).toMatch(/^Compaction loop stopped by compaction-guard after compaction 2: no-progress: /);
    expect(reply.stopReason).toContain(`Next: Reply to continue, or start a new session, or ${CLAUDE_CODE_WORDS.freeContext}.`);
    expect(reply.stopReason).not.toContain("opencode");
  });

  it("Codex's hook names Codex's config.toml keys, not opencode.json", async () => {
    const stop = await hookReply(codexLive, "SessionStart", toCodex(buildTimeline(stalled().messages)), { source: "compact" });
    expect(stop.stopReason).toMatch(/^Compaction loop stopped by compaction-guard at compaction 2: no-progress: /);
    expect(stop.stopReason).toContain(`Reply to continue, or start a new session, or ${CODEX_WORDS.freeContext}.`);
    expect(stop.stopReason).not.toContain("opencode");
  });

  it("replay's first deny names the agent's usable context for a transcript, opencode's for an export", async () => {
    // Cut from 11,000 to 9,500 (more than 10%), still over a usable context of 9,000 (12,000 context − 3,000 output).
    const flags = ["--context-limit", "12000", "--output-limit", "3000"];
    const replay = async (path: string) => {
      let out = "";
      expect(
        await main(
          ["replay", path, ...flags],
          (t) => void (out += t),
          () => undefined,
          {},
        ),
      ).toBe(0);
      return out.split("\n").find((line) => line.startsWith("first deny:"));
    };
    const timeline = buildTimeline(stalled(11_000).messages);
    expect(await replay(file("cc.jsonl", toClaudeCode(timeline)))).toContain("still over Claude Code's usable context of 9,000 tokens");
    expect(await replay(file("codex.jsonl", toCodex(timeline)))).toContain("still over Codex's usable context of 9,000 tokens");
    expect(await replay(file("export.json", JSON.stringify(stalled(11_000).export())))).toContain(
      "still over opencode's usable context of 9,000 tokens",
    );
  });

  it("replay --chart's legend names whose usable context the flat line is", async () => {
    const chart = async (path: string) => {
      let out = "";
      const flags = ["--chart", "--context-limit", "12000", "--output-limit", "3000"];
      expect(
        await main(
          ["replay", path, ...flags],
          (t) => void (out += t),
          () => undefined,
          { COLUMNS: "200" },
        ),
      ).toBe(0);
      return out;
    };
    const timeline = buildTimeline(stalled(11_000).messages);
    expect(await chart(file("cc.jsonl", toClaudeCode(timeline)))).toContain("← usable: Claude Code's usable context, 9,000 tokens");
    expect(await chart(file("codex.jsonl", toCodex(timeline)))).toContain("← usable: Codex's usable context, 9,000 tokens");
    expect(await chart(file("export.json", JSON.stringify(stalled(11_000).export())))).toContain(
      "← usable: opencode's usable context, 9,000 tokens",
    );
  });
});

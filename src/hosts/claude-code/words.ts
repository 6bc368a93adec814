/**
 * Claude Code's words for the texts about a verdict (model/host-words.ts), from its docs
 * (code.claude.com/docs: settings, memory, MCP, slash commands; docs/other-agents.md says
 * which): user settings in `~/.claude/settings.json`, the instructions it loads into every
 * request from CLAUDE.md, MCP servers managed with `/mcp`, the model chosen with `/model`.
 * Its auto-compact settings are left out on purpose: the docs let them only move compaction
 * earlier (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "values above the default threshold have no
 * effect"), which frees nothing. It has no setting for how much recent history compaction keeps.
 */
import type { HostWords } from "../../model/host-words.js";

/** Claude Code's words. */
export const CLAUDE_CODE_WORDS: HostWords = Object.freeze({
  name: "Claude Code",
  config: "~/.claude/settings.json",
  freeContext: "free context (a shorter CLAUDE.md, fewer MCP servers with /mcp, a model with a larger context with /model)",
  smallerBase: "a shorter CLAUDE.md or fewer MCP servers (/mcp)",
  keepRecent: null,
});

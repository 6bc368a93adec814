/**
 * opencode's words for the texts about a verdict (model/host-words.ts): its config file
 * (opencode.json, as opencode 1.18.33's config schema names the keys) and the settings that
 * free context: `compaction.prune` (prune old tool outputs), a model with a larger context,
 * and how much recent history compaction keeps (V1 `compaction.preserve_recent_tokens`, the
 * V2 runner's `keep.tokens`).
 */
import type { HostWords } from "../../model/host-words.js";

/** opencode's words, as its V1 hooks and exports are told. */
export const OPENCODE_WORDS: HostWords = Object.freeze({
  name: "opencode",
  config: "opencode.json",
  freeContext: "free context (compaction.prune, a model with a larger context) in opencode.json",
  smallerBase: "a smaller system prompt or instructions (AGENTS.md)",
  keepRecent: "compaction.preserve_recent_tokens",
});

/** opencode's words for a session of its V2 runner: the same, but the runner keeps `keep.tokens` of recent history. */
export const OPENCODE_V2_WORDS: HostWords = Object.freeze({ ...OPENCODE_WORDS, keepRecent: "keep.tokens" });

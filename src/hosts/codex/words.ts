/**
 * Codex's words for the texts about a verdict (model/host-words.ts), from its config reference
 * (docs/config.md, developers.openai.com/codex/config-reference; docs/other-agents.md says
 * which): `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`);
 * `model_auto_compact_token_limit`, "token threshold that triggers automatic history
 * compaction (unset uses model defaults)": set below what a compaction leaves, every turn
 * compacts again; `model`; AGENTS.md, read up to `project_doc_max_bytes` into the first turn's
 * instructions. It has no setting for how much recent history compaction keeps.
 */
import type { HostWords } from "../../model/host-words.js";

/** Codex's words. */
export const CODEX_WORDS: HostWords = Object.freeze({
  name: "Codex",
  config: "~/.codex/config.toml",
  freeContext:
    "free context (raise model_auto_compact_token_limit or leave it unset, or set a model with a larger context) in ~/.codex/config.toml",
  smallerBase: "a shorter AGENTS.md (or a lower project_doc_max_bytes in ~/.codex/config.toml)",
  keepRecent: null,
});

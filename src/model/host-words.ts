/**
 * What a host's user is told in the host's own words: what it is called, where its config
 * lives, and what its config offers when compaction cannot make room. Plain data a host
 * supplies (hosts/opencode/words.ts, hosts/claude-code/words.ts, hosts/codex/words.ts), so
 * that no rule and no notice names a host's file or setting. Sibling of ./host-facts.ts: the
 * facts feed the decision, the words only the texts about it.
 */

/** A host's words, as its docs name things. Each field is a phrase that fits a sentence as documented. */
export interface HostWords {
  /** What the host is called in a sentence: `opencode`, `Claude Code`, `Codex`. */
  readonly name: string;
  /** The config file the user edits, as the user would name it: `opencode.json`, `~/.codex/config.toml`. */
  readonly config: string;
  /**
   * What frees context when compactions no longer do, as a clause after "or": the next step
   * of back-to-back-compactions and no-progress reads `Reply to continue, or start a new
   * session, or <freeContext>.`
   */
  readonly freeContext: string;
  /**
   * What every request carries that the user can make smaller, after "with": cannot-make-room's
   * next step reads `Start a new session with <smallerBase>, or switch to a model with a larger context: …`.
   */
  readonly smallerBase: string;
  /**
   * The setting for how much recent history a compaction keeps verbatim (tokens), named as in
   * the config file; null where the host offers none. The stop note's fix reads `lower <keepRecent> in <config>`.
   */
  readonly keepRecent: string | null;
}

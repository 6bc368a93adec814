/**
 * The guard inside another agent, through that agent's own hook system (Claude Code's
 * `settings.json` hooks, Codex's hook configuration). Each hook invocation is one short process
 * (`opencode-compaction-guard hook <agent>`): it reads the hook's JSON on standard input, judges
 * the session from the agent's transcript on disk, and answers on standard output in the form
 * the agent's hooks read. Each agent implements this in `live/<agent>.ts`.
 */

/** The agents the guard can be installed into. */
export type LiveAgent = "claude-code" | "codex";

/** Where the hooks go: the user's config (`~/.claude`, `~/.codex`) or this project's. */
export type InstallScope = "user" | "project";

/** What one hook invocation answers. */
export interface HookReply {
  /** Written to standard output as is (the agent's hook JSON, or plain text), or nothing. */
  readonly stdout: string | null;
  /** Written to standard error (shown by some agents to the user or the model), or nothing. */
  readonly stderr: string | null;
  /** The process's exit code (agents read 0 as "go on" and some read 2 as "blocked"). */
  readonly exitCode: number;
}

/** What `install` or `uninstall` changed, one line per change, for the user to read. */
export interface InstallReport {
  /** The config file written. */
  readonly file: string;
  /** One line each: what was added, replaced or removed. Empty when nothing changed. */
  readonly changes: readonly string[];
  /** One line each: what the user must still do by hand, or what could not be done. */
  readonly notes?: readonly string[];
}

/** Where a live hook runs: its environment, working directory and home. */
export interface LiveContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly home: string;
}

/** One agent's live guard: its hooks and their installer. */
export interface AgentLive {
  readonly agent: LiveAgent;
  /**
   * Answers one hook invocation.
   * @param input the hook's standard input, parsed as JSON (unknown: checked here).
   * @returns the reply; never throws: bad input or a transcript that cannot be read answers
   *   "go on" (exit 0, nothing on stdout) with a one-line warning on stderr, so the agent runs as
   *   it would without the guard.
   */
  handle(input: unknown, context: LiveContext): Promise<HookReply>;
  /**
   * Merges the guard's hooks into the agent's config for `scope`, leaving every other setting
   * as it was; running it twice changes nothing the second time.
   * @param command how the hook runs the guard (e.g. `npx -y opencode-compaction-guard hook claude-code`).
   * @throws an Error with a one-line message when the config exists but cannot be parsed.
   */
  install(scope: InstallScope, command: string, context: LiveContext): Promise<InstallReport>;
  /** Removes exactly what `install` added; the rest of the config stays as it was. */
  uninstall(scope: InstallScope, context: LiveContext): Promise<InstallReport>;
}

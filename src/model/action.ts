/**
 * What a tool call does, in words no host owns: each host (hosts/<name>/) reads its own tools'
 * names and inputs into one {@link Action}, and the judge reads the action, never a host's
 * tool name nor its raw input.
 */

/** What a shell command does, as shell/role.ts `commandRole` reads it: it only reads, it checks (a test run, a build), or it may change things. */
export type CommandRole = "read" | "check" | "effect";

/** A shell command a call runs, with what the host's shell reader (shell/) made of it. */
export interface ShellRun {
  /** The command as the call gave it. */
  readonly text: string;
  /** What it does (shell/role.ts `commandRole`). */
  readonly role: CommandRole;
  /** The file it shows, when it only shows one (shell/role.ts `shownFile`). */
  readonly shows: string | undefined;
  /** Its simple commands, `bash -c` bodies read (shell/command.ts `commandLines` of the trimmed text): what the `ignore` setting matches. */
  readonly lines: readonly string[];
}

/** What a call asked for, as calls are compared: made by the host from the call's input. */
export interface Asked {
  /**
   * The canonical JSON (sorted keys) of the input as calls are compared: without the
   * free-text label a host's tools ask for, and, but for an edit's or a write's input, with
   * the ids a run hands the model replaced.
   */
  readonly comparable: string;
  /** The canonical JSON of the whole input. */
  readonly json: string;
  /** The input's scalar values at any depth, as strings: what an answer may echo. */
  readonly values: ReadonlySet<string>;
  /** The file or folder the input names (its file path, else its path), or null. */
  readonly path: string | null;
}

/** One edit of a file: `oldString` replaced by `newString` (every match when `replaceAll`). */
export interface Edit {
  readonly oldString: string;
  readonly newString: string;
  readonly replaceAll: boolean;
}

/** Reads a file, or part of it; `numbered`: its answer shows the file's lines with their numbers. */
export interface ReadAction {
  readonly kind: "read";
  /** The file it reads, when the input names one. */
  readonly file: string | undefined;
  readonly offset: number | undefined;
  readonly limit: number | undefined;
  readonly numbered: boolean;
}

/** Searches files, code or the web: `engine` names how (`grep`, `glob`, `list`, `code` …). */
export interface SearchAction {
  readonly kind: "search";
  readonly engine: string;
  readonly pattern: string | undefined;
  /** It asks something outside the session's files (a code search service): compared by what came back. */
  readonly asking: boolean;
}

/** Runs the host's shell tool; `run` undefined when its input gives no command. */
export interface ShellAction {
  readonly kind: "shell";
  readonly run: ShellRun | undefined;
}

/** Changes a file by edits; `edits` undefined for a patch, or an input that is not one. */
export interface EditAction {
  readonly kind: "edit";
  readonly edits: readonly Edit[] | undefined;
}

/** Writes a file whole; `content` undefined when the input holds none. */
export interface WriteAction {
  readonly kind: "write";
  readonly content: string | undefined;
}

/** Hands a task to a subagent; `readOnly`: one that cannot change anything. */
export interface DelegateAction {
  readonly kind: "delegate";
  readonly agent: string;
  readonly prompt: string;
  readonly readOnly: boolean;
}

/** Waits on purpose for the world outside to move before it looks (`seconds`: how long at least; Infinity: until something changes). */
export interface WaitAction {
  readonly kind: "wait";
  readonly seconds: number;
  /** The shell command it runs, when it waits in one. */
  readonly run: ShellRun | undefined;
  /** It runs one of the host's shell tools (the `ignore` setting reads its command). */
  readonly shell: boolean;
}

/** Fetches a page or asks a web search. */
export interface FetchAction {
  readonly kind: "fetch";
  readonly url: string | undefined;
  readonly query: string | undefined;
}

/** Bookkeeping that neither reads nor changes the world (a todo list). */
export interface PlanAction {
  readonly kind: "plan";
}

/**
 * Any other tool (an MCP or custom one): `asking`, it only looks things up and is compared by
 * what came back; `reads`, its name says it only reads; `run`, the shell command it runs, if any.
 */
export interface OtherAction {
  readonly kind: "other";
  readonly asking: boolean;
  readonly reads: boolean;
  readonly run: ShellRun | undefined;
}

/** What a tool call does, with what it asked for. */
export type Action = (
  | ReadAction
  | SearchAction
  | ShellAction
  | EditAction
  | WriteAction
  | DelegateAction
  | WaitAction
  | FetchAction
  | PlanAction
  | OtherAction
) & { readonly asked: Asked };

/**
 * The pieces each host builds its tools' actions from (model/action.ts): what a call asked
 * for, the shell command it runs, a tool's own wait parameters, and the naming habits of MCP
 * and custom tools. A host's own table (hosts/<name>/) says which of its tools is which.
 */
import type { Action, Asked, Edit, ShellRun } from "../model/action.js";
import { canonicalJson, MAX_DEPTH } from "../shared/canonical-json.js";
import { isRecord } from "../shared/record.js";
import { commandLines, durationSeconds } from "../shell/command.js";
import { commandRole, shownFile } from "../shell/role.js";
import { commandWaitSeconds } from "../shell/wait.js";

/** What an action is, before the host adds what it asked for. */
export type Bare = Action extends infer A ? (A extends unknown ? Omit<A, "asked"> : never) : never;

/**
 * Ids that a run hands the model and the model copies into its next call's input: opencode's
 * saved full output (`tool-output/tool_<id>`, new on every call), a child session id
 * (`ses_…`), a file `mktemp` named (`/tmp/tmp.Xa81kQz9Lp`, macOS's `/var/folders/…/T/…`).
 * Anything else in an input is what the model chose, and stays: a UUID or a container id in
 * `curl -X DELETE …/<uuid>` names which thing the call acts on.
 */
const COPIED_ID =
  /tool-output\/tool_[A-Za-z0-9]+|\bses_[A-Za-z0-9]+|\/tmp\/tmp\.[A-Za-z0-9]{6,}|(?:\/private)?\/var\/folders\/[^\s'"`)\]]+/g;

/** Text every match of {@link COPIED_ID} holds, and that JSON never escapes. */
const COPIED_ID_MARKS = ["tool_", "ses_", "/tmp/tmp.", "/var/folders/"];

/** Every string in `value` passed through `map` (object keys kept; at most MAX_DEPTH levels). */
function mapStrings(value: unknown, map: (text: string) => string, depth = 0): unknown {
  if (typeof value === "string") return map(value);
  if (typeof value !== "object" || value === null || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map, depth + 1)]));
}

/** A tool input without its top-level `description`, the free-text label opencode's bash and task tools ask the model for. */
function withoutLabel(input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input) || !("description" in input)) return input;
  const { description: _label, ...rest } = input as Record<string, unknown>;
  return rest;
}

const withoutCopiedIds = (input: unknown): unknown => mapStrings(input, (text) => (text.length > 7 ? text.replace(COPIED_ID, "~") : text));

/**
 * A tool input as calls are compared:
 * - without a top-level `description` label, which a model rewords at will while doing the
 *   same thing ("Run the build", "Build the project");
 * - with the ids a run hands out ({@link COPIED_ID}) replaced, so that paging a freshly
 *   saved copy of the same output reads as the same call; except when `changes` (an edit's
 *   or a write's input, whose every character is the change).
 */
export function comparableInput(input: unknown, changes: boolean): unknown {
  const labelled = withoutLabel(input);
  return changes ? labelled : withoutCopiedIds(labelled);
}

/**
 * `canonicalJson(comparableInput(input, changes))`. An input whose JSON holds none of
 * {@link COPIED_ID_MARKS} has no id to replace, and is written once, without the copy
 * {@link comparableInput} makes of it: most inputs.
 */
export function comparableInputJson(input: unknown, changes: boolean): string {
  const labelled = withoutLabel(input);
  const json = canonicalJson(labelled);
  if (changes || !COPIED_ID_MARKS.some((mark) => json.includes(mark))) return json;
  return canonicalJson(withoutCopiedIds(labelled));
}

/** The scalar values of an input, at any depth, as strings. */
function inputValues(input: unknown, into = new Set<string>()): Set<string> {
  if (input === null || input === undefined) return into;
  if (typeof input === "object") for (const value of Object.values(input as object)) inputValues(value, into);
  else into.add(String(input));
  return into;
}

/** What a call asked for (model/action.ts `Asked`), each part worked out when first read. */
class AskedInput implements Asked {
  private comparableMemo: string | undefined;
  private jsonMemo: string | undefined;
  private valuesMemo: ReadonlySet<string> | undefined;

  constructor(
    private readonly input: unknown,
    private readonly changes: boolean,
  ) {}

  get comparable(): string {
    return (this.comparableMemo ??= comparableInputJson(this.input, this.changes));
  }

  get json(): string {
    return (this.jsonMemo ??= canonicalJson(this.input));
  }

  get values(): ReadonlySet<string> {
    return (this.valuesMemo ??= inputValues(this.input));
  }

  get path(): string | null {
    const input = this.input as { filePath?: unknown; path?: unknown } | null;
    const file = input?.filePath ?? input?.path;
    return typeof file === "string" ? file : null;
  }
}

/** `bare` with what the call asked for (`input`, compared whole when the action changes files). */
export const withAsked = (bare: Bare, input: unknown): Action =>
  ({ ...bare, asked: new AskedInput(input, bare.kind === "edit" || bare.kind === "write") }) as Action;

/** A shell command as read by shell/, each reading made when first asked. */
class ShellReading implements ShellRun {
  private roleMemo: ShellRun["role"] | undefined;
  private showsMemo: { value: string | undefined } | undefined;
  private linesMemo: readonly string[] | undefined;
  private waitMemo: number | undefined;

  constructor(readonly text: string) {}

  get role(): ShellRun["role"] {
    return (this.roleMemo ??= commandRole(this.text));
  }

  get shows(): string | undefined {
    return (this.showsMemo ??= { value: shownFile(this.text) }).value;
  }

  get lines(): readonly string[] {
    return (this.linesMemo ??= commandLines(this.text.trim()));
  }

  /** How long the command waits on purpose, seconds (shell/wait.ts `commandWaitSeconds`). */
  get waitSeconds(): number {
    return (this.waitMemo ??= commandWaitSeconds(this.text));
  }
}

/**
 * Commands read lately (at most {@link KNOWN_COMMANDS}, each at most {@link KNOWN_COMMAND_LENGTH}
 * long; emptied when full, so that the commands of the session being read stay): a session
 * runs a few commands again and again, and a hostile export's millions are each read anew.
 */
const readings = new Map<string, ShellReading>();
const KNOWN_COMMANDS = 1024;
const KNOWN_COMMAND_LENGTH = 1024;

/** The shell run of `command`, its readings shared with the other calls of the same command. */
function shellRun(command: string): ShellReading {
  let run = readings.get(command);
  if (run === undefined) {
    run = new ShellReading(command);
    if (command.length <= KNOWN_COMMAND_LENGTH) {
      if (readings.size >= KNOWN_COMMANDS) readings.clear();
      readings.set(command, run);
    }
  }
  return run;
}

/** The shortest deliberate wait, in seconds. A shorter sleep gives a server a moment to start; it does not wait for the world. */
export const MIN_WAIT_SECONDS = 10;

/** The unit of a wait parameter's number: milliseconds, seconds, or unsaid (see {@link paramSeconds}). */
type Unit = "ms" | "s" | "unsaid";

/**
 * Parameters that say how long the call itself waits for something to happen (Codex's
 * `exec_command` and `write_stdin` `yield_time_ms`; a job tool's `wait`).
 */
const WAIT_PARAMS: ReadonlyArray<readonly [string, Unit]> = [
  ["yield_time_ms", "ms"],
  ["yieldTimeMs", "ms"],
  ["wait_ms", "ms"],
  ["waitMs", "ms"],
  ["wait_seconds", "s"],
  ["waitSeconds", "s"],
  ["wait", "unsaid"],
];

/**
 * Parameters that limit how long a call may take. Most tools' `timeout` is a kill limit
 * (opencode's bash in ms, its webfetch in seconds): the call ends as soon as its work is
 * done. Only on a tool whose name says it waits ({@link WAITING_NAME}) does the limit say how
 * long it waits for something to happen.
 */
const LIMIT_PARAMS: ReadonlyArray<readonly [string, Unit]> = [
  ["timeout_ms", "ms"],
  ["timeoutMs", "ms"],
  ["timeout_seconds", "s"],
  ["timeoutSeconds", "s"],
  ["timeout", "unsaid"],
];

/** Boolean parameters that ask a waiting tool to block until what it watches changes. */
const BLOCK_PARAMS = ["wait", "block", "watch"];

/** A tool whose name says it waits or polls: `job_wait`, `await_job`, `ci_status`, `poll_build`, `write_stdin`. */
const WAITING_NAME = /wait|poll|watch|status|stdin/i;

/**
 * How long a tool other than a shell tool says it waits, in seconds (0 when it does not),
 * from its own parameters:
 * - a wait parameter ({@link WAIT_PARAMS}) on any tool;
 * - on a tool whose name says it waits ({@link WAITING_NAME}) also a limit parameter
 *   ({@link LIMIT_PARAMS}), and `wait`/`block`/`watch: true`, which blocks until something
 *   changes (for at most the limit when one is given);
 * - the longest of these, each read by {@link paramSeconds}.
 * A call that types into a process (a non-empty `chars`, as Codex's `write_stdin` sends) gets
 * its answer from that input, not from time passing: 0. With `chars` empty or absent,
 * `write_stdin` is a pure poll.
 */
export function waitParamSeconds(tool: string, input: unknown): number {
  if (typeof input !== "object" || input === null) return 0;
  const params = input as Record<string, unknown>;
  const chars = Object.hasOwn(params, "chars") ? params.chars : undefined;
  if (typeof chars === "string" && chars !== "") return 0;
  let seconds = 0;
  for (const [key, unit] of WAIT_PARAMS) seconds = Math.max(seconds, paramSeconds(params, key, unit));
  if (WAITING_NAME.test(tool)) {
    let limit = 0;
    for (const [key, unit] of LIMIT_PARAMS) limit = Math.max(limit, paramSeconds(params, key, unit));
    const blocking = BLOCK_PARAMS.some((key) => Object.hasOwn(params, key) && params[key] === true);
    seconds = Math.max(seconds, blocking && limit === 0 ? Infinity : limit);
  }
  return seconds;
}

/**
 * The parameter `key` of `params` in seconds (0 when absent or not a duration). A number is in
 * `unit`; an unsaid unit reads a number of 10000 or more as milliseconds and a smaller one as
 * seconds (`timeout: 120` is two minutes, `timeout: 45000` is 45 s). A string is a number in
 * the same way, or a duration word (`"90s"`, `"2m"`, shell/command.ts `durationSeconds`).
 */
function paramSeconds(params: Readonly<Record<string, unknown>>, key: string, unit: Unit): number {
  if (!Object.hasOwn(params, key)) return 0;
  const value = params[key];
  let amount: number;
  if (typeof value === "number") amount = value;
  else if (typeof value === "string" && /^\d+(?:\.\d+)?$/.test(value)) amount = Number(value);
  else if (typeof value === "string") {
    const seconds = durationSeconds(value);
    return seconds > 0 ? seconds : 0;
  } else return 0;
  if (!(amount > 0)) return 0;
  return unit === "ms" || (unit === "unsaid" && amount >= 10_000) ? amount / 1000 : amount;
}

/** `bare`, or a wait when the tool's own parameters say it waits {@link MIN_WAIT_SECONDS} or more. */
function orWait(bare: Bare, tool: string, input: unknown, run?: ShellRun): Bare {
  const seconds = waitParamSeconds(tool, input);
  return seconds >= MIN_WAIT_SECONDS ? { kind: "wait", seconds, run, shell: false } : bare;
}

const field = (input: unknown, key: string): unknown => (isRecord(input) ? input[key] : undefined);
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const count = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

/**
 * A host's shell tool with its `command` (a kill limit such as `timeout` says nothing): a
 * wait when the command waits {@link MIN_WAIT_SECONDS} or more (shell/wait.ts). Without a
 * command string (a call the tool refused), it runs what its input gives otherwise (`cmd`, a
 * list of words), if anything, and never waits.
 */
export function shellAction(_tool: string, input: unknown): Bare {
  const command = field(input, "command");
  if (typeof command !== "string") {
    const given = commandOf(input);
    return { kind: "shell", run: given === undefined ? undefined : shellRun(given) };
  }
  const run = shellRun(command);
  const seconds = run.waitSeconds;
  return seconds >= MIN_WAIT_SECONDS ? { kind: "wait", seconds, run, shell: true } : { kind: "shell", run };
}

/** A file read (`filePath`, `offset`, `limit`), its answer numbered when `numbered`. */
export const readAction = (tool: string, input: unknown, numbered: boolean): Bare =>
  orWait(
    {
      kind: "read",
      file: text(field(input, "filePath")),
      offset: count(field(input, "offset")),
      limit: count(field(input, "limit")),
      numbered,
    },
    tool,
    input,
  );

/** A search by `engine` (its `pattern`, or `query`); `asking`: it asks a service outside the session's files. */
export const searchAction = (tool: string, input: unknown, engine: string, asking: boolean): Bare =>
  orWait({ kind: "search", engine, pattern: text(field(input, "pattern") ?? field(input, "query")), asking }, tool, input);

/** A page fetched (`url`) or a web search (`query`). */
export const fetchAction = (tool: string, input: unknown): Bare =>
  orWait({ kind: "fetch", url: text(field(input, "url")), query: text(field(input, "query")) }, tool, input);

/** A task handed to a subagent (`subagent_type`, `prompt`); read-only when its agent is one of `readOnly`. */
export function delegateAction(tool: string, input: unknown, readOnly: ReadonlySet<string>): Bare {
  const agent = field(input, "subagent_type");
  return orWait(
    {
      kind: "delegate",
      agent: String(agent),
      prompt: String(field(input, "prompt")).trim(),
      readOnly: typeof agent === "string" && readOnly.has(agent),
    },
    tool,
    input,
  );
}

/** The edits of an edit (`oldString`, `newString`, `replaceAll`), or of a multiedit's `edits`; undefined when the input is not one. */
export function editsOf(input: unknown, multi: boolean): Edit[] | undefined {
  const list = multi ? field(input, "edits") : [input];
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const edits: Edit[] = [];
  for (const item of list) {
    const oldString = text(field(item, "oldString"));
    const newString = text(field(item, "newString"));
    if (oldString === undefined || newString === undefined) return undefined;
    edits.push({ oldString, newString, replaceAll: field(item, "replaceAll") === true });
  }
  return edits;
}

/** A whole file written (`content`). */
export const writeAction = (input: unknown): Bare => ({ kind: "write", content: text(field(input, "content")) });

/** Bookkeeping: a todo list written or read. */
export const PLAN: Bare = { kind: "plan" };

/** A tool that runs a shell command given in its input by these names, when a host does not say otherwise. */
const SHELL_TOOL = /^(?:bash|shell|exec_command|run_shell_command|local_shell)$/;
/** MCP tools that look things up: `exa_web_search_exa`, `brave_web_search`, `fetch_fetch` … */
const ASKING_NAME = /search|fetch/i;
/**
 * The verbs an MCP or custom tool's name may begin its action with (`<server>_<verb>_<noun>`):
 * the first of them in the name decides (`github_get_issue` reads, `github_create_issue`
 * and `github_mark_all_notifications_read` do not); a name with none is an effect.
 */
const READING_VERB = new Set("get list search fetch read view show find query lookup describe inspect status check".split(" "));
const WRITING_VERB = new Set(
  "create update delete remove add set submit request mark merge close open post put patch send push write edit move rename run trigger cancel approve assign comment fork star upload rerun dismiss lock unlock label".split(
    " ",
  ),
);

/** Does an MCP or custom tool's name say it only reads (see {@link READING_VERB})? */
function namedForReading(tool: string): boolean {
  for (const word of tool.split(/[_\-.]|(?<=[a-z])(?=[A-Z])/)) {
    const verb = word.toLowerCase();
    if (READING_VERB.has(verb)) return true;
    if (WRITING_VERB.has(verb)) return false;
  }
  return false;
}

/** A command given in a shell tool's input (`command`, else `cmd`; a list of words joined by spaces). */
function commandOf(input: unknown): string | undefined {
  const command = field(input, "command") ?? field(input, "cmd");
  if (typeof command === "string") return command;
  if (Array.isArray(command) && command.every((word) => typeof word === "string")) return command.join(" ");
  return undefined;
}

/**
 * A tool no host table names (an MCP or custom one), read by its name's habits: it runs the
 * command in its input when named like a shell tool ({@link SHELL_TOOL}), looks things up when
 * its name says search or fetch, reads when its name's first verb reads; a wait when its own
 * parameters say so ({@link waitParamSeconds}).
 */
export function otherAction(tool: string, input: unknown, reads = namedForReading(tool)): Bare {
  const command = SHELL_TOOL.test(tool) ? commandOf(input) : undefined;
  const run = command === undefined ? undefined : shellRun(command);
  return orWait({ kind: "other", asking: ASKING_NAME.test(tool), reads, run }, tool, input, run);
}

/**
 * opencode's subagents that cannot change anything (agent/agent.ts: `explore` has no edit,
 * write or patch tool). Asked the same question again, such a subagent can only find again
 * what it found; any other subagent may have done the work it reports.
 */
export const READ_ONLY_SUBAGENTS: ReadonlySet<string> = new Set(["explore"]);

/**
 * opencode's built-in tools (packages/opencode/src/tool/registry.ts, 1.18.33), each as what it
 * does: the names every report shows, and that a transcript converted from opencode's, or an
 * MCP server, may use in any host.
 */
const NAMED_TOOLS: Readonly<Record<string, (tool: string, input: unknown) => Bare>> = {
  bash: shellAction,
  read: (tool, input) => readAction(tool, input, true),
  edit: (_, input) => ({ kind: "edit", edits: editsOf(input, false) }),
  multiedit: (_, input) => ({ kind: "edit", edits: editsOf(input, true) }),
  patch: () => ({ kind: "edit", edits: undefined }),
  apply_patch: () => ({ kind: "edit", edits: undefined }),
  write: (_, input) => writeAction(input),
  grep: (tool, input) => searchAction(tool, input, tool, false),
  glob: (tool, input) => searchAction(tool, input, tool, false),
  list: (tool, input) => searchAction(tool, input, tool, false),
  ls: (tool, input) => searchAction(tool, input, tool, false),
  view: (tool, input) => searchAction(tool, input, tool, false),
  codesearch: (tool, input) => searchAction(tool, input, "code", true),
  webfetch: fetchAction,
  websearch: fetchAction,
  task: (tool, input) => delegateAction(tool, input, READ_ONLY_SUBAGENTS),
  todowrite: () => PLAN,
  todoread: () => PLAN,
  skill: (tool, input) => otherAction(tool, input, true),
  lsp: (tool, input) => otherAction(tool, input, true),
};

/** The action of a tool by its name: one of {@link NAMED_TOOLS}, or any other by its name's habits ({@link otherAction}). */
export function namedAction(tool: string, input: unknown): Bare {
  const known = Object.hasOwn(NAMED_TOOLS, tool) ? NAMED_TOOLS[tool] : undefined;
  return known ? known(tool, input) : otherAction(tool, input);
}

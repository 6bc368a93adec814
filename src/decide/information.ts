/**
 * What each action brought: new information, a new effect, a wait, or nothing. New work is
 * new information or a new effect, not a new string, so a call is judged by its answer and
 * what it changed, never by how it was spelled.
 *
 * The judgement walks the steps since the user's last real message in order, with what was
 * seen since the last effect:
 *
 * 1. A question (a call that only reads: the read tool, grep, a search, `sed -n`, a test run,
 *    a read-only subagent) brings information when its answer holds a content line not seen
 *    since the last effect, whatever its spelling. Asked again with no effect since, it brings
 *    information only when the answer also moves in substance: a number or a name that no
 *    earlier answer to it stated (a paraphrase brings nothing).
 * 2. An effect (edit, write, patch, a command that changes state) is new unless it does again
 *    what an earlier effect since the user's last message did, with the same answer: the same content written
 *    under another name, the same edit re-sent, the same `sed -i` re-run. A new effect starts
 *    afresh: what was seen before it may have changed.
 * 3. A deliberate wait (tool-kinds.ts `waiting`) always brings something: the world moves on
 *    its own.
 * 4. A step with text and no tool call brings something when its text was not said before.
 *
 * docs/how-it-decides.md has the rationale and what this can still get wrong.
 */
import type { ToolCall } from "./history.js";
import { simpleCommandsOf } from "./waits.js";
import { canonicalJson, comparableInputJson, normalizeOutput, reportContent } from "./signature.js";
import { delegatesReadOnly, isEffect, targetFile, toolKind } from "./tool-kinds.js";

/** What one action brought (see the module's comment). */
export type Brought = "nothing" | "information" | "effect" | "wait" | "text";

/** How a call is judged: as a question (it reads), or as an effect (it may change the world). */
export type CallRole = "question" | "effect";

/** Tools that only read, besides bash (opencode's built-ins, and MCP tools named for reading). */
const READING_TOOLS = new Set(["read", "grep", "glob", "list", "ls", "view", "webfetch", "websearch", "codesearch", "skill", "todoread"]);
/** An MCP or custom tool named for what only reads: `docs_search`, `github_get_issue`, `jira_list_issues`. */
const READING_NAME = /search|fetch|read|get|list|view|show|find|query|lookup|status|describe|inspect|logs?$/i;
/** A tool that runs a shell command given in its input (`bash`, Codex's `shell` and `exec_command`). */
const SHELL_TOOL = /^(?:bash|shell|exec_command|run_shell_command|local_shell)$/;

/**
 * Programs that only read, whatever their arguments (save the in-place and output flags of
 * {@link WRITING_FLAG}).
 */
const READING_PROGRAMS = new Set(
  (
    "cat head tail less more nl wc grep egrep fgrep rg ag ack find fd ls tree stat file du df pwd cd echo printf true false " +
    "test [ [[ which type whereis realpath readlink basename dirname sort uniq cut tr column jq yq xxd od hexdump strings " +
    "diff cmp comm awk gawk sed perl bat batcat env printenv date uname id whoami hostname ps lsof ss netstat sleep curl http"
  ).split(" "),
);

/** Programs that check the code and answer: test runners, type checkers, linters. */
const CHECK_PROGRAMS = new Set(
  "tsc eslint prettier mypy pyright ruff flake8 pylint black isort pytest jest vitest mocha rspec phpunit rubocop golangci-lint staticcheck shellcheck hadolint".split(
    " ",
  ),
);

/**
 * A program or first argument that names a check: a test run, a build, a linter or type
 * checker (`golangci-lint run`, `./gradlew check`, `bin/rails test`, `make lint`). A check
 * reads the code and answers; the artifacts it may leave are not a change to the work.
 */
const CHECK_WORD = /lint|test|check|clippy|vet|build|compile|verify|validate|spec/i;

/** Read-only subcommands of programs that can also change things (`git show`, `kubectl get`). */
const READING_SUBCOMMANDS: Readonly<Record<string, ReadonlySet<string>>> = {
  git: new Set("show log diff status grep blame rev-parse ls-files ls-tree describe cat-file shortlog reflog branch remote".split(" ")),
  kubectl: new Set("get describe logs top explain rollout wait version".split(" ")),
  gh: new Set("run pr issue api repo release workflow".split(" ")),
  docker: new Set("ps logs inspect images version info".split(" ")),
  go: new Set("list version env doc".split(" ")),
  cargo: new Set("tree metadata".split(" ")),
  npm: new Set("ls view outdated".split(" ")),
};

/** Programs that run a named check: `npm test`, `npm run lint`, `npx vitest`, `python -m pytest`, `uv run mypy`. */
const RUNNERS = new Set(
  "npm pnpm yarn bun npx bunx uv poetry python python3 go cargo make gradle gradlew mvn dotnet bundle rails".split(" "),
);

/** Flags that make a reading program write: `sed -i`, `perl -pi`, `prettier --write`, `eslint --fix`, `curl -o`, `find -delete`. */
const WRITING_FLAG =
  /^(?:-i\S*|-pi\S*|--in-place\S*|--write|-w|--fix\S*|-o|-O|--output\S*|-delete|-exec\S*|-X|--request|-d|--data\S*|-F|--form|-T|--upload-file|apply|delete|set|create|patch|scale|edit|rerun|cancel|merge|close|comment)$/;

/** What one simple command does: reads, checks the code, or may change something. */
type CommandKind = "read" | "check" | "effect";

/** What one simple command does (see {@link CommandKind}). */
function commandKind(words: readonly string[]): CommandKind {
  let at = 0;
  // Leading assignments (`CI=1 npm test`) and `command`/`time` prefixes run what follows.
  while (at < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at]!) || words[at] === "command" || words[at] === "time")) at++;
  const program = words[at]?.replace(/^.*\//, "");
  if (program === undefined) return "read";
  const rest = words.slice(at + 1);
  if (rest.some((word) => WRITING_FLAG.test(word))) return "effect";
  if (READING_PROGRAMS.has(program)) return "read";
  if (CHECK_PROGRAMS.has(program)) return "check";
  const first = rest.find((word) => !word.startsWith("-"));
  if (READING_SUBCOMMANDS[program]?.has(first ?? "")) return "read";
  // A runner names its check in its first few words: `npm run test:unit`, `python -m pytest`, `go test ./...`.
  const named = RUNNERS.has(program) ? rest.slice(0, 3).some((word) => CHECK_WORD.test(word) || CHECK_PROGRAMS.has(word)) : false;
  return named || CHECK_WORD.test(program) ? "check" : "effect";
}

/**
 * What a shell command line does: `effect` when any of its simple commands may change
 * something or writes into a file, else `check` when one of them is a check, else `read`.
 */
export function commandRole(command: string): CommandKind {
  let kind: CommandKind = "read";
  for (const simple of simpleCommandsOf(command)) {
    const one = simple.writes ? "effect" : commandKind(simple.words);
    if (one === "effect") return "effect";
    if (one === "check") kind = "check";
  }
  return kind;
}

/** The shell command a call runs, for tools that run one (see {@link SHELL_TOOL}), or undefined. */
function shellCommand(call: ToolCall): string | undefined {
  if (!SHELL_TOOL.test(call.tool)) return undefined;
  const input = call.input as { command?: unknown; cmd?: unknown } | null;
  const command = input?.command ?? input?.cmd;
  if (typeof command === "string") return command;
  if (Array.isArray(command) && command.every((word) => typeof word === "string")) return command.join(" ");
  return undefined;
}

/** Is the call a question or an effect (see the module's comment)? A tool not known to read is an effect. */
export function callRole(call: ToolCall): CallRole {
  if (isEffect(call.tool)) return "effect";
  const command = shellCommand(call);
  if (command !== undefined) return commandRole(command) === "effect" ? "effect" : "question";
  if (call.tool === "task") return delegatesReadOnly(call) ? "question" : "effect";
  return READING_TOOLS.has(call.tool) || READING_NAME.test(call.tool) ? "question" : "effect";
}

/** What a question asks: its tool and canonical input; a delegated task by its agent and prompt alone. */
function questionOf(call: ToolCall): string {
  if (call.tool === "task") {
    const input = call.input as { subagent_type?: unknown; prompt?: unknown } | null;
    return `task\u0000${String(input?.subagent_type)}\u0000${String(input?.prompt).trim()}`;
  }
  return `${call.tool}\u0000${comparableInputJson(call)}`;
}

/**
 * A short answer that names nothing (under this many characters, noise removed) is
 * information for a new question even when its lines were seen: `ok`, `0` or
 * `No results found.` answers many questions, where a hit such as `src/a.ts:3: f()` says
 * what it answers.
 */
const SUBSTANTIAL_ANSWER = 120;

const saysTooLittle = (answer: Answer): boolean =>
  answer.text.length < SUBSTANTIAL_ANSWER && ![...answer.facts].some((fact) => !fact.startsWith("#"));

/** Content shorter than this (characters) is too little to be "the same content under a new name". */
const SUBSTANTIAL_CONTENT = 64;

/**
 * What an effect does, as two effects are compared: a write by its content (and its file when
 * the content is short), an edit by its file and change, a shell command with the files it
 * redirects into left out (`cat > notes-1.md <<EOF` and `cat > notes-2.md <<EOF` write the
 * same); anything else by its tool and canonical input.
 */
function effectOf(call: ToolCall): string {
  const input = call.input as { content?: unknown } | null;
  if (call.tool === "write" && typeof input?.content === "string") {
    const content = input.content.trim();
    return content.length >= SUBSTANTIAL_CONTENT ? `write\u0000${content}` : `write\u0000${targetFile(call)}\u0000${content}`;
  }
  const command = shellCommand(call);
  if (command !== undefined) {
    const anonymous = command.replace(/(>>?|&>)\s*[^\s;&|<>]+/g, "$1 _");
    return `shell\u0000${anonymous.length >= SUBSTANTIAL_CONTENT ? anonymous : command}`;
  }
  return `${call.tool}\u0000${comparableInputJson(call)}`;
}

/**
 * Lines that wrap content rather than hold it: the read tool's `<path>`, `<type>` and
 * `<content>` lines and its trailer (`(Showing lines 1-66 of 9866. …)`), the task tool's
 * `<task id=…>` and `<task_result>` lines, the grep tool's `Found 3 matches`.
 */
const WRAPPER =
  /^(?:<\/?(?:path|type|content|file|task_result|task_metadata)>.*|<\/?task\b[^>]*>|\((?:End of file|Showing lines|File has more lines|Output truncated)\b.*\)|Found \d+ (?:match|file|result)\w*)$/;
/** A line number before a line's text: the read tool's `12: ` (older `00012| `), `cat -n`'s `    12\t`. */
const LINE_NUMBER = /^\s*\d+(?:: |\| |\t)/;
/** A search hit as grep -n, rg and git grep write it: `src/a.ts:12:text`. */
const HIT = /^(?:\.\/)?([\w@.\/-]*\.\w+):\d+:(.*)$/;
/** The grep tool's file heading (`/abs/src/a.ts:`) and the hits under it (`  Line 12: text`). */
const HEADING = /^(\S*\.\w+):$/;
const HEADED_HIT = /^Line \d+:(.*)$/;

const basename = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

/**
 * The content lines of an answer: trimmed, without line numbers or wrapper lines, without a
 * trailing comma (a search result moved to the end of a JSON list), empty lines left out; a
 * search hit as its file's name and its text, however the search tool wrote it. Two answers
 * showing the same lines of a file, or the same hits, give the same lines, however asked.
 */
export function contentLines(output: unknown): string[] {
  const text = typeof output === "string" ? output : output === undefined || output === null ? "" : JSON.stringify(output, null, 1);
  const lines: string[] = [];
  let file = "";
  for (const raw of text.split("\n")) {
    const line = raw.replace(LINE_NUMBER, "").trim().replace(/,$/, "");
    if (line === "" || WRAPPER.test(line)) continue;
    const heading = HEADING.exec(line);
    if (heading) {
      file = basename(heading[1]!);
      continue;
    }
    const headed = HEADED_HIT.exec(line);
    const hit = headed ? null : HIT.exec(line);
    if (headed) lines.push(`${file}\u0000${headed[1]!.trim()}`);
    else if (hit) lines.push(`${basename(hit[1]!)}\u0000${hit[2]!.trim()}`);
    else lines.push(line);
  }
  return lines;
}

/** A number an answer states (`87`, `41M`, `12.5%`, the `45` of `shard.ts:45`), not one inside a name. */
const NUMBER = /(?<![\w$/-])(?<!\w\.)\d+(?:[.,]\d+)*[kKmMgG%]?(?![\w.]\w)/g;
/** A list marker at a line's start (`1)`, `2.`): a report's layout, not its substance. */
const LIST_MARKER = /^\s*\d+[.)]\s/gm;

/**
 * The substance of an answer: the names it states (signature.ts `reportContent`) and its
 * numbers, noise removed. Two wordings of one report state the same names and numbers.
 */
export function factsOf(output: unknown): Set<string> {
  return factsOfNormalized(normalizeOutput(output));
}

/** {@link factsOf} of an output already normalised (signature.ts `normalizeOutput`). */
function factsOfNormalized(normalized: string): Set<string> {
  const text = normalized.replace(LIST_MARKER, "");
  const facts = new Set<string>();
  // An abbreviation (`i.e`, `e.g`) names nothing.
  for (const name of reportContent(text).named) if (!/^(?:[a-z]\.)+[a-z]?$/.test(name)) facts.add(name);
  // A number stated twice is two facts: `3 of 3 passed` says more than `1 of 3 passed` did.
  for (const number of text.replace(/<\/?task(?:_result)?\b[^>]*>/g, " ").match(NUMBER) ?? []) {
    let fact = `#${number}`;
    for (let times = 2; facts.has(fact); times++) fact = `#${number}#${times}`;
    facts.add(fact);
  }
  return facts;
}

const NOTHING: Judgement = { brought: "nothing" };
const TEXT: Judgement = { brought: "text" };
const WAIT: Judgement = { brought: "wait" };
const EFFECT: Judgement = { brought: "effect" };

/** `ids` with `id` last, once. */
const withLast = (ids: readonly string[], id: string): readonly string[] => (ids[ids.length - 1] === id ? ids : [...ids, id]);

/** One answer to a question: its text with noise removed, and its substance, each worked out when first needed. */
class Answer {
  private textMemo: string | undefined;
  private factsMemo: Set<string> | undefined;

  constructor(private readonly output: unknown) {}

  get text(): string {
    return (this.textMemo ??= normalizeOutput(this.output));
  }

  get facts(): ReadonlySet<string> {
    return (this.factsMemo ??= factsOfNormalized(this.text));
  }
}

/** One action as the judgement reads it. */
export interface Judged {
  /** The tool call, or null for a step's text. */
  readonly call: ToolCall | null;
  /** For a step's text: its signature (see signature.ts `textSignature`). */
  readonly text?: string;
  /** Position of its step in the timeline's entries. */
  readonly position: number;
  /** Id of its step's assistant message. */
  readonly messageID: string;
}

/**
 * A check (a test run, a build, a linter) asked again and again with the same answer in
 * substance and no effect since its first run, as it stood at one of its runs.
 */
export interface CheckRun {
  /** Runs so far, this one included (≥ 1). */
  readonly count: number;
  /** Position of the step of its first run. */
  readonly firstPosition: number;
  /** Ids of the assistant messages holding its runs so far, oldest first, each once. */
  readonly messageIDs: readonly string[];
}

/** What one action brought, and for a check, its run so far. */
export interface Judgement {
  readonly brought: Brought;
  readonly run?: CheckRun;
}

/** What the judgement carries from one action to the next (see the module's comment). */
export class InformationState {
  /** Content lines of the answers since the last new effect. */
  private seen = new Set<string>();
  /** Per question, each of its answers since the user's last message. */
  private asked = new Map<string, Answer[]>();
  /** Per effect done since the user's last message, the content lines of each of its answers. */
  private done = new Map<string, string[]>();
  /** Texts said since the user's last message. */
  private said = new Set<string>();
  /** Per check, its run since the last new effect (or since its answer last moved). */
  private runs = new Map<string, CheckRun>();

  constructor(
    /** Whether answers enter the judgement (`matchOutput`); off, a call is new exactly when its input is. */
    private readonly byAnswer: boolean,
  ) {}

  /** The user spoke: everything starts afresh. */
  reset(): void {
    this.afresh();
    this.asked.clear();
    this.done.clear();
    this.said.clear();
  }

  /** A new effect: what was seen before it may have changed, and a check may answer otherwise. */
  private afresh(): void {
    this.seen = new Set();
    this.runs = new Map();
  }

  /** Judges one action, then remembers it. */
  judge(action: Judged): Judgement {
    const { call } = action;
    if (call === null) {
      const text = action.text ?? "";
      if (this.said.has(text)) return NOTHING;
      this.said.add(text);
      return TEXT;
    }
    if (toolKind(call) === "waiting") return WAIT;
    const role = call.status === "error" ? "question" : callRole(call);
    if (role === "effect") return this.effect(call) ? EFFECT : NOTHING;
    const ask = call.status === "error" && isEffect(call.tool) ? `${call.tool}\u0000${targetFile(call)}` : questionOf(call);
    const brought = this.question(call, ask);
    const command = shellCommand(call);
    if (command === undefined || commandRole(command) !== "check") return { brought };
    // A check whose answer moved starts a new run; so does one after a new effect (runs are cleared).
    const before = brought === "nothing" ? this.runs.get(ask) : undefined;
    const run: CheckRun = before
      ? { count: before.count + 1, firstPosition: before.firstPosition, messageIDs: withLast(before.messageIDs, action.messageID) }
      : { count: 1, firstPosition: action.position, messageIDs: [action.messageID] };
    this.runs.set(ask, run);
    return { brought, run };
  }

  /** Does `answer` state a name or number that no earlier answer, nor the question, did? */
  private statesNews(answer: Answer, earlier: readonly Answer[], call: ToolCall): boolean {
    let asked: Set<string> | undefined;
    for (const fact of answer.facts) {
      if (earlier.some((known) => known.facts.has(fact))) continue;
      asked ??= factsOf(canonicalJson(call.input));
      if (!asked.has(fact)) return true;
    }
    return false;
  }

  /** Is the effect new (not one done before with the same answer)? A new one starts afresh. */
  private effect(call: ToolCall): boolean {
    const what = effectOf(call);
    const answer = this.byAnswer ? contentLines(normalizeOutput(call.output)).join("\n") : "";
    const before = this.done.get(what);
    if (before?.includes(answer)) return false;
    this.afresh();
    if (before) before.push(answer);
    else this.done.set(what, [answer]);
    return true;
  }

  private question(call: ToolCall, ask: string): Brought {
    const earlier = this.asked.get(ask);
    if (!this.byAnswer) {
      if (earlier) return "nothing";
      this.asked.set(ask, []);
      return "information";
    }
    const lines = contentLines(call.output);
    let unseen = false;
    for (const line of lines) {
      if (!this.seen.has(line)) {
        unseen = true;
        this.seen.add(line);
      }
    }
    const answer = new Answer(call.output);
    if (earlier === undefined) {
      this.asked.set(ask, [answer]);
      return unseen || saysTooLittle(answer) ? "information" : "nothing";
    }
    // Asked before: only an answer that moved in substance is news (a name or number that
    // neither an earlier answer nor the question itself stated; any change, for an answer
    // that states none).
    const moved =
      earlier.every((known) => known.text !== answer.text) && (answer.facts.size === 0 || this.statesNews(answer, earlier, call));
    earlier.push(answer);
    return moved ? "information" : "nothing";
  }
}

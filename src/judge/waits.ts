/**
 * Deliberate waits: a tool call that waits on purpose for the world outside to move before it
 * looks. An unchanged answer after such a call means only that the world has not moved yet
 * (tool-kinds.ts gives it the kind `waiting`).
 *
 * A call waits when it waits {@link MIN_WAIT_SECONDS} or more, or blocks until something
 * outside changes:
 *
 * - bash: read from its command only, through the project's lexer (redact/bash-lexer.ts),
 *   never by a pattern over the text. Words in quotes are data (`echo "sleep 30"`), an `&`
 *   inside quotes is no background job, the program of each simple command is found past
 *   assignments and prefix commands (`command`, `sudo`, `env`, `timeout 120`, `/bin/…`), and a
 *   shell run with `-c` (`bash -c '…'`, `sh -c "…"`) stands for the commands of its string.
 *   A line with a real background job (`npm start & sleep 30 && curl …`) is no wait: its sleep
 *   waits for that process to start, not for the world. The bash tool's own `timeout`
 *   parameter is a kill limit and says nothing.
 * - any other tool: its own wait parameter ({@link waitParamSeconds}).
 */
import { lex } from "../redact/bash-lexer.js";
import { DATA_PROGRAMS, KEYWORDS, PREFIXES, type PrefixSpec } from "../redact/bash-words.js";
import type { ToolCall } from "../model/entry.js";

/** The shortest deliberate wait, in seconds. A shorter sleep gives a server a moment to start; it does not wait for the world. */
export const MIN_WAIT_SECONDS = 10;

/**
 * Does the call wait on purpose (see the module's comment)? A bash call is read from its
 * `command` ({@link commandWaitSeconds}), any other tool from its input ({@link waitParamSeconds}).
 */
export function isWait(call: ToolCall): boolean {
  if (call.tool === "bash") {
    const command = (call.input as { command?: unknown } | null)?.command;
    if (typeof command !== "string") return false;
    let waits = commandWaits.get(command);
    if (waits === undefined) {
      waits = commandWaitSeconds(command) >= MIN_WAIT_SECONDS;
      if (commandWaits.size < KNOWN_COMMANDS && command.length <= KNOWN_COMMAND_LENGTH) commandWaits.set(command, waits);
    }
    return waits;
  }
  return waitParamSeconds(call.tool, call.input) >= MIN_WAIT_SECONDS;
}

/** Whether each bash command waits, once read (for the first {@link KNOWN_COMMANDS} commands): a poll is the same command again and again. */
const commandWaits = new Map<string, boolean>();
/** How many commands {@link commandWaits} keeps, and how long each may be: a hostile export's millions are read each time. */
const KNOWN_COMMANDS = 1024;
const KNOWN_COMMAND_LENGTH = 1024;

// ---------------------------------------------------------------------------------------
// bash

/**
 * Every wait {@link commandWaitSeconds} knows names one of these words: a command without
 * any is not lexed.
 */
const WAIT_WORDS = /sleep|wait|watch|rollout/;

/** How deep `bash -c '…'` strings are read inside each other. */
const MAX_SHELL_DEPTH = 4;

/**
 * A simple command: its words (values, quotes removed), the seconds a `timeout` around it
 * allows (Infinity without one), whether it runs inside a `while` or `until` loop, and
 * whether it redirects output into a file (`> notes.md`, `>> log`; not `2>&1` or `>/dev/null`).
 */
interface Simple {
  readonly words: readonly string[];
  readonly cap: number;
  readonly inLoop: boolean;
  readonly writes: boolean;
}

/** A command line read: its simple commands, and whether it sends a job to the background. */
interface Line {
  readonly commands: Simple[];
  background: boolean;
}

/**
 * The simple commands of a bash command line, each as its list of words (quotes and escapes
 * removed): split at `&&`, `||`, `;`, `|`, `&`, newlines and parentheses; redirections and
 * their targets left out; leading keywords (`if`, `do`, `while`, `{`, `!` …) dropped, as are
 * `for`/`select`/`case` headers and lone closers (`done`, `fi`, `}`); a shell run with `-c`
 * replaced by the commands of its string. Words from `$(…)` are not read.
 * `sleep 30 && bash -c 'gh pr checks 42 | tail'` → `[["sleep","30"],["gh","pr","checks","42"],["tail"]]`.
 */
export function commandsOf(command: string): string[][] {
  return parseLine(command, 0, Infinity, false).commands.map((simple) => [...simple.words]);
}

/**
 * Each simple command of a bash command line ({@link commandsOf}) as one string, its words
 * joined by single spaces: `if npm test; then echo "all ok"; fi` → `["npm test", "echo all ok"]`.
 * For matching a user's `ignore` entries against the commands a line runs.
 */
export function commandLines(command: string): string[] {
  return parseLine(command, 0, Infinity, false).commands.map((simple) => simple.words.join(" "));
}

/**
 * The simple commands of a bash command line as {@link commandsOf} reads them, each with
 * whether it redirects output into a file: `cat > notes.md <<'EOF'` writes, `cmd 2>&1`,
 * `cmd >/dev/null` and `cmd < input` do not.
 */
export function simpleCommandsOf(command: string): Array<{ readonly words: readonly string[]; readonly writes: boolean }> {
  return parseLine(command, 0, Infinity, false).commands.map(({ words, writes }) => ({ words, writes }));
}

/**
 * How long a bash command line waits, in seconds: the longest wait of its simple commands
 * (Infinity for one that blocks until the world changes), 0 when it sends a job to the
 * background. A simple command waits when it is
 * - `sleep` of its summed durations (`30`, `10.5`, `2m`, `1m 30s`, `infinity`); any sleep
 *   inside a `while` or `until` loop (`until curl -sf …; do sleep 2; done`) blocks, as the
 *   loop polls until something changes;
 * - `watch …`, `wait-on …` (also through `npx`), `gh run watch`, `kubectl wait`,
 *   `kubectl rollout status` (global flags such as `-n ns` may come before the subcommand),
 *   `aws <service> wait …`, `az … wait`, `docker wait`, or any program given `--watch` or
 *   `--wait` (`gh pr checks --watch`, `helm upgrade --wait`, `docker compose up --wait`; not
 *   a program whose arguments are data, such as `echo`): it blocks, for at most its
 *   `--timeout` when that is given and above 0;
 * and `timeout N` around any of these bounds it to N seconds.
 */
export function commandWaitSeconds(command: string): number {
  if (!WAIT_WORDS.test(command)) return 0;
  const line = parseLine(command, 0, Infinity, false);
  if (line.background) return 0;
  let longest = 0;
  for (const simple of line.commands) longest = Math.max(longest, simpleWaitSeconds(simple));
  return longest;
}

/** Keywords that may only begin a command header whose words are not a command (`for i in 1 2 3`). */
const HEADERS = new Set(["for", "select", "case"]);
/** Loops that run until their condition changes; `for` and `select` run over their words and end. */
const POLLING_LOOPS = new Set(["while", "until"]);
/** Words that close a compound command; alone, they run nothing. */
const CLOSERS = new Set(["done", "fi", "esac", "}"]);

/**
 * The simple commands of `command`, read at `depth` shells deep, inside a `timeout` of `cap`
 * seconds, and inside a `while` or `until` loop when `inLoop`.
 */
function parseLine(command: string, depth: number, cap: number, inLoop: boolean): Line {
  const line: Line = { commands: [], background: false };
  let words: string[] = [];
  let writes = false;
  let skipTarget = false;
  let outputTarget = false;
  /** The loops open where the next command starts, innermost last: true for `while` and `until`. */
  const loops: boolean[] = [];
  const flush = (): void => {
    let start = 0;
    for (;;) {
      while (start < words.length && KEYWORDS.has(words[start]!)) {
        if (POLLING_LOOPS.has(words[start]!)) loops.push(true);
        start++;
      }
      // `function f { …`: the name is no command; the body follows the `{`.
      if (words[start] !== "function") break;
      start += 2;
    }
    const simple = start === 0 ? words : words.slice(start);
    const written = writes;
    words = [];
    writes = false;
    if (simple.length === 0) return;
    if (HEADERS.has(simple[0]!)) {
      if (simple[0] !== "case") loops.push(false);
      return;
    }
    if (simple.length === 1 && CLOSERS.has(simple[0]!)) {
      if (simple[0] === "done") loops.pop();
      return;
    }
    const looping = inLoop || loops.includes(true);
    const shell = depth < MAX_SHELL_DEPTH ? shellString(simple) : undefined;
    if (shell === undefined) {
      line.commands.push({ words: simple, cap, inLoop: looping, writes: written });
      return;
    }
    const inner = parseLine(shell.body, depth + 1, Math.min(cap, shell.cap), looping);
    line.commands.push(...inner.commands);
    if (inner.background) line.background = true;
  };
  for (const token of lex(command)) {
    if (token.kind === "op") {
      flush();
      if (token.op === "&") line.background = true;
    } else if (token.kind === "redirect") {
      skipTarget = token.target;
      outputTarget = token.target && token.output;
    } else if (skipTarget) {
      // `2>&1` and `>/dev/null` send output nowhere new; any other output target is written.
      if (outputTarget && !/^(?:&?\d*|\/dev\/null|&-)$/.test(token.value)) writes = true;
      skipTarget = false;
    } else {
      words.push(token.value);
    }
  }
  flush();
  return line;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;
/** The name a program word is known by: its last path segment (`/bin/sleep` → `sleep`). */
const programName = (word: string): string => word.slice(word.lastIndexOf("/") + 1);

/** Package runners whose next word is a command to run: `pnpm dlx wait-on …`, `bun x …`. */
const RUNNERS: Readonly<Record<string, ReadonlySet<string>>> = {
  pnpm: new Set(["dlx", "exec"]),
  yarn: new Set(["dlx", "exec"]),
  bun: new Set(["x"]),
};

/**
 * Where the program of a simple command is, past assignments, prefix commands and their
 * options (redact/bash-words.ts PREFIXES, `watch` aside: it is a wait of its own), and the
 * seconds a `timeout` prefix allows it (Infinity without one; `timeout 0` sets none).
 * Undefined when a prefix's option is not known (`command -v sleep` runs nothing) or no
 * program is left.
 */
function findProgram(words: readonly string[]): { at: number; cap: number } | undefined {
  let i = 0;
  let cap = Infinity;
  while (i < words.length && ASSIGNMENT.test(words[i]!)) i++;
  while (i < words.length) {
    const name = programName(words[i]!);
    if (Object.hasOwn(RUNNERS, name) && RUNNERS[name]!.has(words[i + 1] ?? "")) {
      i += 2;
      continue;
    }
    if (name === "watch" || !Object.hasOwn(PREFIXES, name)) return { at: i, cap };
    const options = skipPrefixOptions(words, i + 1, PREFIXES[name]!);
    if (options === undefined) return undefined;
    if (options.duration > 0) cap = Math.min(cap, options.duration);
    i = options.next;
  }
  return undefined;
}

/** Where a prefix's options end (the index of the command it runs) and its duration word in seconds (0 without one); undefined when an option is unknown. */
function skipPrefixOptions(words: readonly string[], start: number, spec: PrefixSpec): { next: number; duration: number } | undefined {
  let i = start;
  let duration = 0;
  let durationSeen = false;
  while (i < words.length) {
    const word = words[i]!;
    if (word === "--") return { next: i + 1, duration };
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = word.slice(2, eq < 0 ? undefined : eq);
      if (!spec.long || !Object.hasOwn(spec.long, name)) return undefined;
      i += spec.long[name] && eq < 0 ? 2 : 1;
      continue;
    }
    if (word.startsWith("-") && word.length > 1) {
      if (spec.numeric && /^-\d+$/.test(word)) {
        i++;
        continue;
      }
      let takesNext = false;
      for (let k = 1; k < word.length; k++) {
        const flag = word[k]!;
        if (spec.values?.includes(flag)) {
          takesNext = k === word.length - 1;
          break;
        }
        if (!spec.flags?.includes(flag)) return undefined;
      }
      i += takesNext ? 2 : 1;
      continue;
    }
    if (spec.assignments && ASSIGNMENT.test(word)) {
      i++;
      continue;
    }
    if (spec.duration && !durationSeen && /^\d+(?:\.\d+)?[smhd]?$/.test(word)) {
      durationSeen = true;
      duration = durationSeconds(word);
      i++;
      continue;
    }
    break;
  }
  return i < words.length ? { next: i, duration } : undefined;
}

/** Shells that run the string after `-c`. */
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash"]);
/** A shell's long options that take a value. */
const SHELL_LONG_VALUES = new Set(["--rcfile", "--init-file"]);

/** The string a shell runs with `-c` (`bash -lc '…'`, `sudo sh -c "…"`), and the `timeout` around it; undefined for any other command. */
function shellString(words: readonly string[]): { body: string; cap: number } | undefined {
  const found = findProgram(words);
  if (found === undefined || !SHELLS.has(programName(words[found.at]!))) return undefined;
  let i = found.at + 1;
  let runsString = false;
  while (i < words.length) {
    const word = words[i]!;
    if (word === "--" || word === "-") {
      i++;
      break;
    }
    if (word.startsWith("--")) {
      i += SHELL_LONG_VALUES.has(word) ? 2 : 1;
      continue;
    }
    if ((word.startsWith("-") || word.startsWith("+")) && word.length > 1) {
      if (word.includes("c")) runsString = true;
      // `-o pipefail`, `+O extglob`: the option's name is the next word.
      i += /[oO]$/.test(word) ? 2 : 1;
      continue;
    }
    break;
  }
  const body = words[i];
  return runsString && body !== undefined ? { body, cap: found.cap } : undefined;
}

/** Options that take a value before a program's subcommand, so that `kubectl -n default rollout status` reads `rollout status`. */
const GLOBAL_VALUE_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  kubectl: new Set(
    "-n --namespace --context --cluster --kubeconfig --user -s --server --token --as --as-group --as-uid --request-timeout --cache-dir --certificate-authority --client-certificate --client-key --tls-server-name -v --v --profile --profile-output --password --username".split(
      " ",
    ),
  ),
  gh: new Set(["-R", "--repo"]),
  aws: new Set(
    "--region --profile --output --endpoint-url --query --cli-read-timeout --cli-connect-timeout --color --ca-bundle --cli-binary-format".split(
      " ",
    ),
  ),
  docker: new Set(["-c", "--context", "-H", "--host", "--config", "-l", "--log-level"]),
  podman: new Set(["-c", "--connection", "--url", "--log-level"]),
};

/** The words of `args` that are not options or their values (options taking a value are `valued`); all words after `--`. */
function positionals(args: readonly string[], valued: ReadonlySet<string> | undefined): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === "--") {
      out.push(...args.slice(i + 1));
      break;
    }
    if (word.startsWith("-") && word.length > 1) {
      if (!word.includes("=") && valued?.has(word)) i++;
    } else out.push(word);
  }
  return out;
}

/** Is `--name` (or `--name=…` with a value other than false) among the words? */
function hasFlag(args: readonly string[], name: string): boolean {
  const long = `--${name}`;
  for (const word of args) {
    if (word === long) return true;
    if (word.startsWith(`${long}=`) && !/^(?:false|0|no)$/i.test(word.slice(long.length + 1))) return true;
  }
  return false;
}

/** The value of `--timeout` (`--timeout=90s`, `--timeout 5m`) in seconds, or NaN. */
function timeoutOption(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === "--timeout") return durationSeconds(args[i + 1] ?? "");
    if (word.startsWith("--timeout=")) return durationSeconds(word.slice("--timeout=".length));
  }
  return NaN;
}

/** How long one simple command waits, in seconds (see {@link commandWaitSeconds}). */
function simpleWaitSeconds({ words, cap, inLoop }: Simple): number {
  const found = findProgram(words);
  if (found === undefined) return 0;
  const name = programName(words[found.at]!);
  const args = words.slice(found.at + 1);
  let seconds = 0;
  if (name === "sleep") {
    seconds = args.length === 0 ? 0 : args.reduce((sum, arg) => sum + durationSeconds(arg), 0);
    if (Number.isNaN(seconds)) seconds = 0;
    else if (inLoop && seconds > 0) seconds = Infinity;
  } else if (blocks(name, args)) {
    const limit = timeoutOption(args);
    seconds = limit > 0 ? limit : Infinity;
  }
  return Math.min(seconds, cap, found.cap);
}

/** Does the program `name` with `args` block until something outside changes? */
function blocks(name: string, args: readonly string[]): boolean {
  if (name === "watch" || name === "wait-on") return true;
  const path = positionals(args, Object.hasOwn(GLOBAL_VALUE_OPTIONS, name) ? GLOBAL_VALUE_OPTIONS[name] : undefined);
  switch (name) {
    case "kubectl":
      if (path[0] === "wait") return true;
      if (path[0] === "rollout" && path[1] === "status") return !args.some((a) => /^(?:--watch|-w)=(?:false|0)$/i.test(a));
      break;
    case "gh":
      if (path[0] === "run" && path[1] === "watch") return true;
      break;
    case "aws":
      if (path[1] === "wait") return true;
      break;
    case "az": {
      // `az vm wait`, `az deployment group wait`: the command's words come before its options.
      const end = args.findIndex((a) => a.startsWith("-"));
      if ((end < 0 ? args : args.slice(0, end)).includes("wait")) return true;
      break;
    }
    case "docker":
    case "podman":
      if (path[0] === "wait") return true;
      break;
  }
  return !DATA_PROGRAMS.has(name) && (hasFlag(args, "watch") || hasFlag(args, "wait"));
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

/**
 * A duration word in seconds: a number of seconds (`30`, `10.5`), with units (`30s`, `2m`,
 * `1h`, `1d`, `500ms`) or several of them (`1m30s`, as Go and kubectl write them), or
 * `infinity` (GNU sleep). NaN for anything else.
 */
export function durationSeconds(word: string): number {
  if (word === "infinity" || word === "inf") return Infinity;
  if (!/^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ms|[smhd])?)+$/.test(word)) return NaN;
  let total = 0;
  for (const [, amount, unit] of word.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ms|[smhd])?/g)) total += Number(amount) * UNIT_SECONDS[unit ?? "s"]!;
  return total;
}

// ---------------------------------------------------------------------------------------
// other tools

/** The unit of a wait parameter's number: milliseconds, seconds, or unsaid (see {@link paramSeconds}). */
type Unit = "ms" | "s" | "unsaid";

/**
 * Parameters that say how long the call itself waits for something to happen (Codex's
 * `exec_command` and `write_stdin` `yield_time_ms`; a job tool's `wait`). They count on any
 * tool but bash.
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
 * How long a tool other than bash says it waits, in seconds (0 when it does not), from its
 * own parameters:
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
 * the same way, or a duration word (`"90s"`, `"2m"`, {@link durationSeconds}).
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

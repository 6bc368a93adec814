/**
 * The parsed shell command: a bash command line read into its simple commands, through the
 * lexer (./lexer.ts), never by a pattern over the text. Words in quotes are data
 * (`echo "sleep 30"`), an `&` inside quotes is no background job, the program of each simple
 * command is found past assignments and prefix commands (`command`, `sudo`, `env`,
 * `timeout 120`, `/bin/…`), and a shell run with `-c` (`bash -c '…'`, `sh -c "…"`) stands
 * for the commands of its string.
 */
import { lex } from "./lexer.js";
import { KEYWORDS, PREFIXES, type PrefixSpec } from "./words.js";

/** How deep `bash -c '…'` strings are read inside each other. */
const MAX_SHELL_DEPTH = 4;

/**
 * A simple command: its words (values, quotes removed), the seconds a `timeout` around it
 * allows (Infinity without one), whether it runs inside a `while` or `until` loop, and
 * whether it redirects output into a file (`> notes.md`, `>> log`; not `2>&1` or `>/dev/null`).
 */
export interface SimpleCommand {
  readonly words: readonly string[];
  readonly cap: number;
  readonly inLoop: boolean;
  readonly writes: boolean;
}

/** A command line read: its simple commands, and whether it sends a job to the background. */
export interface CommandLine {
  readonly commands: readonly SimpleCommand[];
  readonly background: boolean;
}

/** A command line read into its simple commands (see {@link commandsOf} for how it is split). */
export function parseCommandLine(command: string): CommandLine {
  return parseLine(command, 0, Infinity, false);
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
function parseLine(command: string, depth: number, cap: number, inLoop: boolean): CommandLine {
  const line: { commands: SimpleCommand[]; background: boolean } = { commands: [], background: false };
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
export const programName = (word: string): string => word.slice(word.lastIndexOf("/") + 1);

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
export function findProgram(words: readonly string[]): { at: number; cap: number } | undefined {
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

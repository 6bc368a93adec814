/**
 * Previews of tool calls that show only what is known to be harmless: an allow-list, not
 * a list of secret shapes. Whatever is not known to be safe is left out and marked "…".
 * Two different calls should read differently where that can be shown safely.
 *
 * - `bash`: each command's program and its plain arguments (`kubectl delete pod web-1`,
 *   `sed -n 200,300p big.txt`, `cd app && npm test`). Quoted strings, expansions,
 *   assignments, option values other than short numbers, redirections and heredoc bodies are
 *   never shown. A command line that names a credential anywhere (`login`, `auth`,
 *   `--password`, `TOKEN=` …) shows only its programs and known subcommand words
 *   (`docker login …`).
 * - `read`/`edit`/`write` (`filePath`) and `list` (`path`): the path, relative to the
 *   session's directory, else to the home directory (`~/…`), else only its last segment,
 *   then the input's numbers and booleans (`filePath=big.txt offset=200 limit=100`).
 * - every other tool: the names of the input's top-level keys, with the values that are
 *   numbers, booleans or paths (`{limit=5, path=src, pattern}`); never free text.
 *
 * {@link redactSecrets} runs over every piece shown, as a second layer; every preview is one
 * terminal-safe line.
 */
import { homedir } from "node:os";
import nodePath from "node:path";
import { isRecord } from "../shared/record.js";
import { tokenize, type Token, type Word } from "../shell/lexer.js";
import { CLOSERS, DATA_PROGRAMS, INTERPRETER, KEYWORDS, PREFIXES, SUBCOMMANDS, type PrefixSpec } from "../shell/words.js";
import { PREVIEW_MAX, redactedStart, redactSecrets } from "./secrets.js";
import { terminalSafe } from "./terminal-safe.js";

/** Longest command text scanned; the rest is elided (the preview is 60 characters anyway). */
const MAX_SCAN = 16_384;
/** Longest word shown (program name, script path segment, key name). */
const MAX_WORD = 24;
/** Most subcommand words shown after a program. */
const MAX_SUBCOMMANDS = 2;
const ELIDED = "…";

/** Fields holding the path of the file tools, by tool. */
const PATH_FIELDS: Readonly<Record<string, string>> = { read: "filePath", edit: "filePath", write: "filePath", list: "path" };

/**
 * A one-line preview of a tool call, at most {@link PREVIEW_MAX} characters, that shows
 * only what is known to be harmless and elides the rest with "…":
 *
 * - `bash` (`input.command`): each command's program (`… node server.js` after a leading
 *   `KEY=…`; an interpreter's script too: `python manage.py migrate`), then its arguments as
 *   `previewArguments` shows them: plain words, paths, short numbers, URLs without
 *   credentials or query, plain option names (`kubectl delete pod web-1 --dry-run`,
 *   `head -n 200 big.txt`). Never a quoted string, an expansion, an assignment, an option's
 *   value but a short number, a redirection target, a heredoc body, a number of six digits
 *   or more, or a token-like word. `echo`/`printf` show their arguments only in a command
 *   line with no pipe and no redirection; `export`, `eval` and the like none. Prefixes such
 *   as `sudo`, `env`, `timeout`, `xargs`, `npx` show as `sudo … <command>`. A command line
 *   that names a credential anywhere ({@link CREDENTIAL_WORD}) or runs `sudo -S` shows only
 *   programs and at most two subcommand words from a fixed vocabulary (`docker login …`,
 *   `echo … | …`).
 * - `read`/`edit`/`write` and `list`: `filePath=<path>` / `path=<path>`, relative to
 *   `directory` when inside it, else `~/…` inside the home directory, else `…/<last segment>`;
 *   then the input's number and boolean fields, paging first (`offset=200 limit=100`).
 * - any other tool, or an input of another shape: the sorted names of the input's keys,
 *   with the value of a number, boolean or path field (`{limit=5, path=src, pattern}`);
 *   `[…]` for an array, `…` for anything else. Never a string but a path.
 *
 * Keys and option names that name a credential never show their value. {@link redactSecrets}
 * is applied to every piece shown, as a second layer. Never throws: on any failure the
 * preview is "…".
 */
export function previewCall(tool: string, input: unknown, directory?: string): string {
  try {
    const record = isRecord(input) ? input : undefined;
    if (tool === "bash" && record && typeof record.command === "string") return previewCommand(record.command);
    const field = Object.hasOwn(PATH_FIELDS, tool) ? PATH_FIELDS[tool] : undefined;
    if (field && record && typeof record[field] === "string") {
      const suffix = scalarFields(record, field);
      const path = previewPath(field, record[field], directory, PREVIEW_MAX - (suffix === "" ? 0 : suffix.length + 1));
      return suffix === "" ? path : `${path} ${suffix}`;
    }
    return previewKeys(input, directory);
  } catch {
    return ELIDED;
  }
}

/**
 * Mixes letters and digits the way a generated token does: three or more switches between
 * letters and digits, four or more digits, or a capital letter and a digit in 8+
 * characters. `python3.11`, `sha256sum`, `e2e.sh` pass; `S3cretPass9`, `abc12345`,
 * `WMKUSEFE0` do not. (A short lowercase word with a digit or two, `hunter22`, passes: a
 * program name can look like that, so a secret written where a program goes can show.)
 */
export function isTokenLike(word: string): boolean {
  if (!/[A-Za-z]/.test(word) || !/\d/.test(word)) return false;
  let digits = 0;
  let switches = 0;
  let previous = "";
  for (const char of word) {
    const kind = /\d/.test(char) ? "d" : /[A-Za-z]/.test(char) ? "a" : "";
    if (kind === "d") digits++;
    if (kind && previous && kind !== previous) switches++;
    previous = kind;
  }
  return switches >= 3 || digits >= 4 || (word.length >= 8 && /[A-Z]/.test(word));
}

// ---------------------------------------------------------------------------------------
// bash

/** Shown form of a program word (`npm`, `./deploy.sh`, `…/run.sh`), or undefined when it is not known to be harmless. */
function programWord(word: Token | undefined): string | undefined {
  if (word?.kind !== "word" || !word.plain) return undefined;
  const raw = word.raw;
  if (CLOSERS.has(raw) || KEYWORDS.has(raw)) return raw;
  if (!/^[A-Za-z0-9._+~/-]+$/.test(raw) || raw.startsWith("-") || !/[A-Za-z]/.test(raw)) return undefined;
  const segments = raw.split("/");
  const base = segments.at(-1)!;
  if (base === "" || base.length > MAX_WORD || isTokenLike(base) || !/[A-Za-z]/.test(base)) return undefined;
  if (segments.length === 1) return raw;
  const inner = segments.slice(0, -1).filter((s) => s !== "" && s !== "." && s !== ".." && s !== "~");
  const shortRelative = !raw.startsWith("/") && raw.length <= MAX_WORD && inner.every((s) => !isTokenLike(s));
  return shortRelative ? raw : `${ELIDED}/${base}`;
}

/** The name a program word is known by: its last path segment. */
const programName = (raw: string): string => raw.slice(raw.lastIndexOf("/") + 1);

const isAssignment = (word: Token | undefined): boolean =>
  word?.kind === "word" && /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/.test(word.raw);

/** Where a prefix's options end: the index of the command it runs, or undefined when an option is unknown. */
function skipPrefixOptions(
  words: readonly Token[],
  start: number,
  spec: PrefixSpec,
): { next: number; elided: boolean; stdin: boolean } | undefined {
  let i = start;
  let elided = false;
  let stdin = false;
  let durationSeen = false;
  while (i < words.length) {
    const word = words[i]!;
    if (word.kind !== "word") return undefined;
    const raw = word.raw;
    if (raw === "--") return { next: i + 1, elided: true, stdin };
    if (raw.startsWith("--")) {
      if (!word.plain && !/^--[a-z-]+=/.test(raw)) return undefined;
      const eq = raw.indexOf("=");
      const name = raw.slice(2, eq < 0 ? undefined : eq);
      if (!spec.long || !Object.hasOwn(spec.long, name)) return undefined;
      if (name === "stdin") stdin = true;
      i += spec.long[name] && eq < 0 ? 2 : 1;
      elided = true;
      continue;
    }
    if (raw.startsWith("-") && raw.length > 1) {
      if (spec.numeric && /^-\d+$/.test(raw)) {
        i++;
        elided = true;
        continue;
      }
      let takesNext = false;
      for (let k = 1; k < raw.length; k++) {
        const flag = raw[k]!;
        if (spec.flags?.includes(flag)) {
          if (flag === "S") stdin = true;
        } else if (spec.values?.includes(flag)) {
          takesNext = k === raw.length - 1;
          break;
        } else return undefined;
      }
      i += takesNext ? 2 : 1;
      elided = true;
      continue;
    }
    if (spec.assignments && isAssignment(word)) {
      i++;
      elided = true;
      continue;
    }
    if (spec.duration && !durationSeen && word.plain && /^\d+(?:\.\d+)?[smhd]?$/.test(raw)) {
      durationSeen = true;
      i++;
      elided = true;
      continue;
    }
    break;
  }
  return { next: i, elided, stdin };
}

/** Which arguments a command line may show (see {@link previewCommand}). */
interface ArgumentMode {
  /** Arguments are shown ({@link previewArguments}); otherwise only known subcommand words. */
  readonly arguments: boolean;
  /** The arguments of `echo`, `printf` and `print` too: the command line has no pipe and no redirection. */
  readonly data: boolean;
}

/**
 * The preview of one simple command (no operators): the pieces shown, or `stop` when it
 * is `sudo -S` fed by a pipe (nothing more may be shown).
 */
function previewSimple(words: readonly Token[], piped: boolean, mode: ArgumentMode): { text: string } | { stop: true } {
  const pieces: string[] = [];
  const elide = () => {
    if (pieces.at(-1) !== ELIDED) pieces.push(ELIDED);
  };
  let i = 0;
  while (isAssignment(words[i])) {
    elide();
    i++;
  }
  for (;;) {
    const shown = programWord(words[i]);
    if (shown === undefined) {
      if (i < words.length) elide();
      return { text: pieces.join(" ") };
    }
    const name = programName((words[i] as Word).raw);
    const spec = Object.hasOwn(PREFIXES, name) ? PREFIXES[name] : undefined;
    if (!spec && !KEYWORDS.has(name)) break;
    pieces.push(redactSecrets(shown));
    i++;
    if (!spec) continue;
    const options = skipPrefixOptions(words, i, spec);
    if (options === undefined) {
      elide();
      return { text: pieces.join(" ") };
    }
    if (name === "sudo" && options.stdin && piped) return { stop: true };
    if (options.elided) elide();
    i = options.next;
  }
  const program = (words[i] as Word).raw;
  const name = programName(program);
  pieces.push(redactSecrets(programWord(words[i])!));
  i++;
  if (INTERPRETER.test(name)) {
    const next = words[i];
    const module = words[i + 1];
    if (
      name.startsWith("python") &&
      next?.kind === "word" &&
      next.raw === "-m" &&
      module?.kind === "word" &&
      module.plain &&
      /^[A-Za-z_][A-Za-z0-9_.]*$/.test(module.raw) &&
      module.raw.length <= MAX_WORD &&
      !isTokenLike(module.raw)
    ) {
      pieces.push("-m", redactSecrets(module.raw));
      i += 2;
    } else if (next?.kind === "word" && !next.raw.startsWith("-")) {
      const script = programWord(next);
      if (script !== undefined && !CLOSERS.has(script) && !KEYWORDS.has(script)) {
        pieces.push(redactSecrets(script));
        i++;
      }
    }
  }
  if (mode.arguments && (!DATA_PROGRAMS.has(name) || (ECHOING.has(name) && mode.data))) {
    previewArguments(words, i, pieces);
    return { text: pieces.join(" ") };
  }
  if (!DATA_PROGRAMS.has(name)) {
    for (let shown = 0; shown < MAX_SUBCOMMANDS; shown++) {
      const word = words[i];
      if (word?.kind !== "word" || !word.plain || !SUBCOMMANDS.has(word.raw)) break;
      pieces.push(word.raw);
      i++;
    }
  }
  if (i < words.length) elide();
  return { text: pieces.join(" ") };
}

/**
 * The arguments of a command from `start` on, appended to `pieces`; what is not shown is one
 * "…" per run:
 *
 * - a plain argument word ({@link argumentWord}): shown;
 * - an option: shown when it is a plain option name (`-n`, `-rf`, `--dry-run`); one with a
 *   value glued to it (`--name=…`, `-pS3cret`) is not. The word after an option may be its
 *   value: only a short number is shown there (`-n 200`), and never after `-p`, `-a`, `-k`,
 *   `-u`, `-w` or `-K`, which carry passwords and keys in common tools;
 * - a redirection and its target, quoted or expanded words, assignments: never.
 */
function previewArguments(words: readonly Token[], start: number, pieces: string[]): void {
  const elide = () => {
    if (pieces.at(-1) !== ELIDED) pieces.push(ELIDED);
  };
  let option: string | undefined;
  for (let i = start; i < words.length; i++) {
    const word = words[i]!;
    const after = option;
    option = undefined;
    if (word.kind !== "word") {
      elide();
      if (word.kind === "redirect") i++;
      continue;
    }
    const raw = word.raw;
    if (raw === "--" && word.plain) {
      pieces.push(raw);
      continue;
    }
    if (raw.startsWith("-") && raw.length > 1) {
      if (word.plain && OPTION_NAME.test(raw)) pieces.push(raw);
      else elide();
      if (!raw.includes("=")) option = raw;
      continue;
    }
    if (after !== undefined) {
      if (word.plain && SHORT_NUMBER.test(raw) && !CREDENTIAL_OPTIONS.has(after)) pieces.push(raw);
      else elide();
      continue;
    }
    const shown = argumentWord(word);
    if (shown === undefined) elide();
    else pieces.push(shown);
  }
}

/** A plain option name: a short cluster of at most three letters, or a long name (`--dry-run`, `--noEmit`). */
const OPTION_NAME = /^(?:-[A-Za-z]{1,3}|--[A-Za-z][A-Za-z0-9-]{0,23})$/;
/** Short options whose value is a password or key in common tools (mysql, sshpass, redis-cli, openssl, curl, ldap). */
const CREDENTIAL_OPTIONS = new Set(["-p", "-a", "-k", "-u", "-w", "-K"]);
/** A short number, a range or a pair of them: line counts, ports, sed's `1,100p`. Never six digits (one-time codes). */
const SHORT_NUMBER = /^\+?\d{1,5}(?:[,:.-]\d{1,5})?[a-z]?$/;
/** Longest argument shown whole, characters; longer paths keep their last segment. */
const MAX_ARGUMENT = 40;
/** Programs whose arguments are printed data: shown only in a command line with no pipe and no redirection. */
const ECHOING = new Set(["echo", "printf", "print"]);
/**
 * A command line that names a credential anywhere (`--password`, `auth`, `login`, `TOKEN=`,
 * `sshpass`, `deploy_key`, `--otp` …) shows no argument at all: the arguments of such a
 * command are what a secret would be.
 */
const CREDENTIAL_WORD = /pass|pwd|secret|token|auth|key|cred|login|otp|cookie|bearer|jwt/i;
/** `sudo` and an option `-S` / `--stdin` in one command line: what is piped to sudo is a password. */
const SUDO = /\bsudo\b/;
const STDIN_OPTION = /\s(?:-[A-Za-z]*S|--stdin)\b/;

/**
 * How a plain argument is shown, or undefined when it is not known to be harmless:
 *
 * - a short number (at most five digits, or a range such as `1,100p`), `.` or `..`;
 * - a URL (`https://host/path`) without credentials, query or fragment, of at most
 *   {@link MAX_ARGUMENT} characters, no part of it token-like;
 * - a word of letters, digits and `. _ / + , ~ * -` (a leading `@` too: `@types/node`) none of
 *   whose path segments is longer than 24 characters or token-like ({@link isTokenLike});
 *   an absolute or longer path shows as `…/<last segment>`.
 *
 * Never a word with `=`, `:`, `@` inside, `$`, quotes or escapes, and never one that
 * {@link redactSecrets} would change.
 */
function argumentWord(word: Word): string | undefined {
  if (!word.plain) return undefined;
  const raw = word.raw;
  if (redactSecrets(raw) !== raw) return undefined;
  if (SHORT_NUMBER.test(raw)) return raw;
  if (raw.includes("://")) return urlWord(raw);
  if (raw === "." || raw === "..") return raw;
  if (!/^@?[A-Za-z0-9._/+,~*-]+$/.test(raw) || !/[A-Za-z]/.test(raw)) return undefined;
  const segments = raw.split("/");
  const harmless = (segment: string) => segment.length <= MAX_WORD && !isTokenLike(segment);
  if (!raw.startsWith("/") && raw.length <= MAX_ARGUMENT && segments.every(harmless)) return raw;
  const base = segments.at(-1)!;
  return base !== "" && harmless(base) && /[A-Za-z]/.test(base) ? `${ELIDED}/${base}` : undefined;
}

/** A URL shown whole (see {@link argumentWord}), or undefined. */
function urlWord(raw: string): string | undefined {
  const match = /^(?:https?|wss?|ftp|git|ssh|s3|gs):\/\/([A-Za-z0-9.-]+)(?::\d{1,5})?(\/[A-Za-z0-9._~/+,-]*)?$/.exec(raw);
  if (!match || raw.length > MAX_ARGUMENT) return undefined;
  const parts = [...match[1]!.split("."), ...(match[2] ?? "").split("/")];
  return parts.every((part) => part.length <= MAX_WORD && !isTokenLike(part)) ? raw : undefined;
}

/** How an operator between two shown commands reads. */
const OPERATOR_TEXT: Readonly<Record<string, string>> = { "&&": " && ", "||": " || ", "|": " | ", "&": " & ", ";": "; " };
/** Which of several operators between two commands to show: the first listed wins. */
const OPERATOR_RANK = ["|", "&&", "||", "&", ";"];

/**
 * The preview of a bash command: with its arguments ({@link previewArguments}), unless the
 * command line names a credential ({@link CREDENTIAL_WORD}) or pipes into `sudo -S`; then
 * only programs and known subcommand words.
 */
function previewCommand(command: string): string {
  const cut = command.length > MAX_SCAN;
  const scanned = cut ? command.slice(0, MAX_SCAN) : command;
  const tokens = tokenize(scanned);
  // A cut can split the last word: never show it.
  if (cut && tokens.at(-1)?.kind === "word") tokens[tokens.length - 1] = { kind: "word", raw: "", plain: false };
  if (!CREDENTIAL_WORD.test(scanned) && !(SUDO.test(scanned) && STDIN_OPTION.test(scanned))) {
    const data = !tokens.some((token) => token.kind === "redirect" || (token.kind === "op" && token.op === "|"));
    const full = previewTokens(tokens, cut, { arguments: true, data });
    if (full !== undefined) return full;
  }
  return previewTokens(tokens, cut, { arguments: false, data: false }) ?? ELIDED;
}

/** The preview of a tokenized command line, or undefined when arguments were to be shown and it pipes into `sudo -S`. */
function previewTokens(tokens: readonly Token[], cut: boolean, mode: ArgumentMode): string | undefined {
  let text = "";
  let pending = new Set<string>();
  let words: Token[] = [];
  let stopped = false;
  let abandoned = false;
  const flush = (): void => {
    if (words.length === 0) return;
    const result = previewSimple(words, pending.has("|"), mode);
    const op = OPERATOR_RANK.find((o) => pending.has(o)) ?? ";";
    if ("stop" in result) {
      if (mode.arguments) abandoned = true;
      text += text ? `${OPERATOR_TEXT[op]}${ELIDED}` : ELIDED;
      stopped = true;
    } else {
      text += text ? `${OPERATOR_TEXT[op]}${result.text}` : result.text;
    }
    words = [];
    pending = new Set();
  };
  for (const token of tokens) {
    if (token.kind === "op") {
      flush();
      if (stopped || text.length > PREVIEW_MAX) break;
      if (text) pending.add(token.op === "\n" ? ";" : token.op);
    } else words.push(token);
  }
  if (!stopped) flush();
  if (abandoned) return undefined;
  if (cut && !stopped && !text.endsWith(ELIDED)) text += ` ${ELIDED}`;
  text = text.replace(/… …/g, ELIDED).trim();
  return clamp(text === "" ? ELIDED : text);
}

/** At most {@link PREVIEW_MAX} characters, cut at a space when one is near, ending in "…". */
function clamp(text: string): string {
  if (text.length <= PREVIEW_MAX) return text;
  let head = text.slice(0, PREVIEW_MAX - 2);
  const space = head.lastIndexOf(" ");
  if (space >= PREVIEW_MAX / 2) head = head.slice(0, space);
  head = head.trimEnd();
  return head.endsWith(ELIDED) ? head : `${head} ${ELIDED}`;
}

// ---------------------------------------------------------------------------------------
// file tools

/** `field=<path>`: relative to `directory`, else `~/…`, else `…/<last segment>`. */
function previewPath(field: string, path: string, directory: string | undefined, max: number): string {
  if (path === "") return `${field}=${ELIDED}`;
  // No real path is this long; keep its last segment only.
  if (path.length > MAX_SCAN)
    return `${field}=${ELIDED}/${clampEnd(terminalSafe(redactSecrets(path.slice(-MAX_SCAN).split(/[\\/]/).pop() ?? "")), max - field.length - 3)}`;
  const windows = /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
  const p = windows ? nodePath.win32 : nodePath.posix;
  const inside = (base: string | undefined): string | undefined => {
    if (!base || !p.isAbsolute(base)) return undefined;
    const rel = p.relative(base, path);
    if (rel === "") return ".";
    return rel.startsWith("..") || p.isAbsolute(rel) ? undefined : rel.split(p.sep).join("/");
  };
  let shown: string;
  const base = p.basename(path) || ELIDED;
  if (p.isAbsolute(path)) {
    const inDirectory = inside(directory);
    const inHome = inDirectory === undefined ? inside(safeHomedir()) : undefined;
    shown = inDirectory ?? (inHome !== undefined ? (inHome === "." ? "~" : `~/${inHome}`) : `${ELIDED}/${base}`);
  } else {
    const normal = p.normalize(path).split(p.sep).join("/");
    shown = normal.startsWith("../") || normal === ".." ? `${ELIDED}/${base}` : normal;
  }
  shown = terminalSafe(redactSecrets(shown.replace(/\s+/g, " ")));
  const room = max - field.length - 1;
  if (shown.length > room) {
    // Keep the end: the file name says most. Whole segments when they fit.
    const segments = shown.split("/");
    let tail = segments.pop()!;
    while (segments.length > 0 && tail.length + segments.at(-1)!.length + 3 <= room) tail = `${segments.pop()}/${tail}`;
    shown = tail.length + 2 <= room ? `${ELIDED}/${tail}` : `${ELIDED}${tail.slice(-(room - 1))}`;
  }
  return `${field}=${shown}`;
}

/** The last `room` characters of `text`, "…" first when it is cut. */
const clampEnd = (text: string, room: number): string => (text.length <= room ? text : `${ELIDED}${text.slice(-(room - 1))}`);

function safeHomedir(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------
// other tools

/** A key name shown as it is: a short identifier that does not look like a token. */
const isPlainKey = (key: string): boolean =>
  /^[A-Za-z_$][A-Za-z0-9_$.-]*$/.test(key) && key.length <= 32 && !isTokenLike(key) && redactSecrets(key) === key;

/** Input keys whose value is a path, shown as one ({@link previewPath}) by any tool. */
const PATH_KEYS = new Set(["path", "filePath", "file", "dir", "directory", "cwd"]);
/** Key names whose value may be a credential or a code: their values are never shown. */
const SECRET_KEY = /pass|pwd|secret|token|auth|key|cred|login|otp|cookie|bearer|jwt|pin|code|cvv|ssn|account/i;
/** Number and flag inputs shown first, in this order, then the others by name. */
const PAGING_KEYS = ["offset", "limit", "page", "line", "start", "end"];

/**
 * `key=value` of an input's number and boolean fields but `skip`, joined by spaces: the paging
 * fields first (`offset=200 limit=100`), then the others by name. Only plain key names
 * that name no credential ({@link SECRET_KEY}); integers of at most nine digits, other
 * numbers within nine characters. Empty when there are none.
 */
function scalarFields(record: Record<string, unknown>, skip: string): string {
  const keys = Object.keys(record).filter((key) => key !== skip && scalarText(key, record[key]) !== undefined);
  keys.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return keys.map((key) => `${key}=${scalarText(key, record[key])}`).join(" ");
}

const rank = (key: string): number => {
  const at = PAGING_KEYS.indexOf(key);
  return at < 0 ? PAGING_KEYS.length : at;
};

/** How a number or boolean field is shown, or undefined when it is not (see {@link scalarFields}). */
function scalarText(key: string, value: unknown): string | undefined {
  if (!isPlainKey(key) || SECRET_KEY.test(key)) return undefined;
  if (typeof value === "boolean") return String(value);
  if (typeof value !== "number" || !Number.isFinite(value)) return undefined;
  const text = String(value);
  return text.length <= 9 && /^-?[\d.]+$/.test(text) ? text : undefined;
}

/**
 * `{limit=5, path=src, pattern}`: the sorted key names, each with its value when that is a
 * number or boolean ({@link scalarText}) or, under a path key ({@link PATH_KEYS}), a path
 * ({@link previewPath}); then one `…` for keys not shown. `[…]` for an array, `…` for anything
 * else. No other value is shown: free text (a pattern, a URL, a body) can hold anything.
 */
function previewKeys(input: unknown, directory: string | undefined): string {
  if (Array.isArray(input)) return `[${ELIDED}]`;
  if (!isRecord(input)) return input === undefined || input === null ? "{}" : ELIDED;
  const keys = Object.keys(input);
  const plain = keys.filter(isPlainKey).sort();
  let more = plain.length < keys.length;
  const shown: string[] = [];
  let length = 2;
  for (const key of plain) {
    const value = input[key];
    const scalar = scalarText(key, value);
    const room = PREVIEW_MAX - 3 - length - 2;
    const item =
      scalar !== undefined
        ? `${key}=${scalar}`
        : PATH_KEYS.has(key) && typeof value === "string" && room >= key.length + 4
          ? previewPath(key, value, directory, Math.min(room, PREVIEW_MAX / 2))
          : key;
    if (length + item.length + 2 > PREVIEW_MAX - 3) {
      more = true;
      break;
    }
    shown.push(item);
    length += item.length + 2;
  }
  if (more) shown.push(ELIDED);
  return `{${shown.join(", ")}}`;
}

/** Longest tool name shown, characters (MCP names can be long). */
const MAX_TOOL_NAME = 40;

/** A tool's name as it is shown: secrets masked, terminal-safe, at most 40 characters; "?" when empty. */
export const shownToolName = (tool: string): string => terminalSafe(redactedStart(tool, MAX_TOOL_NAME)).slice(0, MAX_TOOL_NAME) || "?";

/**
 * Previews of tool calls that show only what is known to be harmless: an allow-list, not
 * a list of secret shapes. Whatever is not known to be safe is left out and marked "…".
 *
 * - `bash`: the program and up to two subcommand words of each command (`docker login …`,
 *   `npm run build`, `cd … && npm test`). Arguments, flags, assignments, quoted strings,
 *   URLs, redirections and heredoc bodies are never shown.
 * - `read`/`edit`/`write` (`filePath`) and `list` (`path`): the path, relative to the
 *   session's directory, else to the home directory (`~/…`), else only its last segment.
 * - every other tool: the names of the input's top-level keys, never a value.
 *
 * {@link redactSecrets} runs over every piece shown, as a second layer.
 */
import { homedir } from "node:os";
import nodePath from "node:path";
import { isRecord } from "../shared/record.js";
import { tokenize, type Token, type Word } from "./bash-lexer.js";
import { CLOSERS, DATA_PROGRAMS, INTERPRETER, KEYWORDS, PREFIXES, SUBCOMMANDS, type PrefixSpec } from "./bash-words.js";
import { PREVIEW_MAX, redactSecrets } from "./secrets.js";

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
 * - `bash` (`input.command`): each command's program and at most two subcommand words
 *   from a fixed vocabulary (`docker login …`, `npm run build`, `cd … && npm test`,
 *   `… node server.js` after a leading `KEY=…`; an interpreter's script too:
 *   `python manage.py migrate`, `sh ./test.sh`). Flags, assignments, quoted strings,
 *   URLs, redirections, numbers and heredoc bodies are never shown; prefixes such as
 *   `sudo`, `env`, `timeout`, `xargs`, `npx` show as `sudo … <command>`; after a pipe
 *   into `sudo -S`/`--stdin` nothing more of the command line is shown (`echo … | …`).
 * - `read`/`edit`/`write` and `list`: `filePath=<path>` / `path=<path>`, relative to
 *   `directory` when inside it, else `~/…` inside the home directory, else `…/<last segment>`.
 * - any other tool, or an input of another shape: the sorted names of the input's keys,
 *   `{path, pattern}`; `[…]` for an array, `…` for anything else. Never a value.
 *
 * {@link redactSecrets} is applied to every piece shown, as a second layer.
 * Never throws: on any failure the preview is "…".
 */
export function previewCall(tool: string, input: unknown, directory?: string): string {
  try {
    const record = isRecord(input) ? input : undefined;
    if (tool === "bash" && record && typeof record.command === "string") return previewCommand(record.command);
    const field = Object.hasOwn(PATH_FIELDS, tool) ? PATH_FIELDS[tool] : undefined;
    if (field && record && typeof record[field] === "string") return previewPath(field, record[field], directory);
    return previewKeys(input);
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

/**
 * The preview of one simple command (no operators): the pieces shown, or `stop` when it
 * is `sudo -S` fed by a pipe (nothing more may be shown).
 */
function previewSimple(words: readonly Token[], piped: boolean): { text: string } | { stop: true } {
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

/** How an operator between two shown commands reads. */
const OPERATOR_TEXT: Readonly<Record<string, string>> = { "&&": " && ", "||": " || ", "|": " | ", "&": " & ", ";": "; " };
/** Which of several operators between two commands to show: the first listed wins. */
const OPERATOR_RANK = ["|", "&&", "||", "&", ";"];

/** The preview of a bash command. */
function previewCommand(command: string): string {
  const cut = command.length > MAX_SCAN;
  const tokens = tokenize(cut ? command.slice(0, MAX_SCAN) : command);
  // A cut can split the last word: never show it.
  if (cut && tokens.at(-1)?.kind === "word") tokens[tokens.length - 1] = { kind: "word", raw: "", plain: false };
  let text = "";
  let pending = new Set<string>();
  let words: Token[] = [];
  let stopped = false;
  const flush = (): void => {
    if (words.length === 0) return;
    const result = previewSimple(words, pending.has("|"));
    const op = OPERATOR_RANK.find((o) => pending.has(o)) ?? ";";
    if ("stop" in result) {
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
function previewPath(field: string, path: string, directory?: string): string {
  if (path === "") return `${field}=${ELIDED}`;
  // No real path is this long; keep its last segment only.
  if (path.length > MAX_SCAN)
    return `${field}=${ELIDED}/${clampEnd(redactSecrets(path.slice(-MAX_SCAN).split(/[\\/]/).pop() ?? ""), PREVIEW_MAX - field.length - 3)}`;
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
  shown = redactSecrets(shown.replace(/\s+/g, " "));
  const room = PREVIEW_MAX - field.length - 1;
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

/** `{a, b, c}`: the sorted key names, then one `…` for keys not shown; `[…]` for an array, `…` for anything else. */
function previewKeys(input: unknown): string {
  if (Array.isArray(input)) return `[${ELIDED}]`;
  if (!isRecord(input)) return input === undefined || input === null ? "{}" : ELIDED;
  const keys = Object.keys(input);
  const plain = keys.filter(isPlainKey).sort();
  let more = plain.length < keys.length;
  const shown: string[] = [];
  let length = 2;
  for (const key of plain) {
    if (length + key.length + 2 > PREVIEW_MAX - 3) {
      more = true;
      break;
    }
    shown.push(key);
    length += key.length + 2;
  }
  if (more) shown.push(ELIDED);
  return `{${shown.join(", ")}}`;
}

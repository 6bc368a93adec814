/**
 * Reading a session export written by `opencode export <sessionID>`: `{ info, messages }`,
 * `messages` = `Array<{ info, parts }>`, oldest first; or a V2 session saved from opencode's
 * V2 API (`/api/session/{id}/message` or `/history`). Either becomes a {@link SessionData}
 * through hosts/opencode; a Claude Code or Codex transcript (JSONL) through its host.
 */
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync, statSync } from "node:fs";
import { constants } from "node:buffer";
import type { z } from "zod";
import { builtin } from "../shared/builtin.js";
import { isRecord } from "../shared/record.js";
import { lazily, zod } from "../shared/zod.js";
import { specialKind } from "./file-kind.js";
import type { SessionData } from "../model/session.js";
import { v1SessionData, v2SessionData } from "../hosts/opencode/session.js";
import { readTranscript } from "../hosts/read.js";
import { TranscriptError, transcriptRecord } from "../hosts/transcript.js";
import { basename } from "node:path";

/** A problem with an export file; `message` is one line that names the file. */
export class ExportError extends Error {
  override readonly name = "ExportError";
}

/**
 * The fields of an export the guard relies on; everything else passes through untouched.
 * Built with zod on first use: a well-formed export never needs it (see {@link isSessionExport}).
 */
export const exportSchema = lazily(() => {
  const z = zod();
  return z.looseObject({
    info: z.looseObject({ id: z.string().min(1) }),
    messages: z
      .array(
        z.looseObject({
          info: z.looseObject({ id: z.string().min(1), role: z.enum(["user", "assistant"]) }),
          parts: z.array(z.unknown()),
        }),
      )
      .min(1, "the export has no messages"),
  });
});

/** A validated export. */
export type SessionExport = z.infer<ReturnType<typeof exportSchema>>;

/** V8's longest string (~512 MiB of UTF-16 units): larger files cannot be parsed as one JSON text. */
const MAX_JSON_BYTES = constants.MAX_STRING_LENGTH;

/**
 * Heap a replay needs per byte of export. Measured with `--max-old-space-size` on exports
 * of 100 to 300 MB: 2.8 (ASCII only) to 3.9 (some non-ASCII text, which V8 then holds as
 * UTF-16); rounded up. Beyond the heap limit Node.js aborts with a fatal out-of-memory
 * stack trace, so a file that would not fit is refused before it is read.
 */
export const HEAP_BYTES_PER_EXPORT_BYTE = 4.5;

/** Bounds on what {@link readExport} accepts; tests lower them instead of writing 500 MB. */
export interface ReadLimits {
  /** Largest export, bytes. Default: V8's longest string. */
  readonly maxBytes?: number;
  /** Heap the replay may use, bytes. Default: V8's heap limit minus the heap in use. */
  readonly heapBytes?: number;
  /** Where "-" reads from. Default: process.stdin. */
  readonly stdin?: AsyncIterable<Uint8Array | string>;
}

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);

/**
 * Heap (bytes) a replay may always use: Node.js's heap limit is never this low unless set by
 * hand (`--max-old-space-size`). An export that needs no more is read without asking V8,
 * whose module costs a small replay more than reading its file.
 */
const ALWAYS_ROOM_BYTES = 64 * 2 ** 20;

/** V8's heap limit minus the heap in use, bytes (node:v8, required on first use). */
function freeHeapBytes(): number {
  const { getHeapStatistics } = builtin<typeof import("node:v8")>("node:v8");
  const stats = getHeapStatistics();
  return stats.heap_size_limit - stats.used_heap_size;
}

/** Why an export of `bytes` cannot be replayed here, or undefined when it can. `size` describes it. */
function sizeProblem(bytes: number, limits: ReadLimits, size = `${mib(bytes)} MiB`): string | undefined {
  const maxBytes = limits.maxBytes ?? MAX_JSON_BYTES;
  if (bytes > maxBytes) return `${size} is over the ${mib(maxBytes)} MiB a JSON text can have here`;
  const needed = bytes * HEAP_BYTES_PER_EXPORT_BYTE;
  if (limits.heapBytes === undefined && needed <= ALWAYS_ROOM_BYTES) return undefined;
  const heap = limits.heapBytes ?? freeHeapBytes();
  if (needed <= heap) return undefined;
  const suggestion = Math.ceil((needed / 2 ** 20 + 256) / 256) * 256;
  return (
    `${size} would need about ${Math.ceil(needed / 2 ** 20)} MiB of memory to replay, more than the ` +
    `${Math.floor(heap / 2 ** 20)} MiB Node.js may use here; retry with NODE_OPTIONS=--max-old-space-size=${suggestion}`
  );
}

/** What a JSON value is, in words: `a list`, `an object`, `a string`, `null`… */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  const type = typeof value;
  return type === "object" ? "an object" : type === "undefined" ? "nothing" : `a ${type}`;
}

/** What a schema expects, in words: `object`, `list`, `string`. */
const EXPECTED: Readonly<Record<string, string>> = { object: "object", array: "list", string: "string" };

/** The value at `path` in `json` (undefined when the path leads nowhere). */
function valueAt(json: unknown, path: readonly PropertyKey[]): unknown {
  let value = json;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * The first thing wrong with an export, in plain words (not zod's): `no \`info\` object`,
 * `\`messages\` is not a list: it is a string`, `\`messages[0].info.id\` is empty`; a
 * message the schema itself sets (`the export has no messages`) after the field's path.
 */
function firstIssue(error: z.ZodError, json: unknown): string {
  const issue = error.issues[0];
  if (!issue) return "not an opencode export";
  const path = issue.path.map((key, i) => (typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`)).join("");
  const value = valueAt(json, issue.path);
  if (issue.code === "invalid_type") {
    const expected = EXPECTED[issue.expected] ?? issue.expected;
    if (path === "") return `the JSON is ${kindOf(value)}, not an object with \`info\` and \`messages\``;
    if (value === undefined) return `no \`${path}\` ${expected}`;
    return `\`${path}\` is not ${expected === "object" ? "an object" : `a ${expected}`}: it is ${kindOf(value)}`;
  }
  if (issue.code === "too_small" && issue.origin === "string" && value === "") return `\`${path}\` is empty`;
  if (issue.code === "invalid_value") {
    const allowed = issue.values.map((v) => String(v)).join(" or ");
    return `\`${path}\` is ${typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : kindOf(value)}, not ${allowed}`;
  }
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * {@link exportSchema}'s test, by hand and without copying: zod builds a copy of every
 * message, which made it a fifth of a large replay. zod still explains what is wrong.
 */
export function isSessionExport(json: unknown): json is SessionExport {
  if (!isRecord(json) || !isRecord(json.info) || typeof json.info.id !== "string" || json.info.id === "") return false;
  const messages = json.messages;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    if (!isRecord(message) || !isRecord(message.info) || !Array.isArray(message.parts)) return false;
    const { id, role } = message.info;
    if (typeof id !== "string" || id === "" || (role !== "user" && role !== "assistant")) return false;
  }
  return true;
}

/** `type` values of a V2 session message (`@opencode-ai/sdk/v2` `SessionMessage`). */
const V2_MESSAGE_TYPES = new Set(["user", "assistant", "compaction", "synthetic", "system", "shell", "agent-switched", "model-switched"]);

/**
 * A V2 session saved from opencode's V2 API (`GET /api/session/{id}/message`: `{ data:
 * SessionMessage[], cursor }`, either order; `GET /api/session/{id}/history`: `{ data:
 * SessionDurableEvent[], hasMore }`) as a session (hosts/opencode/v2.ts), messages of no role
 * (agent or model switched) left out. The session id is the events' `aggregateID` (or
 * `sessionID`), else `name`; its record has no synthetic continue turn.
 * @returns the session, or undefined when `json` is neither form or holds no message.
 */
export function fromV2Session(json: unknown, name: string): SessionData | undefined {
  if (!isRecord(json) || !Array.isArray(json.data) || json.data.length === 0) return undefined;
  const items: unknown[] = json.data;
  const isEvent = (item: unknown) => isRecord(item) && typeof item.type === "string" && item.type.startsWith("session.");
  const isMessage = (item: unknown) => isRecord(item) && typeof item.type === "string" && V2_MESSAGE_TYPES.has(item.type);
  let records: { messages: unknown[] } | { events: unknown[] };
  if (items.every(isEvent)) records = { events: items };
  else if (items.every(isMessage)) records = { messages: items };
  else return undefined;
  const first = items[0] as Record<string, unknown>;
  const durable = isRecord(first.durable) ? first.durable.aggregateID : undefined;
  const data = isRecord(first.data) ? first.data.sessionID : undefined;
  const id = [durable, data, first.sessionID].find((v): v is string => typeof v === "string" && v !== "") ?? name;
  const session = v2SessionData({ id }, records, "drop");
  return session.timeline.entries.length === 0 ? undefined : session;
}

/**
 * Validates parsed JSON as an `opencode export`.
 * @throws ExportError "`<name>`: <what is wrong>", naming the first offending field.
 */
export function validateExport(json: unknown, name: string): SessionExport {
  if (isSessionExport(json)) return json;
  const result = exportSchema().safeParse(json);
  if (!result.success) throw new ExportError(`${name}: not an opencode session export (${firstIssue(result.error, json)})`);
  return result.data;
}

/**
 * Parsed JSON as a session: an `opencode export`, or a V2 session saved from the V2 API (see
 * {@link fromV2Session}).
 * @throws ExportError "`<name>`: <what is wrong>", naming the first offending field of an export.
 */
export function parseExport(json: unknown, name: string): SessionData {
  if (!isSessionExport(json)) {
    const v2 = fromV2Session(json, name);
    if (v2) return v2;
  }
  const exported = validateExport(json, name);
  return v1SessionData(exported.info, exported.messages);
}

/** Reads all of standard input, stopping as soon as it is more than the limits allow. */
async function readStdin(name: string, limits: ReadLimits): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of limits.stdin ?? process.stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    bytes += buffer.byteLength;
    const problem = sizeProblem(bytes, limits, `more than ${mib(bytes)} MiB of input`);
    if (problem) throw new ExportError(`${name}: ${problem}`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Opened without waiting, should the path have turned into a FIFO since it was checked (0 where there is no such flag). */
const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0);
/** What is read at a time once a file turns out longer than its size said, bytes. */
const GROWTH_CHUNK = 1 << 20;

/** The error for a path that is not a regular file (it is not opened, or not read); a FIFO's says how to read it. */
const notAFile = (name: string, kind: string): ExportError =>
  new ExportError(
    `${name}: is ${kind}, not a file` + (kind.includes("FIFO") ? `; to read from it, give it as standard input (replay - < ${name})` : ""),
  );

/**
 * Reads a regular file whole, and nothing else: the path is checked again once open (it was
 * checked before, but may have changed), and reading stops with an ExportError as soon as
 * the file holds more than the limits allow (it may grow while it is read).
 *
 * With synchronous calls: a regular file never makes a read wait for a writer (a FIFO or a
 * device is refused before it is read), and each call through the thread pool cost a hop
 * (stat, open, fstat, two reads, close): reading and parsing bench/audit.ts's 1,000 files
 * took 2.1–2.7 s that way, 1.7–1.9 s so (in one process, load average 4). The caller gives
 * the event loop its turn between files.
 * @throws ExportError (not a regular file, too large); the errors of `open` and `read` as they are.
 */
function readRegularFile(path: string, name: string, limits: ReadLimits): Buffer {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const info = fstatSync(fd);
    const special = info.isDirectory() ? null : specialKind(info);
    if (special !== null) throw notAFile(name, special);
    const chunks: Buffer[] = [];
    let bytes = 0;
    // The size the file says, plus one byte to see whether it goes on.
    for (let want = info.size + 1; ; want = GROWTH_CHUNK) {
      const chunk = Buffer.allocUnsafe(want);
      let filled = 0;
      for (let read = -1; filled < want && read !== 0; filled += read) {
        read = readSync(fd, chunk, filled, want - filled, null);
      }
      bytes += filled;
      chunks.push(chunk.subarray(0, filled));
      if (filled < want) break;
      const problem = sizeProblem(bytes, limits, `more than ${mib(bytes)} MiB`);
      if (problem) throw new ExportError(`${name}: ${problem}`);
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads and validates an export file, or standard input when `path` is "-".
 * A file is read with synchronous calls (the event loop waits for the read, as it does for
 * the parse; standard input is read asynchronously): a caller reading many files in a loop
 * gives the event loop its turn between them.
 * A first line that is exactly opencode's progress line (`Exporting session: <id>`, which
 * `opencode export <id> > file 2>&1` puts there) is skipped when the rest is valid JSON.
 * @param limits upper bounds on what is read; by default V8's longest string and the heap
 *   Node.js may still use (tests pass smaller ones).
 * Only a regular file is read: a named pipe, a device (/dev/zero) or a socket is an error
 * before it is opened (standard input is the way to read one, and is read with the same bounds).
 * @throws ExportError one line naming the file and the problem: missing path, a directory,
 *   not a regular file, unreadable, empty, too large for a JSON text or for the memory Node.js may use, not JSON
 *   (truncated, binary), or JSON of another shape. For a file that is not JSON it says what
 *   most likely went wrong (see {@link notJsonMessage}): an export cut off by a pipe, opencode's
 *   progress line or error output in the file. Anything it did not expect (a bug) becomes an
 *   ExportError too, naming the file ({@link unexpectedReadError}).
 */
export async function readExport(path: string, limits: ReadLimits = {}): Promise<SessionData> {
  try {
    return await readAny(path, limits);
  } catch (error) {
    throw error instanceof ExportError ? error : unexpectedReadError(path === "-" ? "<stdin>" : path, error);
  }
}

/** {@link readExport}, which may also throw what it did not expect. */
async function readAny(path: string, limits: ReadLimits): Promise<SessionData> {
  const name = path === "-" ? "<stdin>" : path;
  let text: string;
  let size: number;
  try {
    if (path !== "-") {
      const info = statSync(path);
      if (info.isDirectory()) throw new ExportError(`${name}: is a directory, expected an opencode export file`);
      const special = specialKind(info);
      if (special !== null) throw notAFile(name, special);
      const problem = sizeProblem(info.size, limits);
      if (problem) throw new ExportError(`${name}: ${problem}`);
    }
    const bytes = path === "-" ? await readStdin(name, limits) : readRegularFile(path, name, limits);
    if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
      throw new ExportError(`${name}: is UTF-16 text (PowerShell's > writes it); save it as UTF-8`);
    }
    text = bytes.toString("utf8");
    size = bytes.length;
    // A UTF-8 byte order mark (Windows editors, PowerShell's Out-File) is not part of the JSON.
    if (text.charCodeAt(0) === 0xfeff) {
      text = text.slice(1);
      size -= 3;
    }
  } catch (error) {
    if (error instanceof ExportError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ExportError(`${name}: no such file`);
    if (code === "EACCES") throw new ExportError(`${name}: permission denied`);
    throw new ExportError(`${name}: cannot be read (${code ?? (error as Error).message})`);
  }
  if (text.trim() === "") throw new ExportError(`${name}: is empty, expected ${expectedOf(name)}`);
  // `opencode export <id> > file 2>&1` puts opencode's progress line first: skip it.
  const progress = PROGRESS_LINE.exec(text);
  const body = progress ? text.slice(progress[0].length) : text;
  // One JSON document (an export, a V2 session) is parsed once; a transcript (JSONL, one
  // record a line) fails to parse as one document at its second line.
  let json: unknown;
  let notJson: Error | undefined;
  try {
    json = JSON.parse(body);
  } catch (error) {
    notJson = error as Error;
  }
  if (notJson !== undefined || (isRecord(json) && typeof json.type === "string" && !("info" in json))) {
    const transcript = transcriptSession(body, name);
    if (transcript) return transcript;
  }
  if (notJson !== undefined) {
    const reason = notJson.message.split("\n")[0]!;
    throw new ExportError(notJsonMessage(name, reason, text, body, size - (progress ? Buffer.byteLength(progress[0]) : 0)));
  }
  return parseExport(json, name);
}

/**
 * `text` read as a Claude Code or Codex transcript (told by its content, src/hosts/read.ts),
 * or undefined when it is neither. The agent's name goes to `agent`.
 * @throws ExportError when it starts as one but holds no record of that agent.
 */
function transcriptSession(text: string, name: string): SessionData | undefined {
  let read;
  try {
    read = readTranscript(text, basename(name).replace(/\.jsonl?$/, ""));
  } catch (error) {
    if (error instanceof TranscriptError) throw new ExportError(`${name}: ${error.message}`);
    throw error;
  }
  if (!read) return undefined;
  const passedOver = passedOverOf(read.badLines, read.unknownRecords);
  return {
    record: transcriptRecord(read),
    timeline: read.timeline,
    unphysicalTokens: 0,
    agent: read.agent,
    usable: read.usable,
    ...(passedOver === undefined ? {} : { passedOver }),
  };
}

/** Record kinds named in {@link passedOverOf} before "and N more". */
const KINDS_NAMED = 5;

/**
 * What a transcript reader passed over, in words (see `SessionData.passedOver`), or undefined
 * when it read every line. Kinds are cut to 40 characters each; the caller makes it terminal-safe.
 */
function passedOverOf(badLines: number, kinds: readonly string[]): string | undefined {
  const said: string[] = [];
  if (badLines > 0) said.push(`${badLines === 1 ? "1 line is" : `${badLines} lines are`} not JSON (torn or damaged; passed over)`);
  if (kinds.length > 0) {
    const named = kinds.slice(0, KINDS_NAMED).map((kind) => kind.slice(0, 40));
    const more = kinds.length > KINDS_NAMED ? ` and ${kinds.length - KINDS_NAMED} more` : "";
    said.push(`record kinds not read: ${named.join(", ")}${more}`);
  }
  return said.length === 0 ? undefined : said.join("; ");
}

/**
 * The ExportError for an error {@link readExport} did not expect (a bug) while reading
 * `name`: one line that names the file, so that a caller reading many files can pass it over.
 */
export function unexpectedReadError(name: string, error: unknown): ExportError {
  const said = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.slice(0, 200);
  return new ExportError(`${name}: internal error while reading it (${said}); please report it (see the README's "Report a bug")`);
}

/**
 * opencode's progress line, which `opencode export` (1.18.33) writes to standard error
 * before the JSON: `Exporting session: <id>` (`latest` when no id was given).
 */
const PROGRESS_LINE = /^Exporting session: [^\s]+\r?\n/;
/** Pipe buffer sizes at which `opencode export` into a pipe stops: 64 KiB (macOS), 128 KiB (Linux, measured with 1.18.33). */
const PIPE_CUTS = [64 * 1024, 128 * 1024];
/** How an export's JSON starts: `{"info"` or `{\n  "info"`. */
const EXPORT_START = /^\s*\{\s*"info"\s*:/;

/** Control characters (a terminal's colour codes among them) written visibly: `\u001b`. */
const visible = (text: string): string =>
  text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/**
 * The one-line error for a file that is not JSON, with what most likely went wrong:
 * - it starts with opencode's "Exporting session" line: standard error went into the file
 *   (`2>&1`), and what follows the line is not a whole export either (else it was read);
 * - opencode's error output instead of an export (`Error: Session not found: …`);
 * - an export cut off (it starts like one and is 64 or 128 KiB long, or stops inside a
 *   string, object or array): opencode export truncates its output when written to a pipe.
 * Otherwise: "truncated or not an export?" (for a `*.jsonl` file: neither an export nor a transcript).
 * @param reason JSON.parse's message for `body`.
 * @param text the whole file; `body` is what was parsed (without opencode's progress line).
 * @param bytes the size of `body` in bytes, as read.
 */
function notJsonMessage(name: string, reason: string, text: string, body: string, bytes: number): string {
  const problem = `${name}: is not valid JSON (${visible(reason)})`;
  const fromProgress = /^Exporting session: (ses_[A-Za-z0-9]+)/.exec(text)?.[1];
  const fromJson = /^\s*\{\s*"info"\s*:\s*\{\s*"id"\s*:\s*"(ses_[A-Za-z0-9]+)"/.exec(body.slice(0, 200))?.[1];
  const command = `opencode export ${fromProgress ?? fromJson ?? "<id>"} > session.json`;
  const progress = /^Exporting session(?::|\.\.\.)/.test(text);
  if (progress) {
    // What opencode printed after the line, colours removed: `Error: Session not found: ses_…`.
    const rest = text.slice(text.indexOf("\n") + 1, text.indexOf("\n") + 1 + 1000).replace(/\u001b\[[0-9;]*m/g, "");
    const said = /^\s*Error:\s*([^\n]*)/.exec(rest)?.[1]?.trim().slice(0, 200);
    if (said !== undefined) return `${name}: holds opencode's error output, not an export (Error: ${visible(said)})`;
  }
  const cut = EXPORT_START.test(body.slice(0, 200)) && (PIPE_CUTS.includes(bytes) || endsInside(body));
  const at = PIPE_CUTS.includes(bytes) ? ` at ${bytes / 1024} KiB` : "";
  const pipe = `stops mid-export${at}: opencode export truncates its output when written to a pipe`;
  if (progress) {
    const line = `the file starts with opencode's "Exporting session…" line (2>&1?)`;
    return `${problem}; ${line}${cut ? ` and ${pipe}` : ""}; export with: ${command}`;
  }
  if (cut) return `${problem}; it ${pipe}; write it to a file: ${command}`;
  return JSONL_NAME.test(name)
    ? `${problem}; neither an opencode export nor a Claude Code or Codex transcript, or cut short?`
    : `${problem}; truncated or not an export?`;
}

/** A file name that says JSONL: such a file may be meant as a transcript. */
const JSONL_NAME = /\.jsonl$/i;

/** What a file was expected to be, by its name: `an opencode export`, or for `*.jsonl` `an opencode export or a Claude Code or Codex transcript`. */
const expectedOf = (name: string): string =>
  JSONL_NAME.test(name) ? "an opencode export or a Claude Code or Codex transcript" : "an opencode export";

/** Whether JSON text stops inside a string, object or array (a cut-off file). */
function endsInside(json: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return inString || depth > 0;
}

/**
 * The canonical signature of a completed tool call: what makes two calls "the same".
 *
 * Lessons from prior art (Cline, Roo/Kilo `ToolRepetitionDetector`, openclaw): compare
 * sorted-key JSON, never raw `JSON.stringify` (opencode's own doom-loop check in
 * session/processor.ts is key-order sensitive); and "same call, same result" separates a
 * loop from polling or re-running tests after an edit.
 */
import { createHash } from "node:crypto";
import { configure } from "safe-stable-stringify";
import type { ToolCall } from "./history.js";

/** Deeper levels are written as `"[Object]"` / `"[Array]"`: deep enough, and no stack overflow. */
const MAX_DEPTH = 100;

const stableStringify = configure({ deterministic: true, circularValue: "[Circular]", bigint: true, maximumDepth: MAX_DEPTH });

/**
 * Canonical JSON of any value: object keys sorted at every depth, array order kept,
 * cycles written as `"[Circular]"`, levels below 100 as `"[Object]"`/`"[Array]"`.
 * `undefined` (no input at all) becomes `"null"`.
 */
export function canonicalJson(value: unknown): string {
  return stableStringify(value) ?? "null";
}

/**
 * What changes between two runs of the same call without saying anything about progress:
 * - timestamps and clock times (`2026-11-30T09:00:00Z`, npm's `2026-11-30T16_08_58_367Z`,
 *   `09:00:00`);
 * - measured durations: sub-second units, decimal seconds, `0m3.217s` (`time`), and an
 *   elapsed time after "in", "took" or "after" (`BUILD FAILED in 7s`, `Done in 3s`); other
 *   whole seconds and minutes stay, since "about 4 minutes remaining" is the progress itself;
 * - process ids: a job number at a line's start (`[104]`), `pid 26594` / `PID=26594`, and
 *   Node's `(node:41872)`;
 * - temporary paths (`/tmp/tmp.Xa81kQ`, `/var/folders/…/T/…`), as `mktemp` makes them;
 * - memory addresses (`0x7f3a9c2e10`), UUIDs and 32+ digit hex ids (request ids, sha256
 *   digests), and the port of a local address (`127.0.0.1:54321`, `localhost:40123`);
 * - the file id in opencode's truncation notice for big outputs ("Full output saved to:
 *   …/tool-output/tool_<id>", tool/truncate.ts), new on every call;
 * - the fresh child session id opencode's task tool writes (`<task id="ses_…">`).
 * ANSI colour codes are removed first. Counts such as "3 of 6 done" stay: a moving count is
 * progress; so do short hex ids such as a git commit's.
 */
const NOISE_PARTS = [
  /\d{4}-\d{2}-\d{2}[T ]\d{2}[:_]\d{2}(?:[:_]\d{2}(?:[._]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/, // 2026-11-30T09:00:00Z, 2026-11-30T16_08_58_367Z
  /\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/, // 09:00:00
  /\d+(?:\.\d+)?\s?(?:ns|µs|us|ms)\b|\d+\.\d+\s?(?:s|secs?|seconds?)\b|\d+m\d+(?:\.\d+)?s\b/, // 31 ms, 0.42s, 0m3.217s
  /(?:in|took|after) \d+(?:\.\d+)?\s?(?:s|secs?|seconds?|m|mins?|minutes?)\b/, // BUILD FAILED in 7s
  /[Pp][Ii][Dd][ =:]+\d+|node:\d+/, // pid 26594, PID=26594, (node:41872)
  /0x[0-9a-fA-F]{6,}/, // 0x7f3a9c2e10
  /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b|[0-9a-fA-F]{32,}\b/, // UUIDs, sha256
  /(?:localhost|127\.0\.0\.1|0\.0\.0\.0):\d+/, // a local address's port
  /tool-output\/tool_[A-Za-z0-9]+/, // opencode's saved full output
  /ses_[A-Za-z0-9]+/, // a child session id
];
const NOISE = new RegExp(`\\b(?:${NOISE_PARTS.map((part) => part.source).join("|")})`, "g");
/** A job or process number at the start of a line: `[104] FATAL …`, `[1] 26594`. */
const JOB_NUMBER = /^\[\d+\](?: \d+)?/gm;
/** Paths under the system's temporary directories. */
const TEMP_PATH = /(?:\/tmp|\/var\/tmp|\/private\/var\/folders|\/var\/folders)\/[^\s'"`)\]]+/g;
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

/** A tool output with run-to-run noise replaced (see {@link NOISE_PARTS}), for comparing results. */
export function normalizeOutput(output: unknown): string {
  let text = typeof output === "string" ? output : canonicalJson(output);
  // Each pass only when its marker is there: most outputs skip three of the four.
  if (text.includes("\x1b")) text = text.replace(ANSI, "");
  if (text.includes("/tmp/") || text.includes("/var/")) text = text.replace(TEMP_PATH, "/tmp/~");
  if (text.includes("[")) text = text.replace(JOB_NUMBER, "[~]");
  return text.replace(NOISE, "~");
}

/**
 * A tool input as calls are compared: without a top-level `description`, the free-text label
 * opencode's bash and task tools ask the model for ("Run the build", "Build the project"),
 * which a model rewords at will while doing the same thing.
 */
export function comparableInput(input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input) || !("description" in input)) return input;
  const { description: _label, ...rest } = input as Record<string, unknown>;
  return rest;
}

/**
 * sha256 of a list of strings, each preceded by its length, so that no two lists hash the
 * same by shifting text from one field to the next (and no JSON escaping of big outputs).
 */
function hashFields(fields: readonly string[]): string {
  const hash = createHash("sha256");
  for (const field of fields) hash.update(`${field.length}:`).update(field);
  return hash.digest("hex");
}

/**
 * The signature of a tool call, a 64-hex-character sha256 of
 * tool name + canonical input + status (+ normalised output or error when `matchOutput`).
 * Equal signatures mean: same tool, same input up to key order and its `description`
 * label (see {@link comparableInput}), same ending (completed or failed), and same result
 * up to the noise of {@link normalizeOutput}.
 */
export function toolCallSignature(call: ToolCall, matchOutput: boolean): string {
  const fields = [call.tool, canonicalJson(comparableInput(call.input)), call.status ?? "completed"];
  if (matchOutput) fields.push(normalizeOutput(call.output));
  return hashFields(fields);
}

/**
 * The signature of a step's text (for steps without tool calls): sha256 of the text with
 * whitespace runs collapsed, case folded and the noise of {@link normalizeOutput} removed.
 */
export function textSignature(text: string): string {
  return hashFields(["text", normalizeOutput(text).replace(/\s+/g, " ").trim().toLowerCase()]);
}

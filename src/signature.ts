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

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * What changes between two runs of the same call without saying anything about progress:
 * timestamps, clock times, durations, and the fresh child session id opencode 1.18.33's
 * task tool writes (`<task id="ses_…" state="completed">`). Counts such as "2 of 3 passed"
 * stay: a moving count is progress.
 */
const NOISE_PARTS = [
  /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/, // 2026-11-30T09:00:00Z
  /\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/, // 09:00:00
  /\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|m|mins?|minutes?)\b/, // 0.42s, 31 ms
  /ses_[A-Za-z0-9]+/, // a child session id
];
/** One pass over the output: a third faster than one pass per kind of noise. */
const NOISE = new RegExp(`\\b(?:${NOISE_PARTS.map((part) => part.source).join("|")})`, "g");

/** A tool output with run-to-run noise replaced (see {@link NOISE}), for comparing results. */
export function normalizeOutput(output: unknown): string {
  const text = typeof output === "string" ? output : canonicalJson(output);
  return text.replace(NOISE, "~");
}

/**
 * The signature of a tool call, a 64-hex-character sha256 of
 * tool name + canonical input (+ normalised output when `matchOutput`).
 * Equal signatures mean: same tool, same input up to key order (and same output up to
 * timestamps, durations and child session ids).
 */
export function toolCallSignature(call: ToolCall, matchOutput: boolean): string {
  const parts = [call.tool, canonicalJson(call.input)];
  if (matchOutput) parts.push(normalizeOutput(call.output));
  return sha256(JSON.stringify(parts));
}

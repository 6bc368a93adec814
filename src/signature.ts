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
 * The signature of a tool call, a 64-hex-character sha256 of
 * tool name + canonical input (+ canonical output when `matchOutput`).
 * Equal signatures mean: same tool, same input up to key order (and same output).
 */
export function toolCallSignature(call: ToolCall, matchOutput: boolean): string {
  const parts = [call.tool, canonicalJson(call.input)];
  if (matchOutput) parts.push(typeof call.output === "string" ? call.output : canonicalJson(call.output));
  return sha256(JSON.stringify(parts));
}

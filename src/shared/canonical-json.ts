/** Canonical JSON: the one spelling of a value that two readers compare it by. */
import { configure } from "safe-stable-stringify";

/** Deeper levels are written as `"[Object]"` / `"[Array]"`: deep enough, and no stack overflow. */
export const MAX_DEPTH = 100;

const stableStringify = configure({ deterministic: true, circularValue: "[Circular]", bigint: true, maximumDepth: MAX_DEPTH });

/**
 * Canonical JSON of any value: object keys sorted at every depth, array order kept,
 * cycles written as `"[Circular]"`, levels below 100 as `"[Object]"`/`"[Array]"`.
 * `undefined` (no input at all) becomes `"null"`.
 */
export function canonicalJson(value: unknown): string {
  return stableStringify(value) ?? "null";
}

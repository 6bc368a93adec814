/**
 * A structured answer as the set of its items. A search or an API call that answers in JSON
 * writes the whole answer on one line, and echoes the request in it (`"query": …`, a cursor,
 * an id, a path): read as text, every answer to a new wording is a new line, though it lists
 * the same items. Read by its items, it brings only the items not seen before.
 */
import type { Asked } from "../model/action.js";
import { canonicalJson } from "../shared/canonical-json.js";

/**
 * Fields that carry the request's wording, not what the answer is about: a search's words
 * (`query`, `q`, `search`, …) and a listing's position (a cursor, a page, an offset). Not an
 * identifier (a name, an id, a namespace, a path): two answers about two things differ by it.
 */
const WORDING_KEYS =
  /^(?:query|q|search|search_?query|text|keywords?|terms?|prompt|question|cursor|next_?cursor|page|page_?token|next_?page_?token|offset|after|before|limit|per_?page)$/i;

/** `value` without the object fields, at any depth, whose scalar value echoes the request's wording. */
function withoutEcho(value: unknown, echoed: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutEcho(item, echoed));
  if (value === null || typeof value !== "object") return value;
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as object)) {
    if ((field === null || typeof field !== "object") && echoed.has(String(field)) && WORDING_KEYS.test(key)) continue;
    kept[key] = withoutEcho(field, echoed);
  }
  return kept;
}

/** Appends the item lines of `value` (see {@link answerItems}) under the path `at`. */
function linesOf(value: unknown, at: string, lines: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) lines.push(`${at}[] ${canonicalJson(item)}`);
    return;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, field] of Object.entries(value as object)) linesOf(field, at === "" ? key : `${at}.${key}`, lines);
    return;
  }
  lines.push(`${at} ${canonicalJson(value)}`);
}

/**
 * An answer that is one JSON object or array, as its items: one line per array element (its
 * canonical JSON, under the path of its array) and per scalar field (`path value`), with the
 * fields that echo the request's wording (`input`: a search's words, a cursor or page, by
 * their keys) left out; an echoed identifier stays. Any other answer is returned as it is.
 *
 * @param output a tool call's output (a string for opencode's tools).
 * @param asked what the call asked for: its input's `values` are what an answer may echo (read only for a JSON answer).
 * @returns the item lines joined by newlines, or `output` itself; never throws.
 */
export function answerItems(output: unknown, asked: Pick<Asked, "values">): unknown {
  if (typeof output !== "string") return output;
  const first = output.trimStart().charCodeAt(0);
  if (first !== 123 && first !== 91) return output;
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return output;
  }
  if (parsed === null || typeof parsed !== "object") return output;
  const lines: string[] = [];
  linesOf(withoutEcho(parsed, asked.values), "", lines);
  return lines.join("\n");
}

/**
 * Text edits of a hooks file in the shape Claude Code's `settings.json` and Codex's
 * `hooks.json` share: `{ "hooks": { "<Event>": [ { "matcher"?: …, "hooks": [ <handler>… ] } ] } }`.
 * Each edit goes through jsonc-parser and rewrites only the element it adds or removes, with no
 * formatting options: with them jsonc-parser reformats the neighbouring values too, so a user's
 * one-line group would come back spread over lines after an install and an uninstall. What the
 * edits leave is the user's text as it was, but for the whitespace before a `]` they touched.
 */
import { createRequire } from "node:module";
import type * as Jsonc from "jsonc-parser";
import { isRecord } from "../shared/record.js";
import { lazily } from "../shared/zod.js";

const jsonc = lazily(() => createRequire(import.meta.url)("jsonc-parser") as typeof Jsonc);

/** `text` with `value` set at `path` (undefined: removed), only that part of the text rewritten. */
export function edited(text: string, path: Jsonc.JSONPath, value: unknown): string {
  return jsonc().applyEdits(text, jsonc().modify(text, path, value, {}));
}

/**
 * `text` without element `index` of the array at `path`. jsonc-parser 3.3.1 cuts the last
 * element of an array short when it follows a comma on the same line (`[{…},{"m":2}]` becomes
 * `[{…}}]`): that case is cut here, from the end of the element before it to its own end, so
 * the whitespace before the `]` stays as it was. Every other case is jsonc-parser's.
 */
export function withoutElement(text: string, path: Jsonc.JSONPath, index: number): string {
  const array = jsonc().findNodeAtLocation(jsonc().parseTree(text)!, path);
  const children = array?.type === "array" ? (array.children ?? []) : [];
  if (index > 0 && index === children.length - 1) {
    const before = children[index - 1]!;
    const element = children[index]!;
    return text.slice(0, before.offset + before.length) + text.slice(element.offset + element.length);
  }
  return edited(text, [...path, index], undefined);
}

/** Positions (group, handler) of the handlers `isOurs` picks among an event's groups, last first (so removing them in order keeps the others' positions). */
export function handlerPositions(
  groups: readonly unknown[],
  isOurs: (handler: unknown) => boolean,
): Array<{ group: number; handler: number }> {
  const found: Array<{ group: number; handler: number }> = [];
  groups.forEach((group, g) => {
    if (!isRecord(group) || !Array.isArray(group.hooks)) return;
    group.hooks.forEach((handler, h) => {
      if (isOurs(handler)) found.push({ group: g, handler: h });
    });
  });
  return found.reverse();
}

/**
 * `text` without the handlers `isOurs` picks in `hooks.<event>` (whose parsed value is
 * `groups`), and without the groups they leave empty; the event's key goes too when no group is
 * left and there was one before.
 */
export function withoutHandlers(text: string, event: string, groups: readonly unknown[], isOurs: (handler: unknown) => boolean): string {
  let next = text;
  let left = groups.length;
  for (const at of handlerPositions(groups, isOurs)) {
    const group = groups[at.group] as { hooks: unknown[] };
    const whole = group.hooks.filter((h) => !isOurs(h)).length === 0;
    if (whole && at.handler === group.hooks.findIndex(isOurs)) {
      next = withoutElement(next, ["hooks", event], at.group);
      left -= 1;
    } else if (!whole) next = withoutElement(next, ["hooks", event, at.group, "hooks"], at.handler);
  }
  return left === 0 && groups.length > 0 ? edited(next, ["hooks", event], undefined) : next;
}

/**
 * Installing the guard's hooks into Codex: Codex 0.169 reads command hooks from a
 * `hooks.json` beside each config layer's `config.toml` (codex-rs/hooks discovery): the
 * user's `$CODEX_HOME/hooks.json` (default `~/.codex/hooks.json`) and a project's
 * `.codex/hooks.json` (read only when Codex trusts the project). The file is plain JSON,
 * `{ "hooks": { "<Event>": [ { "matcher"?: "<regex>", "hooks": [ { "type": "command",
 * "command": "…", "timeout"?: <s> } ] } ] } }`, so no TOML is touched: `config.toml`, its
 * comments and its `[hooks]` table stay as they are. The edits (./hook-groups.ts) rewrite only
 * the elements they add or remove and keep the rest of the file's text as it was.
 *
 * The guard's handlers are told by their command: a `command` hook whose command ends in
 * ` hook codex`. Install adds one group per event in {@link CODEX_HOOKS} (or replaces a
 * differing one), uninstall removes those handlers, the groups they leave empty and the keys
 * install created when they are left empty.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as Jsonc from "jsonc-parser";
import { isRecord } from "../shared/record.js";
import { lazily } from "../shared/zod.js";
import type { InstallReport, InstallScope, LiveContext } from "./agent.js";
import { edited, handlerPositions, withoutHandlers } from "./hook-groups.js";

const jsonc = lazily(() => createRequire(import.meta.url)("jsonc-parser") as typeof Jsonc);

/** The groups the guard installs, by event: the note after each compaction, the check before each tool call. */
export const CODEX_HOOKS = [
  // SessionStart's matcher is matched against its `source`: the guard answers only after a compaction.
  { event: "SessionStart", matcher: "compact", timeout: 30 },
  { event: "PreToolUse", matcher: undefined, timeout: 30 },
] as const;

/** Is this handler (a `hooks` array element) one the guard installed? */
export function isGuardHandler(handler: unknown): boolean {
  return (
    isRecord(handler) && handler.type === "command" && typeof handler.command === "string" && /(^|\s)hook codex\s*$/.test(handler.command)
  );
}

/** Codex's home: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(context: LiveContext): string {
  return context.env.CODEX_HOME || join(context.home, ".codex");
}

/** The hooks file of `scope`: the user's `$CODEX_HOME/hooks.json`, or the project's `.codex/hooks.json` under the working directory. */
export function hooksFile(scope: InstallScope, context: LiveContext): string {
  return scope === "user" ? join(codexHome(context), "hooks.json") : join(context.cwd, ".codex", "hooks.json");
}

/** The file's text, or null when it does not exist. */
function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/**
 * The file's value, checked to be what Codex reads: a JSON object whose `hooks`, when present,
 * is an object of arrays.
 * @throws Error one line naming the file when it is not JSON or not of that shape.
 */
function parsed(file: string, text: string): Record<string, unknown> {
  const errors: Jsonc.ParseError[] = [];
  const value = jsonc().parse(text, errors, { allowTrailingComma: false, disallowComments: true }) as unknown;
  if (errors.length > 0) {
    const { line, character } = lineOf(text, errors[0]!.offset);
    throw new Error(
      `${file}: not JSON at line ${line}, column ${character} (${jsonc().printParseErrorCode(errors[0]!.error)}); fix or move it, then install again`,
    );
  }
  if (!isRecord(value)) throw new Error(`${file}: not a JSON object; Codex would not read it either`);
  const hooks = value.hooks;
  if (hooks !== undefined && (!isRecord(hooks) || Object.values(hooks).some((groups) => !Array.isArray(groups))))
    throw new Error(`${file}: "hooks" is not an object of arrays; Codex would not read it either`);
  return value;
}

/** 1-based line and column of `offset` in `text`. */
function lineOf(text: string, offset: number): { line: number; character: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, character: before.at(-1)!.length + 1 };
}

/** The group the guard installs for one event. */
function groupOf(hook: (typeof CODEX_HOOKS)[number], command: string): Record<string, unknown> {
  return {
    ...(hook.matcher === undefined ? {} : { matcher: hook.matcher }),
    hooks: [{ type: "command", command, timeout: hook.timeout }],
  };
}

/** `text` without the guard's handlers of `event`, the groups they leave empty, and the event's key when nothing is left in it. */
function withoutGuard(text: string, file: string, event: string): string {
  const groups = (parsed(file, text).hooks as Record<string, unknown[]> | undefined)?.[event] ?? [];
  return withoutHandlers(text, event, groups, isGuardHandler);
}

/** Writes `text` to `file` (creating its folder), or removes the file when `text` is an empty object. */
function write(file: string, text: string): void {
  const value = jsonc().parse(text) as unknown;
  if (isRecord(value) && Object.keys(value).length === 0) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text.endsWith("\n") ? text : `${text}\n`);
}

/**
 * Merges the guard's hooks into `scope`'s hooks file: one group per event of
 * {@link CODEX_HOOKS}, running `command` (which must end in ` hook codex`). A group already
 * there as it would be written is left alone; one that differs (another command) is replaced.
 * @throws Error one line when the file exists but is not a hooks file Codex reads, or
 *   `command` does not end in ` hook codex`.
 */
export async function installHooks(scope: InstallScope, command: string, context: LiveContext): Promise<InstallReport> {
  const file = hooksFile(scope, context);
  if (!isGuardHandler({ type: "command", command }))
    throw new Error(`the hook command must end in " hook codex" (got ${JSON.stringify(command)}): uninstall finds the guard's hooks by it`);
  const before = readText(file);
  let text = before ?? "{}";
  parsed(file, text);
  const changes: string[] = [];
  for (const hook of CODEX_HOOKS) {
    const groups = (parsed(file, text).hooks as Record<string, unknown[]> | undefined)?.[hook.event] ?? [];
    const want = groupOf(hook, command);
    const ours = handlerPositions(groups, isGuardHandler);
    const same = ours.length === 1 && JSON.stringify(groups[ours[0]!.group]) === JSON.stringify(want);
    if (same) continue;
    text = withoutGuard(text, file, hook.event);
    const now = (parsed(file, text).hooks as Record<string, unknown[]> | undefined)?.[hook.event] ?? [];
    text = edited(text, ["hooks", hook.event, now.length], want);
    changes.push(
      `${ours.length > 0 ? "replaced" : "added"} the ${hook.event} hook${hook.matcher === undefined ? "" : ` (matcher "${hook.matcher}")`}: ${command}`,
    );
  }
  // A new file is written whole, two spaces a level; an existing one keeps its own text.
  if (changes.length > 0) write(file, before === null ? JSON.stringify(jsonc().parse(text), null, 2) : text);
  return { file, changes };
}

/**
 * Removes the guard's handlers (see {@link isGuardHandler}) from `scope`'s hooks file, with the
 * groups and event keys they leave empty, and the `hooks` key and the file itself when nothing
 * else is left in them. Every other hook and key stays as it was.
 * @throws Error one line when the file exists but is not a hooks file Codex reads.
 */
export async function uninstallHooks(scope: InstallScope, context: LiveContext): Promise<InstallReport> {
  const file = hooksFile(scope, context);
  const before = readText(file);
  if (before === null) return { file, changes: [] };
  let text = before;
  const changes: string[] = [];
  const events = Object.keys((parsed(file, text).hooks as Record<string, unknown[]> | undefined) ?? {});
  for (const event of events) {
    const groups = (parsed(file, text).hooks as Record<string, unknown[]>)[event]!;
    const count = handlerPositions(groups, isGuardHandler).length;
    if (count === 0) continue;
    text = withoutGuard(text, file, event);
    changes.push(`removed the ${event} hook${count === 1 ? "" : `s (${count})`}`);
  }
  const hooks = parsed(file, text).hooks;
  if (changes.length > 0 && isRecord(hooks) && Object.keys(hooks).length === 0) text = edited(text, ["hooks"], undefined);
  if (changes.length > 0) write(file, text);
  return { file, changes };
}

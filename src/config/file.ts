/**
 * The settings files: `compaction-guard.jsonc` in opencode's global config folder
 * (`$XDG_CONFIG_HOME/opencode/`, else `~/.config/opencode/`) and in the project's nearest
 * `.opencode/` folder. This module finds, reads and parses them (JSONC: comments and trailing
 * commas allowed) into the layers ./settings.ts `resolveSettings` validates; the judge
 * itself reads no file. Nothing here throws: a file that cannot be read or parsed becomes one
 * problem line naming the file and the line, and whatever could be parsed of it still counts.
 */
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve, sep } from "node:path";
import type * as Jsonc from "jsonc-parser";
import type { Node, ParseError } from "jsonc-parser";
import type { FileLayer, FileSource } from "./settings.js";
import { showValue } from "./settings.js";
import { lazily } from "../shared/zod.js";

/**
 * jsonc-parser, required when a file is first parsed: most opencode processes have no settings
 * file, and loading the parser (its CommonJS build, synchronously, as settings are resolved)
 * costs more than reading one (measured: about 20 ms to load, 0.6 ms to find, read and resolve
 * two files).
 */
const jsonc = lazily(() => createRequire(import.meta.url)("jsonc-parser") as typeof Jsonc);

/** The file's name, in both folders. */
export const CONFIG_FILE = "compaction-guard.jsonc";

/** The project's config folder, as opencode names it. */
export const PROJECT_DIR = ".opencode";

type Env = Readonly<Record<string, string | undefined>>;

/** The user's home folder from the environment (`HOME`, else `USERPROFILE`), or undefined. */
const homeOf = (env: Env): string | undefined => env.HOME || env.USERPROFILE || undefined;

/**
 * The global settings file: `$XDG_CONFIG_HOME/opencode/compaction-guard.jsonc`, else
 * `$HOME/.config/opencode/compaction-guard.jsonc` (opencode's global config folder). Read from
 * `env` only, so that a caller that passes no home reads no global file. Undefined when the
 * environment names neither.
 */
export function globalConfigFile(env: Env): string | undefined {
  const xdg = env.XDG_CONFIG_HOME;
  const home = homeOf(env);
  const base = xdg ? xdg : home ? join(home, ".config") : undefined;
  return base === undefined ? undefined : join(resolve(base), "opencode", CONFIG_FILE);
}

const isDirectory = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
const isFile = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isFile() === true;

/**
 * The project's settings file: `.opencode/compaction-guard.jsonc` in `start` or the nearest
 * folder above it that has one, as opencode looks for `.opencode/` from the directory it runs
 * in. The walk stops after a folder holding `.git` (the worktree's root, where opencode stops
 * too), and before the home folder (whose `.opencode/` is not a project's). Undefined when
 * there is none. Never throws.
 */
export function projectConfigFile(start: string, env: Env): string | undefined {
  try {
    const home = homeOf(env);
    const stop = home === undefined ? undefined : resolve(home);
    for (let dir = resolve(start); dir !== stop; dir = dirname(dir)) {
      const file = join(dir, PROJECT_DIR, CONFIG_FILE);
      if (isFile(file)) return file;
      if (isDirectory(join(dir, ".git")) || isFile(join(dir, ".git")) || dirname(dir) === dir) return undefined;
    }
  } catch {
    // An unreadable folder on the way: no project file.
  }
  return undefined;
}

/** A path as problem lines show it: under the home folder as `~/…`. */
export function displayPath(path: string, env: Env): string {
  const home = homeOf(env);
  if (home === undefined) return path;
  const root = resolve(home);
  return path.startsWith(root + sep) ? `~${path.slice(root.length)}` : path;
}

/** The 1-based line of a character offset in `text`. */
const lineAt = (text: string, offset: number): number => {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
};

/** A parse error's code in words: `CommaExpected` → `comma expected`. */
const words = (error: ParseError): string =>
  jsonc()
    .printParseErrorCode(error.error)
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();

/**
 * Parses the text of one settings file (JSONC) into a layer: its top-level entries with their
 * lines; one problem line for the first syntax error (with how many more there are), and one
 * when the top level is not an object. A file of only comments and blanks holds no setting and
 * no problem. Never throws.
 *
 * @param name the file as problem lines name it.
 */
export function parseSettingsFile(text: string, name: string, source: FileSource): FileLayer {
  const errors: ParseError[] = [];
  const problems: string[] = [];
  const { getNodeValue, parseTree, stripComments } = jsonc();
  if (stripComments(text).trim() === "") return { source, name, entries: [], problems };
  const tree: Node | undefined = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const [first] = errors;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
    problems.push(
      `${name}:${lineAt(text, first!.offset)}: not valid JSONC: ${words(first!)}${more}; the settings read before and after it stand`,
    );
  }
  if (tree === undefined || tree.type !== "object") {
    const got = tree === undefined ? "nothing" : showValue(getNodeValue(tree));
    if (tree !== undefined || errors.length === 0)
      problems.push(
        `${name}:${tree === undefined ? 1 : lineAt(text, tree.offset)}: expected an object of settings, got ${got}; file ignored`,
      );
    return { source, name, entries: [], problems };
  }
  const entries: Array<{ key: string; value: unknown; line: number }> = [];
  for (const property of tree.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (keyNode === undefined || typeof keyNode.value !== "string" || valueNode === undefined) continue;
    entries.push({ key: keyNode.value, value: getNodeValue(valueNode), line: lineAt(text, keyNode.offset) });
  }
  return { source, name, entries, problems };
}

/**
 * Reads and parses one settings file. Undefined when it does not exist; a file that exists but
 * cannot be read is a layer with one problem and no entries. Never throws.
 */
export function readSettingsFile(path: string, source: FileSource, env: Env): FileLayer | undefined {
  const name = displayPath(path, env);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    return {
      source,
      name,
      entries: [],
      problems: [`${name}: cannot be read (${typeof code === "string" ? code : "error"}); file ignored`],
    };
  }
  return parseSettingsFile(text, name, source);
}

/**
 * The settings files that apply in `directory`, lowest first: the global one, then the
 * project's (see {@link globalConfigFile}, {@link projectConfigFile}); those that do not exist
 * are left out. The same file found as both (a project inside the global config folder) is
 * read once, as the global one. Never throws.
 *
 * @param directory the project directory (opencode's `directory`, or the command's working
 *   directory); undefined: no project file.
 */
export function loadSettingsFiles(env: Env, directory: string | undefined): FileLayer[] {
  const global = globalConfigFile(env);
  const project = directory === undefined ? undefined : projectConfigFile(directory, env);
  const layers: FileLayer[] = [];
  const globalLayer = global === undefined ? undefined : readSettingsFile(global, "global file", env);
  if (globalLayer) layers.push(globalLayer);
  if (project !== undefined && project !== global) {
    const projectLayer = readSettingsFile(project, "project file", env);
    if (projectLayer) layers.push(projectLayer);
  }
  return layers;
}

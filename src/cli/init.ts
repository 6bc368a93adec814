/**
 * `opencode-compaction-guard init [--global] [--force]`: writes a settings file with every
 * setting commented out at its default (config/template.ts): `.opencode/compaction-guard.jsonc`
 * in the working directory, or with `--global` the one in opencode's global config folder.
 * An existing file is left as it is unless `--force`.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { CONFIG_FILE, displayPath, globalConfigFile, PROJECT_DIR } from "../config/file.js";
import { SCHEMA_FILE } from "../config/schema.js";
import { settingsFileText } from "../config/template.js";
import { answeredHelpOrVersion, helpLines, UsageError } from "./common.js";

/** `init --help`. */
export const INIT_USAGE = [
  "Usage: opencode-compaction-guard init [--global] [--force]",
  "",
  `Writes ${PROJECT_DIR}/${CONFIG_FILE} in this folder (the project's settings file), every`,
  "setting commented out at its default with its one-line help. opencode's plugin then reads",
  "it, and replay and audit run in the project read it too.",
  "",
  "Options:",
  helpLines("--global", `write ~/.config/opencode/${CONFIG_FILE} instead ($XDG_CONFIG_HOME/opencode/ when set)`),
  helpLines("--force", "overwrite a file that is there"),
  helpLines("-h, --help", "show this help"),
  "",
].join("\n");

const INIT_OPTIONS = {
  global: { type: "boolean", default: false },
  force: { type: "boolean", default: false },
  version: { type: "boolean", short: "v", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/**
 * The package's JSON Schema as a file URL, for the `$schema` line; undefined when it is not
 * there (a bundle run from elsewhere). Found from this module: src/cli/ or dist/cli/.
 */
function schemaURL(): string | undefined {
  const path = join(dirname(fileURLToPath(import.meta.url)), "..", "..", SCHEMA_FILE);
  return existsSync(path) ? pathToFileURL(path).href : undefined;
}

/**
 * Runs `init` (argv holds the word `init`): writes the file, prints `wrote <file>`.
 * @param cwd the folder whose `.opencode/` gets the project file.
 * @returns 0 when written; throws UsageError (exit 2) when the file is there without `--force`,
 *   or `--global` finds no home folder.
 */
export async function runInit(
  argv: readonly string[],
  out: (text: string) => void,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  schema: string | undefined = schemaURL(),
): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: INIT_OPTIONS });
  if (answeredHelpOrVersion(values, INIT_USAGE, out)) return 0;
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])}`);
  const file = values.global ? globalConfigFile(env) : join(cwd, PROJECT_DIR, CONFIG_FILE);
  if (file === undefined) throw new UsageError("--global: neither XDG_CONFIG_HOME nor HOME is set");
  const name = displayPath(file, env);
  const text = settingsFileText(values.global ? "global" : "project", schema);
  try {
    await mkdir(dirname(file), { recursive: true });
    // `wx`: never replaces a file, not even one created since the check.
    await writeFile(file, text, { flag: values.force ? "w" : "wx" });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "EEXIST") throw new UsageError(`${name} is already there; --force overwrites it`);
    throw typeof code === "string" ? new UsageError(`cannot write ${name} (${code})`) : error;
  }
  out(`wrote ${name}\n`);
  return 0;
}

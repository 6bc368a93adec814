/**
 * `opencode-compaction-guard replay <export.json | transcript.jsonl | -> [flags]`: where would
 * the guard have stopped this session? Runs the same decision as the plugin at every automatic
 * compaction of an `opencode export` file or a Claude Code / Codex transcript (`--chart`: its
 * context size per step under the table).
 * `opencode-compaction-guard audit …` (cli/audit.ts): the same decision over many sessions.
 * `opencode-compaction-guard init [--global] [--force]` (cli/init.ts): a settings file to edit.
 *
 * Exit codes: 0 it ran (whatever it decided); 2 bad input or usage, one line on stderr;
 * 1 an internal error (a bug), one line on stderr.
 */
import { stat } from "node:fs/promises";
import { parseArgs } from "node:util";
import {
  AUDIT_PARSE_OPTIONS,
  DECISION_FLAGS,
  answeredHelpOrVersion,
  DECISION_OPTIONS,
  decisionInputs,
  helpLines,
  joinNegativeValues,
  LIMIT_FLAGS,
  reportError,
  REPORT_BUGS,
  SETTINGS_USAGE,
  unphysicalTokensWarning,
  UsageError,
  warnPredictWithoutLimits,
  warnReservedWithoutEffect,
} from "./common.js";
import { VERSION } from "../shared/version.js";
import { REPLAY_OUTPUTS, type ReplayOutput, type ReplayResult } from "../report/index.js";
import { terminalSafe } from "../redact/terminal-safe.js";
import { readExport } from "../sources/export.js";
import { sessionInputs } from "../sources/sources.js";
import { replaySession } from "../guard/replay.js";

/** The outputs a flag asks for (report/index.ts). */
const REPLAY_FLAGS = REPLAY_OUTPUTS.filter((o): o is ReplayOutput & { flag: string } => o.flag !== null);

/** The flags that are not settings, with their help. */
const OTHER_FLAGS = [
  ...LIMIT_FLAGS,
  ...REPLAY_FLAGS.map((o) => [`--${o.flag}`, o.help] as const),
  ["-v, --version", "print the version"],
  ["-h, --help", "show this help"],
] as const;

/** The help with no command (`--help`, `help`): the commands first. */
const COMMANDS_USAGE = [
  "Usage: opencode-compaction-guard <command> [options]",
  "",
  "Commands:",
  helpLines(
    "replay <file | ->",
    "where would the guard have stopped this session? Decides every automatic compaction of an " +
      "`opencode export` file, or of a Claude Code or Codex transcript (`.jsonl`), as the plugin does (replay --help)",
  ),
  helpLines(
    "audit [<path>...]",
    "how often did your sessions loop, and what did it cost? Every session of your own opencode, " +
      "or every export and Claude Code / Codex transcript among the files and folders given (audit --help)",
  ),
  helpLines(
    "init [--global]",
    "write .opencode/compaction-guard.jsonc here (--global: in opencode's global config folder), every setting commented out at its default (init --help)",
  ),
  helpLines(
    "install <agent> [--project]",
    "guard another agent live through its own hooks (claude-code, codex): merges the guard's hooks into its user settings (--project: this project's) and prints what changed",
  ),
  helpLines("uninstall <agent> [--project]", "removes exactly the hooks install added"),
  helpLines("hook <agent>", "what the installed hooks run: one hook's JSON on standard input, the agent's reply on standard output"),
  helpLines("help [command]", "this help, or a command's"),
  helpLines("version", "print the version (also -v, --version)"),
  "",
  "Exit codes: 0 it ran; 2 bad input or usage (one line on standard error); 1 an internal error,",
  `a bug: ${REPORT_BUGS}.`,
  "",
].join("\n");

/** `replay --help`. */
const USAGE = [
  "Usage: opencode-compaction-guard replay <export.json | transcript.jsonl | -> [options]",
  "",
  "Replays a session exported with `opencode export <sessionID> > session.json` through the",
  "guard and shows, for every automatic compaction, whether the guard would have allowed the",
  "synthetic continue turn. A Claude Code or Codex transcript (`.jsonl`, as the agent writes it",
  "under ~/.claude/projects or ~/.codex/sessions) is read too: its compactions are decided the",
  "same way (these agents have no continue turn; see docs/audit.md).",
  "",
  "With - it reads the export from standard input; but `opencode export` writes at most",
  "64–128 KiB into a pipe (1.18.33), so a real session arrives cut short: redirect it to a file.",
  "",
  "Options (defaults, then the settings files compaction-guard.jsonc, global then the project's,",
  "then OPENCODE_COMPACTION_GUARD_* environment variables, then these):",
  ...SETTINGS_USAGE,
  ...OTHER_FLAGS.map(([flag, help]) => helpLines(flag, help)),
  "",
].join("\n");

/** The help a topic asks for (`help audit`, audit's loaded only then); undefined for a topic that is no command. */
const helpOf = async (topic: string): Promise<string | undefined> =>
  topic === "replay"
    ? USAGE
    : topic === "audit"
      ? (await import("./audit.js")).AUDIT_USAGE
      : topic === "init"
        ? (await import("./init.js")).INIT_USAGE
        : undefined;

/** Every long flag replay knows, for "did you mean". */
const KNOWN_FLAGS = [...DECISION_FLAGS, ...REPLAY_FLAGS.map((o) => `--${o.flag}`), "--version", "--help"];

/** The terminal chart's width: the terminal's, from 40 to 160 columns, else 80. */
function chartWidth(): number {
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  return typeof columns === "number" && columns > 0 ? Math.max(40, Math.min(160, columns)) : 80;
}

/** The options replay takes. */
const REPLAY_OPTIONS = {
  ...DECISION_OPTIONS,
  ...(Object.fromEntries(REPLAY_FLAGS.map((o) => [o.flag, { type: "boolean", default: false }])) as Record<
    string,
    { type: "boolean"; default: false }
  >),
  version: { type: "boolean", short: "v", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** The words on the command line that are not flags or their values; never throws. */
function positionalsOf(argv: readonly string[]): string[] {
  try {
    return parseArgs({ args: [...argv], allowPositionals: true, strict: false, options: AUDIT_PARSE_OPTIONS }).positionals;
  } catch {
    return [];
  }
}

/**
 * Runs the CLI: `replay` (below) or `audit` (cli/audit.ts).
 * @param argv arguments after the program name.
 * @param out writes to standard output; @param err writes to standard error.
 * @param env the environment the `OPENCODE_COMPACTION_GUARD_*` settings are read from (and,
 *   for `audit` with no path, the environment opencode runs with).
 * @param progress where `audit` draws its progress bar, only when it is a TTY (default: standard error).
 * @param cwd where the project's settings file (`.opencode/compaction-guard.jsonc`) is looked
 *   for, up the tree, and where `init` writes it (default: the working directory).
 * @returns the exit code (0, 1 or 2, see above); never throws.
 */
export async function main(
  argv: readonly string[],
  out: (text: string) => void = (t) => process.stdout.write(t),
  err: (text: string) => void = (t) => process.stderr.write(t),
  env: Readonly<Record<string, string | undefined>> = process.env,
  progress: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
  cwd: string = process.cwd(),
): Promise<number> {
  const args = joinNegativeValues(argv, { ...AUDIT_PARSE_OPTIONS, ...REPLAY_OPTIONS });
  const [first, topic] = positionalsOf(args);
  // Each command loads what it needs when it runs: audit its sources, outputs and progress bar.
  if (first === "audit") return (await import("./audit.js")).runAudit(args, out, err, env, progress, cwd);
  // A hook answers whatever it is given, and never fails the agent that runs it.
  if (first === "hook") return (await import("./agents.js")).runHook(topic, out, err, (await import("./agents.js")).liveContext(env, cwd));
  try {
    if (first === "help") {
      const help = topic === undefined ? COMMANDS_USAGE : await helpOf(topic);
      if (help === undefined) throw new UsageError(`no command ${JSON.stringify(topic)} to help with; try help`);
      out(help);
      return 0;
    }
    if (first === "init") return await (await import("./init.js")).runInit(args, out, env, cwd);
    if (first === "install" || first === "uninstall") {
      const agents = await import("./agents.js");
      const { values: flags, positionals: words } = parseArgs({ args, allowPositionals: true, options: { project: { type: "boolean" } } });
      if (words.length > 2) throw new UsageError(`unexpected argument ${JSON.stringify(words[2])}`);
      return await agents.runInstall(first, words[1], flags.project === true, out, agents.liveContext(env, cwd));
    }
    if (first === "version") {
      out(`${VERSION}\n`);
      return 0;
    }
    const { values: parsed, positionals } = parseArgs({ args, allowPositionals: true, options: REPLAY_OPTIONS });
    const values = parsed as Record<string, string | boolean | undefined>;
    if (answeredHelpOrVersion(values, first === "replay" ? USAGE : COMMANDS_USAGE, out)) return 0;
    const [command, file, ...extra] = positionals;
    if (command !== "replay")
      throw new UsageError(command ? `unknown command ${JSON.stringify(command)}; try --help` : "missing command; try --help");
    if (file === undefined) throw new UsageError("replay needs an export file or a transcript (or - for standard input)");
    if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
    const instead = REPLAY_FLAGS.find((o) => o.place === "instead" && values[o.flag] === true);
    const under = REPLAY_FLAGS.filter((o) => o.place === "under" && values[o.flag] === true);
    if (instead && under.length > 0)
      throw new UsageError(`--${under[0]!.flag} draws under the table; it does not go with --${instead.flag}`);

    const inputs = decisionInputs(values, env, err, cwd);
    warnPredictWithoutLimits(inputs, err);
    warnReservedWithoutEffect(inputs, err);
    const { settings, limits, reserved } = inputs;
    if (file !== "-" && (await stat(file).catch(() => null))?.isDirectory())
      throw new UsageError(`${file}: is a folder; replay reads one export file (audit ${file} reads every export in it)`);
    const session = await readExport(file);
    if (session.passedOver !== undefined) err(`${terminalSafe(`warning: ${file === "-" ? "<stdin>" : file}: ${session.passedOver}`)}\n`);
    const unphysical = session.unphysicalTokens;
    if (unphysical > 0) err(`${unphysicalTokensWarning(unphysical, "message")}\n`);
    const options = { settings, limits, reserved };
    const judged = sessionInputs(session, options);
    const result: ReplayResult = {
      session,
      file,
      replayed: replaySession(session, judged),
      usable: judged.usable,
      options,
      chartWidth,
    };
    out(`${await (instead ?? REPLAY_OUTPUTS.find((o) => o.place === "default")!).render(result)}\n`);
    for (const output of under) out(`\n${await output.render(result)}\n`);
    return 0;
  } catch (error) {
    return reportError(error, KNOWN_FLAGS, err);
  }
}

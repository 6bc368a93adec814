/**
 * `opencode-compaction-guard audit [<export.json | folder>...] [flags]`: how often did my
 * sessions loop, and what did it cost? Decides every session exactly as `replay` does and
 * prints one row per session with at least one automatic compaction, then the totals.
 *
 * Sessions are read and decided one at a time; only the small rows (and, for `--html`, the
 * small per-step series) are kept, so memory is bounded by the largest session.
 *
 * Exit codes: 0 it ran; 2 bad usage, an HTML report that cannot be written (checked before
 * anything is read), opencode missing, failing or not answering, or no export at all among
 * the paths given (one line on stderr); 1 an internal error (a bug). On Ctrl-C or SIGTERM it
 * stops the progress bar (so the terminal gets its cursor back), then ends by the signal
 * (the shell's 130 / 143) at once, whatever it was waiting on (shared/signals.ts).
 *
 * Everything untrusted printed to the terminal (file names, titles, what opencode said) goes
 * through `terminalSafe` (redact/terminal-safe.ts); the outputs are the list in report/index.ts.
 */
import { access, constants, stat, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import type cliProgress from "cli-progress";
import { auditSessions, parseSince } from "../audit/audit.js";
import { REPORTS, type AuditOutput } from "../report/index.js";
import { terminalSafe } from "../redact/terminal-safe.js";
import { endBySignal } from "../shared/signals.js";
import { fmt } from "../report/format.js";
import { exportFiles, opencodeSessions, type SessionSource } from "../sources/sources.js";
import { agentFolder, agentName } from "../hosts/read.js";
import {
  AUDIT_PARSE_OPTIONS,
  DECISION_FLAGS,
  OUTPUT_FLAGS,
  answeredHelpOrVersion,
  decisionInputs,
  helpLines,
  LIMIT_FLAGS,
  reportError,
  SETTINGS_USAGE,
  unphysicalTokensWarning,
  UsageError,
  warnPredictWithoutLimits,
  warnReservedWithoutEffect,
} from "./common.js";

const FILE_OUTPUTS = OUTPUT_FLAGS.filter((r) => r.to === "file");

/** Every long flag audit knows, for "did you mean". */
const KNOWN_FLAGS = [
  ...DECISION_FLAGS,
  ...OUTPUT_FLAGS.map((r) => `--${r.flag}`),
  "--since",
  "--opencode",
  "--agent",
  "--recursive",
  "--version",
  "--help",
];

const AUDIT_FLAGS = [
  ...OUTPUT_FLAGS.map((r) => [`--${r.flag}${r.to === "file" ? " FILE" : ""}`, r.help] as const),
  ["--since DATE", "only sessions active since DATE (YYYY-MM-DD, midnight UTC, or a full ISO date-time)"],
  ["-r, --recursive", "also read the sub-folders of the folders given"],
  ["--opencode BIN", "with no path: the opencode binary to read sessions through (default: opencode on PATH)"],
  [
    "--agent NAME",
    "with no path: read claude-code's or codex's own transcripts folder instead ($CLAUDE_CONFIG_DIR/projects, $CODEX_HOME/sessions)",
  ],
  ...LIMIT_FLAGS,
  ["-v, --version", "print the version"],
  ["-h, --help", "show this help"],
] as const;

/** `audit --help`. */
export const AUDIT_USAGE = [
  "Usage: opencode-compaction-guard audit [<export.json | transcript.jsonl | folder>...] [options]",
  "",
  "Decides every session exactly as `replay` does, and shows how often your sessions looped",
  "and what the guard would have saved: one row per session with at least one automatic",
  "compaction (first deny, its rule, the synthetic continue turns, tokens and wall time after",
  "it, up to your next message: what you asked for is not counted; - when unknown or never",
  "denied), then the totals: looping counts the sessions where the guard would have stopped a",
  "loop (turn-finished, which only skips the continue turn after a finished answer, is",
  "housekeeping, not a loop; what it saves is still counted). A session found in two files is",
  "counted once.",
  "",
  "With paths: every `opencode export` file and every Claude Code or Codex transcript (`.jsonl`)",
  "given or found in the folders (files that are neither are listed as skipped). With no path:",
  "every session of your own opencode (all projects, subagents' sessions too), read through",
  "`opencode serve` on 127.0.0.1 with your environment (XDG_DATA_HOME …), stopped afterwards.",
  "Each session is decided with what your opencode knows outside any project: the limits it",
  "lists for the model that set off the session's compactions, and compaction.reserved of your",
  "global config (a provider or setting only in a project's opencode.json is not seen; a model",
  "opencode does not list leaves the limits unknown). The limit flags and --reserved, when",
  "given, override these for every session (with paths, they are the only source of limits).",
  "With --agent: every transcript in that agent's own folder.",
  "",
  "Options (defaults, then the settings files compaction-guard.jsonc, global then the project's,",
  "then OPENCODE_COMPACTION_GUARD_* environment variables, then these):",
  ...SETTINGS_USAGE,
  ...AUDIT_FLAGS.map(([flag, help]) => helpLines(flag, help)),
  "",
].join("\n");

/** Whether an error is opencode failing to start or answer (exit 2, one line). */
const isOpencodeError = (error: unknown): boolean => (error as Error)?.name === "OpencodeError";

/**
 * Runs `audit` (argv includes the word `audit`). Same conventions as the CLI's `main`; `cwd`
 * is where the project's settings file is looked for.
 * @returns the exit code; never throws.
 */
export async function runAudit(
  argv: readonly string[],
  out: (text: string) => void,
  err: (text: string) => void,
  env: Readonly<Record<string, string | undefined>>,
  progress: NodeJS.WritableStream & { isTTY?: boolean },
  cwd: string,
): Promise<number> {
  let source: SessionSource | undefined;
  let bar: cliProgress.SingleBar | undefined;
  /** Ctrl-C or SIGTERM while the bar runs: give the terminal its cursor and line wrap back (cli-progress hid them), then exit. */
  const stopBar = () => {
    const drawn = bar;
    bar = undefined;
    drawn?.stop();
  };
  const onSignal = (signal: "SIGINT" | "SIGTERM") => {
    stopBar();
    endBySignal(signal);
  };
  let pathSignals = false;
  try {
    const { values: parsed, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: AUDIT_PARSE_OPTIONS });
    const values = parsed as Record<string, string | boolean | undefined>;
    if (answeredHelpOrVersion(values, AUDIT_USAGE, out)) return 0;
    const paths = positionals.slice(1);
    const sinceText = values.since as string | undefined;
    const since = sinceText === undefined ? null : parseSince(sinceText);
    if (sinceText !== undefined && since === null) {
      throw new UsageError(`--since must be an ISO date (YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]), got ${JSON.stringify(sinceText)}`);
    }
    /** The file outputs asked for, each with its file. */
    const files = FILE_OUTPUTS.flatMap((r) => (typeof values[r.flag] === "string" ? [{ output: r, file: values[r.flag] as string }] : []));
    for (const { output, file } of files) if (file.trim() === "") throw new UsageError(`--${output.flag} needs a file name`);
    const bin = values.opencode as string | undefined;
    if (bin !== undefined && paths.length > 0) throw new UsageError("--opencode is for audit with no path (reading through opencode)");
    if (bin !== undefined && bin.trim() === "") throw new UsageError("--opencode needs the opencode binary");
    const agent = values.agent as string | undefined;
    if (agent !== undefined) {
      if (agent !== "claude-code" && agent !== "codex")
        throw new UsageError(`--agent must be claude-code or codex, got ${JSON.stringify(agent)}`);
      if (paths.length > 0 || bin !== undefined)
        throw new UsageError("--agent is for audit with no path (it reads the agent's own folder)");
      paths.push(agentFolder(agent, env));
    }
    const recursive = values.recursive === true || agent !== undefined;
    if (values.recursive && paths.length === 0) throw new UsageError("--recursive needs a folder to read");
    const inputs = decisionInputs(values, env, err, cwd);
    // With paths the flags are the only source of limits; with no path opencode lists each session's model's own.
    if (paths.length > 0) warnPredictWithoutLimits(inputs, err);
    warnReservedWithoutEffect(inputs, err, paths.length === 0);
    for (const { output, file } of files) await checkTarget(file, output);

    if (paths.length > 0) {
      // No-path mode: sources/opencode.ts's own handler stops the server, then calls stopBar.
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      pathSignals = true;
    }
    source =
      paths.length > 0
        ? await exportFiles(paths, recursive, agent !== undefined)
        : await opencodeSessions(bin ?? "opencode", env, since, inputs, stopBar);
    for (const line of source.notes) err(`${terminalSafe(line)}\n`);
    if (progress.isTTY && source.total > 1) {
      // Loaded only to be drawn: a pipe or a file gets no bar.
      const { default: bars } = await import("cli-progress");
      bar = new bars.SingleBar(
        { stream: progress, format: `audit {bar} {value}/{total} ${source.unit}`, clearOnComplete: true, hideCursor: true },
        bars.Presets.shades_classic,
      );
      bar.start(source.total, 0);
    }
    const result = await auditSessions(
      source,
      inputs,
      since,
      () => bar?.increment(),
      files.some((f) => f.output.series === true),
    );
    stopBar();
    const warnings = source.warnings();
    await source.close();
    source = undefined;

    for (const line of warnings) err(`${terminalSafe(line)}\n`);
    for (const line of result.skipped) err(`skipped ${terminalSafe(line)}\n`);
    for (const line of result.duplicates) err(`${terminalSafe(line)}\n`);
    if (result.unphysicalTokens > 0) err(`${unphysicalTokensWarning(result.unphysicalTokens, "session")}\n`);
    if (result.withoutTime > 0) {
      err(
        `${result.withoutTime === 1 ? "1 session" : `${fmt(result.withoutTime)} sessions`} without a time ${result.withoutTime === 1 ? "was" : "were"} left out by --since\n`,
      );
    }
    if (paths.length > 0 && result.read === 0) {
      throw new UsageError(await nothingToAudit(paths, agent, result.skipped.length));
    }
    const printed = OUTPUT_FLAGS.find((r) => r.to === "stdout" && values[r.flag] === true) ?? REPORTS.find((r) => r.flag === null)!;
    out(`${await printed.render(result)}\n`);
    for (const { output, file } of files) {
      try {
        await writeFile(file, await output.render(result));
      } catch (error) {
        throw targetError(file, output, error);
      }
      // Next to a machine-readable standard output, the note goes to standard error.
      (printed.flag === null ? out : err)(`${output.name} written to ${terminalSafe(file)}\n`);
    }
    return 0;
  } catch (error) {
    stopBar();
    await source?.close().catch(() => undefined);
    return reportError(error, KNOWN_FLAGS, err, isOpencodeError);
  } finally {
    if (pathSignals) {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  }
}

/** Why a file cannot be written, in words, by the error's code. */
const CANNOT_WRITE: Readonly<Record<string, string>> = {
  ENOENT: "its folder does not exist",
  ENOTDIR: "a part of its path is not a folder",
  EISDIR: "it is a folder; name a file in it",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "the file system is read-only",
  ENOSPC: "no space left on the device",
};

/** The one line for a file output that cannot be written: `cannot write the HTML report to x: it is a folder; name a file in it (EISDIR)`. */
function targetError(file: string, output: AuditOutput, error: unknown): UsageError {
  const code = (error as NodeJS.ErrnoException).code;
  const why = code === undefined ? (error as Error).message : `${CANNOT_WRITE[code] ?? "cannot be written"} (${code})`;
  return new UsageError(`cannot write the ${output.name} to ${file}: ${why}`);
}

/**
 * The one line when none of the paths given held an export (each file passed over was
 * named on its own `skipped` line already): `nothing to audit: /x does not exist`, or `… the
 * folder given holds no opencode session export`; with `agent` (`--agent`, `paths` is its
 * folder): `nothing to audit: no Claude Code transcript in <folder>`.
 * @param skipped how many files were passed over.
 */
async function nothingToAudit(paths: readonly string[], agent: string | undefined, skipped: number): Promise<string> {
  const kinds = await Promise.all(
    paths.map((p) =>
      stat(p).then(
        (s) => (s.isDirectory() ? "folder" : "file"),
        () => "missing",
      ),
    ),
  );
  if (kinds.every((k) => k === "missing"))
    return paths.length === 1 ? `nothing to audit: ${paths[0]!} does not exist` : "nothing to audit: none of the paths given exists";
  if (agent !== undefined) {
    const none = `nothing to audit: no ${agentName(agent)} transcript in ${paths[0]!}`;
    return skipped > 0 ? `${none} could be read (each file passed over is named above)` : none;
  }
  const folders = kinds.filter((k) => k === "folder").length;
  const files = kinds.length - folders;
  const given = [
    folders ? (folders === 1 ? "the folder" : `the ${folders} folders`) : "",
    files ? (files === 1 ? "the file" : `the ${files} files`) : "",
  ]
    .filter(Boolean)
    .join(" and ");
  return `nothing to audit: no opencode session export in ${given} given (each file passed over is named above)`;
}

/**
 * Checks, before any session is read, that a file output can be written to `file`: its
 * folder exists and is writable, and `file` is not a folder (nor a file that cannot be
 * written). Nothing is created.
 * @throws UsageError one line: `cannot write the HTML report to <file> (ENOENT | ENOTDIR | EISDIR | EACCES)`.
 */
async function checkTarget(file: string, output: AuditOutput): Promise<void> {
  const target = resolve(file);
  try {
    const info = await stat(target).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return null;
      throw error;
    });
    if (info?.isDirectory()) throw Object.assign(new Error("a folder"), { code: "EISDIR" });
    if (info) await access(target, constants.W_OK);
    else {
      const folder = await stat(dirname(target));
      if (!folder.isDirectory()) throw Object.assign(new Error("not a folder"), { code: "ENOTDIR" });
      await access(dirname(target), constants.W_OK);
    }
  } catch (error) {
    throw targetError(file, output, error);
  }
}

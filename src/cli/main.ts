/**
 * `opencode-compaction-guard replay <export.json | transcript.jsonl | -> [flags]`: where would
 * the guard have stopped this session? Runs the same decision as the plugin at every automatic
 * compaction of an `opencode export` file or a Claude Code / Codex transcript (`--chart`: its
 * context size per step under the table).
 * `opencode-compaction-guard audit …` (cli/audit.ts): the same decision over many sessions.
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
import { fmt } from "../report/format.js";
import { displayWidth } from "../report/terminal.js";
import { terminalSafe, terminalSafeJson } from "../redact/terminal-safe.js";
import type { ToolLoopEntry } from "../judge/tool-loop.js";
import { shownToolName } from "../judge/ledger.js";
import { readExport } from "../sources/export.js";
import { sessionInputs } from "../sources/sources.js";
import { describeEvidence } from "../judge/explain.js";
import { replaySession, type ReplayRow } from "../judge/replay.js";
import { guardStops, liveStopIndex } from "../model/timeline.js";
import { liveGuardLine } from "../report/live-guard.js";
import { agentNote } from "../hosts/read.js";

/** The flags that are not settings, with their help. */
const OTHER_FLAGS = [
  ...LIMIT_FLAGS,
  ["--json", "print one JSON object instead of a table"],
  ["--chart", "draw the session's context size per step under the table (a terminal line chart)"],
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
  "Options (defaults, then OPENCODE_COMPACTION_GUARD_* environment variables, then these):",
  ...SETTINGS_USAGE,
  ...OTHER_FLAGS.map(([flag, help]) => helpLines(flag, help)),
  "",
].join("\n");

/** The help a topic asks for (`help audit`, audit's loaded only then); undefined for a topic that is no command. */
const helpOf = async (topic: string): Promise<string | undefined> =>
  topic === "replay" ? USAGE : topic === "audit" ? (await import("./audit.js")).AUDIT_USAGE : undefined;

/** Every long flag replay knows, for "did you mean". */
const KNOWN_FLAGS = [...DECISION_FLAGS, "--json", "--chart", "--version", "--help"];

/** How many of the tool-loop check's calls the replay table names before "… and N more". */
const TOOL_LOOP_NAMED = 5;

/**
 * The replay table's tool-loop line: where the tool-loop check would have acted
 * (judge/tool-loop.ts), the first few calls by step, action, tool, preview and run; "" when nowhere.
 */
function toolLoopLine(entries: readonly ToolLoopEntry[]): string {
  if (entries.length === 0) return "";
  const named = entries
    .slice(0, TOOL_LOOP_NAMED)
    .map((e) => `step ${e.step} ${e.action} (${shownToolName(e.tool)} ${terminalSafe(e.preview)}, run ${e.runs})`);
  const more = entries.length > TOOL_LOOP_NAMED ? `, … and ${entries.length - TOOL_LOOP_NAMED} more` : "";
  return `tool loop: the guard would have acted at ${entries.length} call${entries.length === 1 ? "" : "s"}: ${named.join(", ")}${more}`;
}

/**
 * Replay's table: a header line, one row per automatic compaction, the first deny, then the
 * tool-loop line. Every text from the session (its id, the message ids, the evidence's tool
 * names and path previews) is made terminal-safe, and the columns are padded by display width.
 */
function table(
  sessionID: string,
  rows: readonly ReplayRow[],
  usable: number | null,
  firstDeny: ReplayRow | undefined,
  toolLoop: readonly ToolLoopEntry[] = [],
): string {
  // A replay of thousands of compactions writes thousands of rows: each column is one array,
  // measured once, and each row is written in one go. Every cell but the message id is ASCII
  // (numbers, decisions, rule names), so its width is its length; the last column (the rule)
  // is never padded, and no cell ends in a space.
  const n = rows.length;
  const index: string[] = new Array(n);
  const message: string[] = new Array(n);
  const messageWidth: number[] = new Array(n);
  const trigger: string[] = new Array(n);
  const after: string[] = new Array(n);
  let w0 = "#".length;
  let w1 = "compaction message".length;
  let w2 = "trigger".length;
  let w3 = "after".length;
  let w4 = "decision".length;
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    w0 = Math.max(w0, (index[i] = String(r.compaction.index)).length);
    w1 = Math.max(w1, (messageWidth[i] = displayWidth((message[i] = terminalSafe(r.compaction.messageID)))));
    w2 = Math.max(w2, (trigger[i] = fmt(r.triggerTokens)).length);
    w3 = Math.max(w3, (after[i] = fmt(r.afterTokens)).length);
    w4 = Math.max(w4, r.decision.length);
  }
  const lines = [
    `session ${terminalSafe(sessionID)}: ${rows.length} automatic compaction${rows.length === 1 ? "" : "s"}; ` +
      (usable === null ? "model limits unknown (see --context-limit and --output-limit)" : `usable context ${fmt(usable)} tokens`),
    `${"#".padStart(w0)}  ${"compaction message".padEnd(w1)}  ${"trigger".padStart(w2)}  ${"after".padStart(w3)}  ${"decision".padEnd(w4)}  rule`,
  ];
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    lines.push(
      `${index[i]!.padStart(w0)}  ${message[i]}${" ".repeat(w1 - messageWidth[i]!)}  ${trigger[i]!.padStart(w2)}  ` +
        `${after[i]!.padStart(w3)}  ${r.decision.padEnd(w4)}  ${r.rule ?? "-"}`,
    );
  }
  lines.push(
    firstDeny
      ? `first deny: compaction ${firstDeny.compaction.index}, ${firstDeny.rule}: ${terminalSafe(describeEvidence(firstDeny))}`
      : "no deny: the guard would have let every continue turn through",
  );
  if (toolLoop.length > 0) lines.push(toolLoopLine(toolLoop));
  return lines.join("\n");
}

/** The terminal chart's width: the terminal's, from 40 to 160 columns, else 80. */
function chartWidth(): number {
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  return typeof columns === "number" && columns > 0 ? Math.max(40, Math.min(160, columns)) : 80;
}

/** The options replay takes. */
const REPLAY_OPTIONS = {
  ...DECISION_OPTIONS,
  json: { type: "boolean", default: false },
  chart: { type: "boolean", default: false },
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
 * @returns the exit code (0, 1 or 2, see above); never throws.
 */
export async function main(
  argv: readonly string[],
  out: (text: string) => void = (t) => process.stdout.write(t),
  err: (text: string) => void = (t) => process.stderr.write(t),
  env: Readonly<Record<string, string | undefined>> = process.env,
  progress: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
): Promise<number> {
  const args = joinNegativeValues(argv, { ...AUDIT_PARSE_OPTIONS, ...REPLAY_OPTIONS });
  const [first, topic] = positionalsOf(args);
  // Each command loads what it needs when it runs: audit its sources, outputs and progress bar.
  if (first === "audit") return (await import("./audit.js")).runAudit(args, out, err, env, progress);
  try {
    if (first === "help") {
      const help = topic === undefined ? COMMANDS_USAGE : await helpOf(topic);
      if (help === undefined) throw new UsageError(`no command ${JSON.stringify(topic)} to help with; try help`);
      out(help);
      return 0;
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
    if (values.chart && values.json) throw new UsageError("--chart draws under the table; it does not go with --json");

    const inputs = decisionInputs(values, env, err);
    warnPredictWithoutLimits(inputs, err);
    warnReservedWithoutEffect(inputs, err);
    const { settings, limits, reserved } = inputs;
    if (file !== "-" && (await stat(file).catch(() => null))?.isDirectory())
      throw new UsageError(`${file}: is a folder; replay reads one export file (audit ${file} reads every export in it)`);
    const session = await readExport(file);
    if (session.passedOver !== undefined) err(`${terminalSafe(`warning: ${file === "-" ? "<stdin>" : file}: ${session.passedOver}`)}\n`);
    const unphysical = session.unphysicalTokens;
    if (unphysical > 0) err(`${unphysicalTokensWarning(unphysical, "message")}\n`);
    const judged = sessionInputs(session, { settings, limits, reserved });
    const replayed = replaySession(session, judged);
    const rows = replayed.rows;
    const firstDeny = rows.find((r) => r.decision === "deny");
    const numbered = rows.map((r) => r.compaction);
    const live = guardStops(session.timeline);
    if (values.json) {
      const compactions = rows.map((r) => ({
        index: r.compaction.index,
        messageID: r.compaction.messageID,
        decision: r.decision,
        rule: r.rule,
        severity: r.severity,
        fired: r.fired,
        triggerTokens: r.triggerTokens,
        afterTokens: r.afterTokens,
        evidence: r.evidence,
      }));
      const toolLoop = replayed.toolLoop.map(({ step, action, runs, messageID, tool, preview }) => ({
        step,
        action,
        runs,
        messageID,
        // As the table shows it: secrets masked, at most 40 characters.
        tool: shownToolName(tool),
        preview,
      }));
      const liveGuard = live.map((stop) => ({ ...stop, compaction: liveStopIndex(stop, numbered) }));
      out(
        `${terminalSafeJson({ sessionID: session.record.id, compactions, firstDeny: firstDeny?.compaction.index ?? null, toolLoop, liveGuard })}\n`,
      );
    } else {
      const usable = judged.usable;
      const liveLine = liveGuardLine(live, numbered);
      out(`${table(session.record.id, rows, usable, firstDeny, replayed.toolLoop)}\n${liveLine ? `${liveLine}\n` : ""}`);
      if (session.agent !== undefined) out(`${agentNote(session.agent)}\n`);
      if (values.chart) {
        const [{ terminalChart }, { auditedSeries, auditSession }] = await Promise.all([
          import("../report/pictures.js"),
          import("../audit/audit.js"),
        ]);
        // One timeline and one decision pass: the chart and its legend (what the first deny
        // would have saved, as audit and its HTML report tell it) come from the rows above.
        const audited = auditSession(session, file, { settings, limits, reserved }, replayed);
        const { row } = audited;
        const series = auditedSeries(audited);
        out(`\n${terminalChart(series, { width: chartWidth(), saved: row })}\n`);
      }
    }
    return 0;
  } catch (error) {
    return reportError(error, KNOWN_FLAGS, err);
  }
}

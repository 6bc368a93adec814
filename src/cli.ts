/**
 * `opencode-compaction-guard replay <export.json | -> [flags]`: where would the guard have
 * stopped this session? Runs the same decision as the plugin at every automatic compaction
 * of an `opencode export` file.
 *
 * Exit codes: 0 it ran (whatever it decided); 2 bad input or usage, one line on stderr;
 * 1 an internal error (a bug), one line on stderr.
 */
import { parseArgs } from "node:util";
import { ExportError, readExport } from "./export.js";
import { usableContext, type ModelLimits } from "./limits.js";
import { describeEvidence } from "./notice.js";
import { closest } from "fastest-levenshtein";
import { checkSetting, parseSettingText, resolveSettings, SETTINGS, showValue, type GuardSettings } from "./settings.js";
import { VERSION } from "./version.js";
import { replayMessages, type ReplayRow } from "./replay.js";

/** The settings replay takes as flags (the others mean nothing to a replay). */
const REPLAY_KEYS = (Object.keys(SETTINGS) as Array<keyof typeof SETTINGS>).filter((key) => SETTINGS[key].flag !== null);

/** The flags that are not settings, with their help. */
const OTHER_FLAGS = [
  ["--context-limit N", "model context window, tokens   } known limits let no-progress"],
  ["--output-limit N", "model output limit, tokens     } compare with opencode's"],
  ["--input-limit N", "model input limit, tokens      } usable context"],
  ["--reserved N", "opencode's compaction.reserved, tokens (moves the usable line of a model with an input limit)"],
  ["--json", "print one JSON object instead of a table"],
  ["-v, --version", "print the version"],
  ["-h, --help", "show this help"],
] as const;

const USAGE = [
  "Usage: opencode-compaction-guard replay <export.json | -> [options]",
  "",
  "Replays a session exported with `opencode export <sessionID> > session.json` through the",
  "guard and shows, for every automatic compaction, whether the guard would have allowed the",
  "synthetic continue turn.",
  "",
  "Options (defaults, then OPENCODE_COMPACTION_GUARD_* environment variables, then these):",
  ...REPLAY_KEYS.map((key) => {
    const s = SETTINGS[key];
    return `  ${`--${s.flag} ${key === "matchOutput" ? "BOOL" : key === "ignore" ? "LIST" : key === "minReduction" ? "F" : "N"}`.padEnd(23)}${s.help} (default ${showValue(s.default)})`;
  }),
  ...OTHER_FLAGS.map(([flag, help]) => `  ${flag.padEnd(23)}${help}`),
  "",
].join("\n");

/** A usage or input problem: printed as one line, exit 2. */
class UsageError extends Error {}

/** Every long flag replay knows, for "did you mean". */
const KNOWN_FLAGS = [
  ...REPLAY_KEYS.map((key) => `--${SETTINGS[key].flag}`),
  "--context-limit",
  "--output-limit",
  "--input-limit",
  "--reserved",
  "--json",
  "--version",
  "--help",
];

/** The known flag nearest to a mistyped one: one it begins (`--context` → `--context-limit`), else the closest (`--jsn` → `--json`). */
const nearestFlag = (flag: string): string => {
  const long = flag.startsWith("--") ? flag : `-${flag}`;
  return KNOWN_FLAGS.find((known) => known.startsWith(long)) ?? closest(long, KNOWN_FLAGS);
};

/** A whole number of tokens ≥ `min` from a flag; a UsageError otherwise. */
function wholeTokens(name: string, text: string, min: number): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!(value >= min)) {
    throw new UsageError(`--${name} must be a ${min > 0 ? "positive " : ""}whole number of tokens, got ${JSON.stringify(text)}`);
  }
  return value;
}

function tokensFlag(name: string, text: string | undefined): number | undefined {
  return text === undefined ? undefined : wholeTokens(name, text, 1);
}

/**
 * The model's limits from the flags. opencode's usable context needs the context and the
 * output limit together (an unknown output limit would count as 32,000), and an output or
 * input limit means nothing without the context limit.
 */
function limitsFlags(values: Record<string, string | boolean | undefined>): Partial<ModelLimits> {
  const text = (name: string) => values[name] as string | undefined;
  const limits = {
    context: tokensFlag("context-limit", text("context-limit")),
    output: tokensFlag("output-limit", text("output-limit")),
    input: tokensFlag("input-limit", text("input-limit")),
  };
  if (limits.context !== undefined && limits.output === undefined) {
    throw new UsageError("--context-limit needs --output-limit too (opencode's usable context depends on both)");
  }
  if (limits.context === undefined && (limits.output !== undefined || limits.input !== undefined)) {
    throw new UsageError(`--${limits.output !== undefined ? "output" : "input"}-limit needs --context-limit too`);
  }
  if (limits.context !== undefined && limits.output !== undefined && limits.input === undefined && limits.output >= limits.context) {
    throw new UsageError(
      `--output-limit ${limits.output} is not below --context-limit ${limits.context}: opencode would have no usable context`,
    );
  }
  if (limits.context !== undefined && limits.input !== undefined && limits.input > limits.context) {
    throw new UsageError(`--input-limit ${limits.input} is over --context-limit ${limits.context}`);
  }
  return limits;
}

const fmt = (n: number | null): string => (n === null ? "-" : n.toLocaleString("en-US"));

function table(sessionID: string, rows: readonly ReplayRow[], usable: number | null, firstDeny: ReplayRow | undefined): string {
  const header = ["#", "compaction message", "trigger", "after", "decision", "rule"];
  const body = rows.map((r) => [
    String(r.compaction.index),
    r.compaction.messageID,
    fmt(r.triggerTokens),
    fmt(r.afterTokens),
    r.decision,
    r.rule ?? "-",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const right = new Set([0, 2, 3]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [
    `session ${sessionID}: ${rows.length} automatic compaction${rows.length === 1 ? "" : "s"}; ` +
      (usable === null ? "model limits unknown (see --context-limit and --output-limit)" : `usable context ${fmt(usable)} tokens`),
    line(header),
    ...body.map(line),
    firstDeny
      ? `first deny: compaction ${firstDeny.compaction.index}, ${firstDeny.rule}: ${describeEvidence(firstDeny)}`
      : "no deny: the guard would have let every continue turn through",
  ].join("\n");
}

/**
 * Runs the CLI.
 * @param argv arguments after the program name.
 * @param out writes to standard output; @param err writes to standard error.
 * @param env the environment the `OPENCODE_COMPACTION_GUARD_*` settings are read from.
 * @returns the exit code (0, 1 or 2, see above); never throws.
 */
export async function main(
  argv: readonly string[],
  out: (text: string) => void = (t) => process.stdout.write(t),
  err: (text: string) => void = (t) => process.stderr.write(t),
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  try {
    const { values: parsed, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        ...Object.fromEntries(REPLAY_KEYS.map((key) => [SETTINGS[key].flag, { type: "string" as const }])),
        "context-limit": { type: "string" },
        "output-limit": { type: "string" },
        "input-limit": { type: "string" },
        reserved: { type: "string" },
        json: { type: "boolean", default: false },
        version: { type: "boolean", short: "v", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
    const values = parsed as Record<string, string | boolean | undefined>;
    if (values.help) {
      out(USAGE);
      return 0;
    }
    if (values.version) {
      out(`${VERSION}\n`);
      return 0;
    }
    const [command, file, ...extra] = positionals;
    if (command !== "replay")
      throw new UsageError(command ? `unknown command ${JSON.stringify(command)}; try --help` : "missing command; try --help");
    if (file === undefined) throw new UsageError("replay needs an export file (or - for standard input)");
    if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);

    const resolved = resolveSettings(undefined, env, { only: REPLAY_KEYS });
    for (const problem of resolved.problems) err(`warning: ${problem}\n`);
    const settings: Record<string, unknown> = { ...resolved.settings };
    for (const key of REPLAY_KEYS) {
      const flag = SETTINGS[key].flag!;
      const text = values[flag] as string | undefined;
      if (text === undefined) continue;
      const checked = checkSetting(key, parseSettingText(key, text));
      if (!checked.ok) throw new UsageError(`--${flag}: ${checked.problem}`);
      settings[key] = checked.value;
    }
    const limits = limitsFlags(values);
    const reserved = typeof values.reserved === "string" ? wholeTokens("reserved", values.reserved, 0) : undefined;

    const session = await readExport(file);
    const { directory, parentID } = session.info as { directory?: unknown; parentID?: unknown };
    const rows = replayMessages(session.messages, settings as unknown as GuardSettings, {
      limits,
      reserved,
      directory: typeof directory === "string" ? directory : undefined,
      subagent: typeof parentID === "string" && parentID !== "",
    });
    const firstDeny = rows.find((r) => r.decision === "deny");
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
      out(`${JSON.stringify({ sessionID: session.info.id, compactions, firstDeny: firstDeny?.compaction.index ?? null })}\n`);
    } else {
      out(`${table(session.info.id, rows, usableContext(limits, reserved), firstDeny)}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ExportError) {
      err(`opencode-compaction-guard: ${error.message}\n`);
      return 2;
    }
    const code = (error as { code?: string }).code;
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      const flag = /'(-{1,2}[^'=]+)/.exec((error as Error).message)?.[1] ?? "";
      err(`opencode-compaction-guard: unknown option ${flag}; did you mean ${nearestFlag(flag)}? (try --help)\n`);
      return 2;
    }
    if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS")) {
      err(`opencode-compaction-guard: ${(error as Error).message.replace(/\s+/g, " ").trim()} (try --help)\n`);
      return 2;
    }
    err(`opencode-compaction-guard: internal error: ${(error as Error)?.message ?? String(error)}\n`);
    return 1;
  }
}

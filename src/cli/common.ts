/**
 * What the CLI's commands share: the decision flags (guard settings, model limits,
 * `compaction.reserved`) that `replay` and `audit` both take, and how a usage problem or a
 * parse error becomes one line and exit code 2.
 */
import { closest, distance } from "fastest-levenshtein";
import { ExportError } from "../sources/export.js";
import { OUTPUT_TOKEN_MAX, RESERVED_MAX, usableContext, type ModelLimits } from "../hosts/opencode/facts.js";
import { loadSettingsFiles } from "../config/file.js";
import { checkSetting, parseSettingText, resolveSettings, SETTINGS, showValue, type GuardSettings } from "../config/settings.js";
import { BUGS_URL, VERSION } from "../shared/version.js";
import { MAX_PHYSICAL_TOKENS } from "../model/entry.js";
import { fmt, plural } from "../report/format.js";
import { REPORTS, type AuditOutput } from "../report/index.js";
import { terminalSafe } from "../redact/terminal-safe.js";

/** The settings replay and audit take as flags (the others mean nothing to a replay). */
export const REPLAY_KEYS = (Object.keys(SETTINGS) as Array<keyof typeof SETTINGS>).filter((key) => SETTINGS[key].flag !== null);

/** The decision flags that are not settings, with their help. */
export const LIMIT_FLAGS = [
  ["--context-limit N", "model context window, tokens   } known limits let no-progress"],
  ["--output-limit N", "model output limit, tokens     } compare with opencode's"],
  ["--input-limit N", "model input limit, tokens      } usable context"],
  ["--reserved N", "opencode's compaction.reserved, tokens (moves the usable line of a model with an input limit)"],
] as const;

/** How wide a help line may be, in columns. */
export const HELP_WIDTH = 100;

/**
 * One help entry: the flag padded to 23 columns after two spaces, then its help, wrapped at
 * word boundaries to {@link HELP_WIDTH} columns with the continuation lines under the help.
 */
export function helpLines(flag: string, help: string): string {
  const lines = [`  ${flag.padEnd(22)}`];
  let fresh = true;
  for (const word of help.split(" ")) {
    if (!fresh && lines.at(-1)!.length + 1 + word.length > HELP_WIDTH) lines.push(" ".repeat(24));
    lines[lines.length - 1] += ` ${word}`;
    fresh = false;
  }
  return lines.join("\n");
}

/** Usage lines of the settings flags, with their defaults. */
export const SETTINGS_USAGE: readonly string[] = REPLAY_KEYS.map((key) => {
  const s = SETTINGS[key];
  const value =
    typeof s.default === "boolean"
      ? "BOOL"
      : Array.isArray(s.default)
        ? "LIST"
        : typeof s.default === "string"
          ? "MODE"
          : Number.isInteger(s.default)
            ? "N"
            : "F";
  return helpLines(`--${s.flag} ${value}`, `${s.help} (default ${showValue(s.default)})`);
});

/** parseArgs option definitions of the decision flags. */
export const DECISION_OPTIONS = {
  ...Object.fromEntries(REPLAY_KEYS.map((key) => [SETTINGS[key].flag, { type: "string" as const }])),
  "context-limit": { type: "string" },
  "output-limit": { type: "string" },
  "input-limit": { type: "string" },
  reserved: { type: "string" },
} as const satisfies Record<string, { type: "string" }>;

/** The outputs asked for by a flag (all but the default table), from report/index.ts. */
export const OUTPUT_FLAGS = REPORTS.filter((r): r is AuditOutput & { flag: string } => r.flag !== null);

/** parseArgs options of `audit` (also used to find which command was asked for). */
export const AUDIT_PARSE_OPTIONS = {
  ...DECISION_OPTIONS,
  ...(Object.fromEntries(
    OUTPUT_FLAGS.map((r) => [r.flag, r.to === "file" ? { type: "string" } : { type: "boolean", default: false }]),
  ) as Record<string, { type: "string" } | { type: "boolean"; default: false }>),
  since: { type: "string" },
  opencode: { type: "string" },
  agent: { type: "string" },
  recursive: { type: "boolean", short: "r", default: false },
  version: { type: "boolean", short: "v", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** Every long decision flag, for "did you mean". */
export const DECISION_FLAGS: readonly string[] = [
  ...REPLAY_KEYS.map((key) => `--${SETTINGS[key].flag}`),
  "--context-limit",
  "--output-limit",
  "--input-limit",
  "--reserved",
];

/**
 * `argv` with a negative number after a flag that takes a value joined to it (`--context-limit -5`
 * → `--context-limit=-5`). parseArgs reads a word that starts with `-` as the next flag, so `-5`
 * would read as a missing value; joined, it reaches the flag's own range check, which says
 * what was typed and what is allowed.
 */
export function joinNegativeValues(argv: readonly string[], options: Readonly<Record<string, { type: string }>>): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    const next = argv[i + 1];
    const takesValue = word.startsWith("--") && options[word.slice(2)]?.type === "string";
    if (takesValue && next !== undefined && /^-\.?\d/.test(next)) {
      joined.push(`${word}=${next}`);
      i += 1;
    } else joined.push(word);
  }
  return joined;
}

/** Where an internal error is reported, in words: `please report it (see <where>), with this line and version 0.4.0`. */
export const REPORT_BUGS = `please report it (see ${BUGS_URL}), with this line and version ${VERSION}`;

/** A usage or input problem: printed as one line, exit 2. */
export class UsageError extends Error {}

/**
 * The most tokens a limit flag (or `--reserved`) takes: ten times the largest context window
 * any model has today (10 million tokens). More is a typing slip, not a model.
 */
export const MAX_LIMIT_TOKENS = 100_000_000;

/**
 * A whole number of tokens from `min` to {@link MAX_LIMIT_TOKENS} from a flag.
 * @throws UsageError one line with what was typed: `--context-limit -5 is out of range: …`
 *   for a whole number outside the range, `--reserved must be a whole number of tokens, got "lots"` otherwise.
 */
export function wholeTokens(name: string, text: string, min: number): number {
  const range = `a whole number of tokens from ${fmt(min)} to ${fmt(MAX_LIMIT_TOKENS)}`;
  if (/^-?\d+$/.test(text.trim())) {
    const value = Number(text);
    if (value >= min && value <= MAX_LIMIT_TOKENS) return value;
    throw new UsageError(`--${name} ${text.trim()} is out of range: ${range}`);
  }
  throw new UsageError(`--${name} must be ${range}, got ${JSON.stringify(text)}`);
}

function tokensFlag(name: string, text: string | undefined): number | undefined {
  return text === undefined ? undefined : wholeTokens(name, text, 1);
}

/**
 * The model's limits from the flags, and `--reserved`. opencode's usable context needs the
 * context and the output limit together (an unknown output limit would count as 32,000), an
 * output or input limit means nothing without the context limit, and limits that leave no
 * usable context (opencode would compact before every step) are a slip, not a model.
 * @throws UsageError one line naming the flags and what was typed.
 */
export function limitsFlags(values: Record<string, string | boolean | undefined>): {
  limits: Partial<ModelLimits>;
  reserved: number | undefined;
} {
  const text = (name: string) => values[name] as string | undefined;
  const limits = {
    context: tokensFlag("context-limit", text("context-limit")),
    output: tokensFlag("output-limit", text("output-limit")),
    input: tokensFlag("input-limit", text("input-limit")),
  };
  const reserved = text("reserved") === undefined ? undefined : wholeTokens("reserved", text("reserved")!, 0);
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
  if (limits.context !== undefined && usableContext(limits, reserved) === 0) {
    // Only an input limit is left to blame: context − output > 0 was checked above.
    const kept =
      reserved !== undefined
        ? `--reserved ${reserved}`
        : `the ${fmt(Math.min(RESERVED_MAX, Math.min(limits.output!, OUTPUT_TOKEN_MAX)))} tokens opencode reserves ` +
          `(min(${fmt(RESERVED_MAX)}, --output-limit))`;
    throw new UsageError(`--input-limit ${limits.input} minus ${kept} leaves no usable context: opencode would compact before every step`);
  }
  return { limits, reserved };
}

/** What a decision needs besides the history, from the environment and the flags. */
export interface DecisionInputs {
  readonly settings: GuardSettings;
  readonly limits: Partial<ModelLimits>;
  /** opencode's `compaction.reserved` (tokens), when given. */
  readonly reserved: number | undefined;
  /** Was `predict` set by `--predict` or `OPENCODE_COMPACTION_GUARD_PREDICT` (not left at its default)? */
  readonly predictAsked: boolean;
}

/**
 * Guard settings (defaults < the global settings file < the project's, found from `cwd` as the
 * plugin finds it from opencode's directory < `OPENCODE_COMPACTION_GUARD_*` < flags), model
 * limits and `--reserved`, exactly as `replay` reads them. A bad file or environment value is a
 * `warning: …` line on `err` (the value below it stands).
 * @throws UsageError for a bad flag value.
 */
export function decisionInputs(
  values: Record<string, string | boolean | undefined>,
  env: Readonly<Record<string, string | undefined>>,
  err: (text: string) => void,
  cwd: string,
): DecisionInputs {
  const resolved = resolveSettings(undefined, env, { only: REPLAY_KEYS, files: loadSettingsFiles(env, cwd) });
  for (const problem of resolved.problems) err(`warning: ${problem}\n`);
  const settings: Record<string, unknown> = { ...resolved.settings };
  let predictAsked = resolved.sources.predict !== "default";
  for (const key of REPLAY_KEYS) {
    const flag = SETTINGS[key].flag!;
    const text = values[flag] as string | undefined;
    if (text === undefined) continue;
    const checked = checkSetting(key, parseSettingText(key, text), "text");
    if (!checked.ok) throw new UsageError(`--${flag}: ${checked.problem}`);
    settings[key] = checked.value;
    if (key === "predict") predictAsked = true;
  }
  const { limits, reserved } = limitsFlags(values);
  return { settings: settings as unknown as GuardSettings, limits, reserved, predictAsked };
}

/**
 * The one warning (no newline) about token counts no model could have made, read as missing:
 * `warning: 2 messages have token counts …` (replay) or `warning: 1 session has …` (audit).
 * @param count how many `unit`s (`message`, `session`) hold such a count; at least 1.
 */
export function unphysicalTokensWarning(count: number, unit: "message" | "session"): string {
  return (
    `warning: ${plural(count, unit)} ${count === 1 ? "has" : "have"} token counts no model could have made ` +
    `(negative, not a number, or over ${fmt(MAX_PHYSICAL_TOKENS)}): read as missing`
  );
}

/** The line `--predict` without model limits gets (cannot-make-room needs opencode's usable context). */
export const PREDICT_WITHOUT_LIMITS =
  "warning: --predict needs the model's limits (--context-limit and --output-limit); cannot-make-room abstains without them";

/**
 * Warns (one line on `err`) when predict was turned on by hand (flag or
 * `OPENCODE_COMPACTION_GUARD_PREDICT`; the default stays quiet) but the command line gives no
 * model limits: cannot-make-room would silently abstain.
 */
export function warnPredictWithoutLimits(inputs: DecisionInputs, err: (text: string) => void): void {
  if (inputs.settings.predict && inputs.predictAsked && (inputs.limits.context === undefined || inputs.limits.output === undefined)) {
    err(`${PREDICT_WITHOUT_LIMITS}\n`);
  }
}

/**
 * Warns (one line on `err`) when `--reserved` is given but cannot move the usable line:
 * opencode's `compaction.reserved` only applies to a model with an input limit
 * (session/overflow.ts), so with `--context-limit` and no `--input-limit`, or (when no model
 * limits come from elsewhere) with no limits at all, it has no effect.
 * @param limitsFromOpencode audit with no path: each session's limits come from opencode, where `reserved` may apply.
 */
export function warnReservedWithoutEffect(inputs: DecisionInputs, err: (text: string) => void, limitsFromOpencode = false): void {
  if (inputs.reserved === undefined || inputs.limits.input !== undefined) return;
  if (inputs.limits.context === undefined && limitsFromOpencode) return;
  err(
    `warning: --reserved ${inputs.reserved} has no effect: opencode's compaction.reserved only moves the usable line ` +
      "of a model with an input limit (--input-limit)\n",
  );
}

/**
 * The known flag a mistyped one most likely meant, or null when none is near: one it begins
 * (`--context` → `--context-limit`), else the closest (`--jsn` → `--json`) when few edits
 * away: at most a third of the name's length (at least 1, at most 3). `--bogus` is near nothing.
 */
export function nearestFlag(flag: string, known: readonly string[]): string | null {
  const long = flag.startsWith("--") ? flag : `-${flag}`;
  const prefixed = known.find((k) => k.startsWith(long));
  if (prefixed !== undefined) return prefixed;
  if (known.length === 0) return null;
  const best = closest(long, [...known]);
  const name = long.replace(/^-+/, "");
  const most = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  return distance(long, best) <= most ? best : null;
}

/** An example value for each string flag, for `--<flag> needs a value (e.g. …)`. */
const FLAG_EXAMPLES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(REPORTS.flatMap((r) => (r.flag !== null && r.example !== undefined ? [[r.flag, r.example]] : []))),
  threshold: "3",
  window: "8",
  "min-reduction": "0.1",
  predict: "true",
  "match-output": "false",
  ignore: "todowrite",
  "context-limit": "200000",
  "output-limit": "32000",
  "input-limit": "180000",
  reserved: "20000",
  since: "2026-11-01",
  opencode: "/usr/local/bin/opencode",
};

/**
 * The one line for a string flag given without its value (parseArgs' ERR_PARSE_ARGS_INVALID_OPTION_VALUE:
 * `argument missing`, or `argument is ambiguous` when the next word starts with `-`):
 * `--predict needs a value (e.g. --predict true); try --help`. Null when `message` names no flag.
 */
export function missingValueLine(message: string): string | null {
  const flag = /'(?:-[^',\s]+, )?(--[^'\s<=]+)/.exec(message)?.[1];
  if (flag === undefined) return null;
  const example = FLAG_EXAMPLES[flag.slice(2)];
  return `${flag} needs a value${example !== undefined ? ` (e.g. ${flag} ${example})` : ""}; try --help`;
}

/**
 * The exit code and the one line for an error a command threw: 2 for a usage or input
 * problem (UsageError, ExportError, `extraUsage` ones, parseArgs errors), 1 (`internal
 * error: …`) for anything else.
 */
export function reportError(
  error: unknown,
  knownFlags: readonly string[],
  err: (text: string) => void,
  isUsage: (error: unknown) => boolean = () => false,
): number {
  if (error instanceof UsageError || error instanceof ExportError || isUsage(error)) {
    err(`opencode-compaction-guard: ${terminalSafe((error as Error).message)}\n`);
    return 2;
  }
  const code = (error as { code?: string }).code;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const flag = /'(-{1,2}[^'=]+)/.exec((error as Error).message)?.[1] ?? "";
    const nearest = nearestFlag(flag, knownFlags);
    err(
      `opencode-compaction-guard: unknown option ${terminalSafe(flag)}${nearest === null ? " (try --help)" : `; did you mean ${nearest}? (try --help)`}\n`,
    );
    return 2;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const line = missingValueLine((error as Error).message);
    if (line !== null) {
      err(`opencode-compaction-guard: ${terminalSafe(line)}\n`);
      return 2;
    }
  }
  if (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS")) {
    err(`opencode-compaction-guard: ${terminalSafe((error as Error).message.replace(/\s+/g, " ").trim())} (try --help)\n`);
    return 2;
  }
  err(`opencode-compaction-guard: internal error: ${terminalSafe(String((error as Error)?.message ?? error))} (${REPORT_BUGS})\n`);
  return 1;
}

/**
 * Answers `--help` (the usage) or `--version` when either flag is set.
 * @returns true when it answered (the command then exits 0).
 */
export function answeredHelpOrVersion(values: Record<string, unknown>, usage: string, out: (text: string) => void): boolean {
  if (values.help) out(usage);
  else if (values.version) out(`${VERSION}\n`);
  else return false;
  return true;
}

/**
 * What the CLI's commands share: the decision flags (guard settings, model limits,
 * `compaction.reserved`) that `replay` and `audit` both take, and how a usage problem or a
 * parse error becomes one line and exit code 2.
 */
import { closest, distance } from "fastest-levenshtein";
import { ExportError } from "../sessions/export.js";
import type { ModelLimits } from "../decide/opencode-facts.js";
import { checkSetting, parseSettingText, resolveSettings, SETTINGS, showValue, type GuardSettings } from "../decide/settings.js";
import { VERSION } from "../shared/version.js";

/** The settings replay and audit take as flags (the others mean nothing to a replay). */
export const REPLAY_KEYS = (Object.keys(SETTINGS) as Array<keyof typeof SETTINGS>).filter((key) => SETTINGS[key].flag !== null);

/** The decision flags that are not settings, with their help. */
export const LIMIT_FLAGS = [
  ["--context-limit N", "model context window, tokens   } known limits let no-progress"],
  ["--output-limit N", "model output limit, tokens     } compare with opencode's"],
  ["--input-limit N", "model input limit, tokens      } usable context"],
  ["--reserved N", "opencode's compaction.reserved, tokens (moves the usable line of a model with an input limit)"],
] as const;

/** Usage lines of the settings flags, with their defaults. */
export const SETTINGS_USAGE: readonly string[] = REPLAY_KEYS.map((key) => {
  const s = SETTINGS[key];
  const value = typeof s.default === "boolean" ? "BOOL" : Array.isArray(s.default) ? "LIST" : Number.isInteger(s.default) ? "N" : "F";
  return `  ${`--${s.flag} ${value}`.padEnd(23)}${s.help} (default ${showValue(s.default)})`;
});

/** parseArgs option definitions of the decision flags. */
export const DECISION_OPTIONS = {
  ...Object.fromEntries(REPLAY_KEYS.map((key) => [SETTINGS[key].flag, { type: "string" as const }])),
  "context-limit": { type: "string" },
  "output-limit": { type: "string" },
  "input-limit": { type: "string" },
  reserved: { type: "string" },
} as const satisfies Record<string, { type: "string" }>;

/** Every long decision flag, for "did you mean". */
export const DECISION_FLAGS: readonly string[] = [
  ...REPLAY_KEYS.map((key) => `--${SETTINGS[key].flag}`),
  "--context-limit",
  "--output-limit",
  "--input-limit",
  "--reserved",
];

/** A usage or input problem: printed as one line, exit 2. */
export class UsageError extends Error {}

/** A whole number of tokens ≥ `min` from a flag; a UsageError otherwise. */
export function wholeTokens(name: string, text: string, min: number): number {
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
 * @throws UsageError one line naming the flag.
 */
export function limitsFlags(values: Record<string, string | boolean | undefined>): Partial<ModelLimits> {
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

/** What a decision needs besides the history, from the environment and the flags. */
export interface DecisionInputs {
  readonly settings: GuardSettings;
  readonly limits: Partial<ModelLimits>;
  /** opencode's `compaction.reserved` (tokens), when given. */
  readonly reserved: number | undefined;
}

/**
 * Guard settings (defaults < `OPENCODE_COMPACTION_GUARD_*` < flags), model limits and
 * `--reserved`, exactly as `replay` reads them. A bad environment value is a `warning: …`
 * line on `err` (the value below it stands).
 * @throws UsageError for a bad flag value.
 */
export function decisionInputs(
  values: Record<string, string | boolean | undefined>,
  env: Readonly<Record<string, string | undefined>>,
  err: (text: string) => void,
): DecisionInputs {
  const resolved = resolveSettings(undefined, env, { only: REPLAY_KEYS });
  for (const problem of resolved.problems) err(`warning: ${problem}\n`);
  const settings: Record<string, unknown> = { ...resolved.settings };
  for (const key of REPLAY_KEYS) {
    const flag = SETTINGS[key].flag!;
    const text = values[flag] as string | undefined;
    if (text === undefined) continue;
    const checked = checkSetting(key, parseSettingText(key, text), "text");
    if (!checked.ok) throw new UsageError(`--${flag}: ${checked.problem}`);
    settings[key] = checked.value;
  }
  const limits = limitsFlags(values);
  const reserved = typeof values.reserved === "string" ? wholeTokens("reserved", values.reserved, 0) : undefined;
  return { settings: settings as unknown as GuardSettings, limits, reserved };
}

/** The line `--predict` without model limits gets (cannot-make-room needs opencode's usable context). */
export const PREDICT_WITHOUT_LIMITS =
  "warning: --predict needs the model's limits (--context-limit and --output-limit); cannot-make-room abstains without them";

/**
 * Warns (one line on `err`) when predict is on (flag or `OPENCODE_COMPACTION_GUARD_PREDICT`)
 * but the command line gives no model limits: cannot-make-room would silently abstain.
 */
export function warnPredictWithoutLimits(inputs: DecisionInputs, err: (text: string) => void): void {
  if (inputs.settings.predict && (inputs.limits.context === undefined || inputs.limits.output === undefined)) {
    err(`${PREDICT_WITHOUT_LIMITS}\n`);
  }
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
  html: "report.html",
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
  err(`opencode-compaction-guard: internal error: ${terminalSafe(String((error as Error)?.message ?? error))}\n`);
  return 1;
}

/** A token count with thousands separators, or "-" for null. */
export const fmt = (n: number | null): string => (n === null ? "-" : n.toLocaleString("en-US"));

/**
 * Characters that must not reach a terminal raw: C0 controls, DEL, C1 controls (`\u009b` is a
 * one-byte CSI), and the bidi embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069) that reorder what follows them.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Untrusted text (a file name, a title, what opencode or a server said) made safe for one
 * terminal line: tab, newline and carriage return become a space, every other character of
 * {@link UNSAFE} a visible escape (`\x1b`, `\u202e`). Printable text is untouched.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => {
    if (c === "\t" || c === "\n" || c === "\r") return " ";
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });

/** East Asian Wide and Fullwidth ranges (UAX #11), and the emoji blocks terminals draw two columns wide. */
const WIDE =
  /^[\u1100-\u115f\u231a\u231b\u2329\u232a\u23e9-\u23ec\u23f0\u23f3\u25fd\u25fe\u2614\u2615\u2648-\u2653\u267f\u2693\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea\u26f2\u26f3\u26f5\u26fa\u26fd\u2705\u270a\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{16fe4}\u{17000}-\u{18cff}\u{1b000}-\u{1b2ff}\u{1f004}\u{1f0cf}\u{1f18e}\u{1f191}-\u{1f19a}\u{1f200}-\u{1f251}\u{1f300}-\u{1f64f}\u{1f680}-\u{1f6ff}\u{1f7e0}-\u{1f7eb}\u{1f90c}-\u{1f9ff}\u{1fa70}-\u{1faff}\u{20000}-\u{2fffd}\u{30000}-\u{3fffd}]/u;
/** Characters that take no column: combining marks, zero-width joiners and spaces, variation selectors. */
const ZERO = /^[\p{Mn}\p{Me}\u200b-\u200f\u2060-\u2064\ufeff]$/u;

/** Columns one grapheme cluster takes in a terminal: 0, 1 or 2 (an emoji sequence or a CJK character: 2). */
function clusterWidth(cluster: string): number {
  if (ZERO.test(cluster)) return 0;
  if (WIDE.test(cluster) || /\p{Extended_Pictographic}\ufe0f|\u200d|[\u{1f1e6}-\u{1f1ff}]{2}/u.test(cluster)) return 2;
  return 1;
}

/** Columns `text` takes in a terminal (grapheme clusters, East Asian wide characters and emoji 2 columns); no escapes expected. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const { segment } of segmenter.segment(text)) width += clusterWidth(segment);
  return width;
}

/** `text` cut to at most `max` columns, whole grapheme clusters only (never half a surrogate pair), with `…` when cut. */
export function cutToWidth(text: string, max: number): string {
  if (displayWidth(text) <= max) return text;
  let out = "";
  let width = 0;
  for (const { segment } of segmenter.segment(text)) {
    const w = clusterWidth(segment);
    if (width + w > max - 1) break;
    out += segment;
    width += w;
  }
  return `${out}…`;
}

/** `text` padded with spaces to `width` columns, at the end (`"end"`) or the start. */
export function padToWidth(text: string, width: number, side: "end" | "start" = "end"): string {
  const pad = " ".repeat(Math.max(0, width - displayWidth(text)));
  return side === "end" ? text + pad : pad + text;
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

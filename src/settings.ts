/**
 * The guard's settings: defaults < the options object of the plugin's entry in
 * `opencode.json` < environment variables. Each value is validated on its own; an invalid
 * one is reported (the caller logs it once) and ignored: the value below it stands.
 */
import { z } from "zod";

/** How a denial is announced: a TUI toast and a warn log line, the log line only, or nothing. */
export type NotifyMode = "toast" | "log" | "off";

export interface GuardSettings {
  /** Deny when one completed tool call signature occurs this many times (count, ≥ 2). */
  readonly threshold: number;
  /** How many recent non-summary assistant messages repeated-tool-call looks at (messages, ≥ 1). */
  readonly window: number;
  /** No-progress denies unless a compaction cut the context by at least this fraction (0 ≤ f < 1). */
  readonly minReduction: number;
  /** Include the tool output in the signature: same call *and* same result. */
  readonly matchOutput: boolean;
  /** How a denial is announced (see {@link NotifyMode}). */
  readonly notify: NotifyMode;
  /** false: the guard never decides; opencode behaves as without it. */
  readonly enabled: boolean;
  /**
   * Calls the rules never count: an entry matches a tool by its name (`todowrite`), or a
   * bash call whose command is the entry or starts with it and a space (`gh run watch`).
   */
  readonly ignore: readonly string[];
}

/** Defaults. threshold 3 mirrors opencode's DOOM_LOOP_THRESHOLD (session/processor.ts). */
export const DEFAULT_SETTINGS: GuardSettings = Object.freeze({
  threshold: 3,
  window: 8,
  minReduction: 0.1,
  matchOutput: true,
  notify: "toast",
  enabled: true,
  ignore: Object.freeze([]) as readonly string[],
});

type Key = keyof GuardSettings;

const SCHEMAS: { readonly [K in Key]: z.ZodType<GuardSettings[K]> } = {
  threshold: z.number().int().min(2).max(1000),
  window: z.number().int().min(1).max(1000),
  minReduction: z.number().min(0).lt(1),
  matchOutput: z.boolean(),
  notify: z.enum(["toast", "log", "off"]),
  enabled: z.boolean(),
  ignore: z.array(z.string().trim().min(1).max(200)).max(100).readonly(),
};

/** What each setting accepts, in words, for error messages. */
const EXPECTED: { readonly [K in Key]: string } = {
  threshold: "an integer from 2 to 1000",
  window: "an integer from 1 to 1000",
  minReduction: "a number from 0 to below 1",
  matchOutput: "true or false",
  notify: "toast, log or off",
  enabled: "true or false",
  ignore: "a list of up to 100 tool names or command starts",
};

/** Environment variable names, one per setting. `_DISABLED` is the inverse of `enabled`. */
export const ENV_NAMES: { readonly [K in Key]: string } = {
  threshold: "OPENCODE_COMPACTION_GUARD_THRESHOLD",
  window: "OPENCODE_COMPACTION_GUARD_WINDOW",
  minReduction: "OPENCODE_COMPACTION_GUARD_MIN_REDUCTION",
  matchOutput: "OPENCODE_COMPACTION_GUARD_MATCH_OUTPUT",
  notify: "OPENCODE_COMPACTION_GUARD_NOTIFY",
  enabled: "OPENCODE_COMPACTION_GUARD_DISABLED",
  ignore: "OPENCODE_COMPACTION_GUARD_IGNORE",
};

const KEYS = Object.keys(DEFAULT_SETTINGS) as Key[];
const isKey = (key: string): key is Key => (KEYS as string[]).includes(key);

/** Reads "true/false/1/0/yes/no/on/off" (any case); anything else is returned unchanged. */
function parseBoolean(text: string): boolean | string {
  const lower = text.trim().toLowerCase();
  if (["true", "1", "yes", "on"].includes(lower)) return true;
  if (["false", "0", "no", "off"].includes(lower)) return false;
  return text;
}

/** Turns a command-line or environment string into the type the setting's schema expects. */
export function parseSettingText(key: Key, text: string): unknown {
  if (key === "notify") return text.trim().toLowerCase();
  if (key === "matchOutput" || key === "enabled") return parseBoolean(text);
  // A comma-separated list: "gh run watch, todowrite".
  if (key === "ignore") return text.split(",").map((item) => item.trim()).filter((item) => item !== "");
  // Plain decimals only: Number() would also take "0x10", "1e3" or "Infinity".
  return /^[+-]?(\d+\.?\d*|\.\d+)$/.test(text.trim()) ? Number(text.trim()) : text;
}

/** A short, safe rendering of a rejected value (never more than 40 characters). */
function show(value: unknown): string {
  const text = typeof value === "string" || Array.isArray(value) ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * Validates one setting.
 *
 * @returns the value, or the message that says what was wrong (without the default).
 */
export function checkSetting<K extends Key>(
  key: K,
  value: unknown,
): { ok: true; value: GuardSettings[K] } | { ok: false; problem: string } {
  const result = SCHEMAS[key].safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problem: `${key} must be ${EXPECTED[key]}, got ${show(value)}` };
}

/** Settings after every layer, with what was ignored on the way. */
export interface ResolvedSettings {
  readonly settings: GuardSettings;
  /** One line per ignored value, e.g. `OPENCODE_COMPACTION_GUARD_WINDOW: window must be … ; using 8`. */
  readonly problems: readonly string[];
}

/**
 * Resolves settings from the plugin's options object and the environment.
 *
 * @param options the second argument opencode passes to the plugin (the object of a
 *   `["plugin", { … }]` entry in `opencode.json`), or undefined.
 * @param env environment variables, normally `process.env`.
 * @returns the settings and the list of ignored values; never throws.
 */
export function resolveSettings(options: unknown, env: Readonly<Record<string, string | undefined>>): ResolvedSettings {
  const values: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  const problems: string[] = [];
  const apply = (key: Key, value: unknown, source: string): void => {
    const checked = checkSetting(key, value);
    if (checked.ok) values[key] = checked.value;
    else problems.push(`${source}: ${checked.problem}; using ${show(values[key])}`);
  };

  if (options !== undefined && options !== null) {
    if (typeof options !== "object" || Array.isArray(options)) {
      problems.push(`plugin options: expected an object, got ${show(options)}; using defaults`);
    } else {
      for (const [key, value] of Object.entries(options)) {
        if (isKey(key)) apply(key, value, `plugin option ${key}`);
        else problems.push(`plugin option ${key}: unknown setting (known: ${KEYS.join(", ")}); ignored`);
      }
    }
  }

  for (const key of KEYS) {
    const text = env[ENV_NAMES[key]];
    if (text === undefined || text === "") continue;
    const parsed = parseSettingText(key, text);
    // _DISABLED=true means enabled=false; an unparseable value stays as text and is rejected.
    if (key === "enabled") {
      if (typeof parsed === "boolean") values.enabled = !parsed;
      else problems.push(`${ENV_NAMES.enabled}: must be true or false (1/0, yes/no, on/off), got ${show(text)}; the guard stays ${values.enabled ? "enabled" : "disabled"}`);
      continue;
    }
    apply(key, parsed, ENV_NAMES[key]);
  }
  return { settings: values as unknown as GuardSettings, problems };
}

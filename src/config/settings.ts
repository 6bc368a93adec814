/**
 * The guard's settings: defaults < the global settings file < the project's settings file
 * (`compaction-guard.jsonc`, read and parsed by config/file.ts: this module reads no file) <
 * the options object of the plugin's entry in `opencode.json` < environment variables (< the
 * replay command's flags). Each value is validated on its own; an invalid one is reported (the
 * caller logs it once) and ignored: the value below it stands.
 *
 * {@link SETTINGS} is the one table of every setting: its schema (type and bounds), default,
 * option key, environment variable, replay flag and help text (shared/setting.ts `SettingSpec`).
 * Each spec is declared where it is read: a rule's own in the rule's file (judge/rules/rule.ts
 * `settings`), those several parts of the judge read in judge/settings.ts, the runtime's here;
 * this module assembles them. Everything else here (and the replay command's flags and help,
 * the JSON schema, `init`'s file) is derived from the table.
 */
import { closest, distance } from "fastest-levenshtein";
import type { z } from "zod";
import { RULE_SETTINGS } from "../judge/rules/index.js";
import { SHARED_SETTINGS } from "../judge/settings.js";
import { boolean, BOOL_TEXT, spec, type SettingSpec, type SettingValues } from "../shared/setting.js";
import { lazily, zod } from "../shared/zod.js";

/** How a denial is announced: a TUI toast and a warn log line, the log line only, or nothing. */
export type NotifyMode = "toast" | "log" | "off";

/** `enforce`: deny when a rule fires. `observe`: never deny; say where it would have. */
export type GuardMode = "enforce" | "observe";

export type { ToolLoopMode } from "../judge/settings.js";

/** Where an effective setting came from. */
export type SettingSource = "default" | FileSource | "option" | "env" | "flag";

/** Which settings file a value came from: the one in opencode's global config folder, or the project's `.opencode/`. */
export type FileSource = "global file" | "project file";

/**
 * One settings file, already read and parsed (config/file.ts): its top-level entries with the
 * line each starts on, and the problems found while parsing it (already worded, one line each).
 */
export interface FileLayer {
  readonly source: FileSource;
  /** The file as a problem line names it, e.g. `~/.config/opencode/compaction-guard.jsonc`. */
  readonly name: string;
  /** Its top-level keys in file order, with their values (JSON) and 1-based line numbers. */
  readonly entries: ReadonlyArray<{ readonly key: string; readonly value: unknown; readonly line: number }>;
  /** Problems of the file itself (unreadable, not JSONC, not an object), each a whole line. */
  readonly problems: readonly string[];
}

/** The runtime's settings: how a stop is told, whether it denies, prevention, the status file, the switch. */
const RUNTIME_SETTINGS = {
  notify: spec<NotifyMode>({
    schema: lazily(() => zod().enum(["toast", "log", "off"])),
    default: "toast",
    expected: "toast, log or off",
    env: "OPENCODE_COMPACTION_GUARD_NOTIFY",
    flag: null,
    help: "how a stopped loop is announced: toast, log line and note; log line and note; or nothing",
    fromText: (text) => text.trim().toLowerCase(),
  }),
  mode: spec<GuardMode>({
    schema: lazily(() => zod().enum(["enforce", "observe"])),
    default: "enforce",
    expected: "enforce or observe",
    env: "OPENCODE_COMPACTION_GUARD_MODE",
    flag: null,
    help: "observe: never deny, say where it would have",
    fromText: (text) => text.trim().toLowerCase(),
  }),
  prevent: spec({
    schema: lazily(() => zod().boolean()),
    default: true,
    expected: "true or false",
    expectedText: BOOL_TEXT,
    env: "OPENCODE_COMPACTION_GUARD_PREVENT",
    flag: null,
    help: "after a compaction, tell the summarizer and the model what was already done and that the continue turn is no new instruction",
    fromText: boolean,
  }),
  statusFile: spec({
    schema: lazily(() => zod().string().max(4096)),
    default: "",
    expected: "a file path (empty: none)",
    env: "OPENCODE_COMPACTION_GUARD_STATUS_FILE",
    flag: null,
    help: "a file the guard writes a JSON status to each time it stops a session (empty: none); relative to the project directory",
    fromText: (text) => text,
  }),
  enabled: spec({
    schema: lazily(() => zod().boolean()),
    default: true,
    expected: "true or false",
    expectedText: BOOL_TEXT,
    env: "OPENCODE_COMPACTION_GUARD_DISABLED",
    flag: null,
    help: "false: the guard does nothing (env: _DISABLED=1)",
    fromText: boolean,
  }),
} as const;

/**
 * Where the judge's settings stand in the table, and so in the start-up line, the replay
 * command's flags and help, the JSON schema, `init`'s file and the README: a rule's setting
 * named nowhere here follows them, in RULES order.
 */
const JUDGE_ORDER = ["threshold", "window", "minReduction", "predict", "matchOutput", "ignore", "toolLoop"] as const;

const JUDGE_SETTINGS = { ...SHARED_SETTINGS, ...RULE_SETTINGS };

/**
 * Every setting, in the order the start-up line and the help list them: the judge's (those
 * several of its parts read, judge/settings.ts, and each rule's own, judge/rules/index.ts
 * `RULE_SETTINGS`), then the runtime's.
 */
export const SETTINGS: typeof JUDGE_SETTINGS & typeof RUNTIME_SETTINGS = Object.freeze({
  ...Object.fromEntries(JUDGE_ORDER.map((key) => [key, JUDGE_SETTINGS[key]])),
  ...JUDGE_SETTINGS,
  ...RUNTIME_SETTINGS,
} as typeof JUDGE_SETTINGS & typeof RUNTIME_SETTINGS);

type Specs = typeof SETTINGS;
type Key = keyof Specs;

/** The guard's settings, one field per entry of {@link SETTINGS}. */
export type GuardSettings = SettingValues<Specs>;

const KEYS = Object.keys(SETTINGS) as Key[];
const isKey = (key: string): key is Key => (KEYS as string[]).includes(key);

/** Defaults (each spec's `default`). threshold 3 mirrors opencode's DOOM_LOOP_THRESHOLD (session/processor.ts). */
export const DEFAULT_SETTINGS: GuardSettings = Object.freeze(
  Object.fromEntries(KEYS.map((key) => [key, SETTINGS[key].default])) as unknown as GuardSettings,
);

/** Environment variable names, one per setting. `_DISABLED` is the inverse of `enabled`. */
export const ENV_NAMES: { readonly [K in Key]: string } = Object.freeze(
  Object.fromEntries(KEYS.map((key) => [key, SETTINGS[key].env])) as { [K in Key]: string },
);

/** Turns a command-line or environment string into the type the setting's schema expects. */
export function parseSettingText(key: Key, text: string): unknown {
  return SETTINGS[key].fromText(text);
}

/** A short, safe rendering of a value (never more than 40 characters). */
export function showValue(value: unknown): string {
  const text = typeof value === "string" || Array.isArray(value) ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * Validates one setting.
 *
 * @param from `text`: the value was read from an environment variable or a flag (the message
 *   then names the words text may say, e.g. `yes/no`); `value`: a plugin option (JSON).
 * @returns the value, or the message that says what was wrong (without the default).
 */
export function checkSetting<K extends Key>(
  key: K,
  value: unknown,
  from: "value" | "text" = "value",
): { ok: true; value: GuardSettings[K] } | { ok: false; problem: string } {
  const result = (SETTINGS[key].schema() as z.ZodType<GuardSettings[K]>).safeParse(value);
  if (result.success) return { ok: true, value: result.data };
  const spec: SettingSpec<unknown> = SETTINGS[key];
  const expected = from === "text" ? (spec.expectedText ?? spec.expected) : spec.expected;
  return { ok: false, problem: `${key} must be ${expected}, got ${showValue(value)}` };
}

/** Settings after every layer, with where each came from and what was ignored on the way. */
export interface ResolvedSettings {
  readonly settings: GuardSettings;
  /** Where each effective value came from. */
  readonly sources: { readonly [K in Key]: SettingSource };
  /** One line per ignored value, e.g. `OPENCODE_COMPACTION_GUARD_WINDOW: window must be … ; using 8`. */
  readonly problems: readonly string[];
}

const ENV_PREFIX = "OPENCODE_COMPACTION_GUARD_";

/**
 * A variable that starts with our prefix but is none of ours: the nearest right name, and
 * for `…_ENABLED=false` the variable that does that (`…_DISABLED=1`).
 */
function unknownEnvProblem(name: string): string {
  const names = KEYS.map((key) => SETTINGS[key].env);
  if (name === `${ENV_PREFIX}ENABLED` || name === `${ENV_PREFIX}DISABLE` || name === `${ENV_PREFIX}OFF`) {
    return `${name}: not a setting; did you mean ${SETTINGS.enabled.env}=1 (to turn the guard off)?`;
  }
  return `${name}: not a setting; did you mean ${closest(name, names)}?`;
}

/** A settings file's key that is no setting: the nearest name when it is close (a typo), else the list. */
function unknownKeyProblem(key: string): string {
  const near = closest(key, KEYS);
  const typo = distance(key.toLowerCase(), near.toLowerCase()) <= Math.max(2, Math.floor(near.length / 3));
  return `${showValue(key)} is not a setting; ${typo ? `did you mean ${near}?` : `known: ${KEYS.join(", ")};`} ignored`;
}

/** The key a settings file may hold besides the settings: the JSON Schema an editor checks it with. */
export const SCHEMA_KEY = "$schema";

/**
 * Resolves settings from the settings files, the plugin's options object and the environment.
 *
 * @param options the second argument opencode passes to the plugin (the object of a
 *   `["plugin", { … }]` entry in `opencode.json`), or undefined.
 * @param env environment variables, normally `process.env`.
 * @param scope `only`: the settings to read from the files and the environment (the replay
 *   command reads those it has flags for; the rest keep their defaults and are not reported).
 *   `files`: the settings files, already parsed (config/file.ts), lowest first (global, then
 *   project); their own problems are reported first, in order.
 * @returns the settings, their sources and the list of ignored values; never throws.
 */
export function resolveSettings(
  options: unknown,
  env: Readonly<Record<string, string | undefined>>,
  scope: { readonly only?: readonly Key[]; readonly files?: readonly FileLayer[] } = {},
): ResolvedSettings {
  const inScope = (key: Key) => scope.only === undefined || scope.only.includes(key);
  const values: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  const sources = Object.fromEntries(KEYS.map((key) => [key, "default"])) as Record<Key, SettingSource>;
  const problems: string[] = [];
  const apply = (key: Key, value: unknown, source: string, kind: SettingSource): void => {
    const checked = checkSetting(key, value, kind === "env" || kind === "flag" ? "text" : "value");
    if (checked.ok) {
      values[key] = checked.value;
      sources[key] = kind;
    } else problems.push(`${source}: ${checked.problem}; using ${showValue(values[key])}`);
  };

  for (const file of scope.files ?? []) {
    problems.push(...file.problems);
    for (const { key, value, line } of file.entries) {
      const where = `${file.name}:${line}`;
      if (key === SCHEMA_KEY) continue;
      if (!isKey(key)) problems.push(`${where}: ${unknownKeyProblem(key)}`);
      else if (inScope(key)) apply(key, value, where, file.source);
    }
  }

  if (options !== undefined && options !== null) {
    if (typeof options !== "object" || Array.isArray(options)) {
      problems.push(`plugin options: expected an object, got ${showValue(options)}; using defaults`);
    } else {
      for (const [key, value] of Object.entries(options)) {
        if (isKey(key)) apply(key, value, `plugin option ${key}`, "option");
        else problems.push(`plugin option ${key}: unknown setting (known: ${KEYS.join(", ")}); ignored`);
      }
    }
  }

  for (const key of KEYS.filter(inScope)) {
    const text = env[SETTINGS[key].env];
    if (text === undefined || text === "") continue;
    const parsed = parseSettingText(key, text);
    // _DISABLED=true means enabled=false; an unparseable value stays as text and is rejected.
    if (key === "enabled") {
      if (typeof parsed === "boolean") {
        values.enabled = !parsed;
        sources.enabled = "env";
      } else {
        problems.push(
          `${SETTINGS.enabled.env}: must be ${BOOL_TEXT}, got ${showValue(text)}; the guard stays ${values.enabled ? "enabled" : "disabled"}`,
        );
      }
      continue;
    }
    apply(key, parsed, SETTINGS[key].env, "env");
  }

  const known = new Set(KEYS.map((key) => SETTINGS[key].env));
  for (const name of Object.keys(env).sort()) {
    if (name.startsWith(ENV_PREFIX) && !known.has(name)) problems.push(unknownEnvProblem(name));
  }
  return { settings: values as unknown as GuardSettings, sources, problems };
}

/**
 * Every effective setting and where it came from, for the start-up line:
 * `threshold 3 (default), window 8 (option), …, ignore ["gh run watch"] (env)`; `statusFile`
 * only when one is set.
 */
export function describeSettings(resolved: Pick<ResolvedSettings, "settings" | "sources">): string {
  return KEYS.filter((key) => key !== "enabled" && !(key === "statusFile" && resolved.settings.statusFile === ""))
    .map((key) => `${key} ${showValue(resolved.settings[key])} (${resolved.sources[key]})`)
    .join(", ");
}

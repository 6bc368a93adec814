/**
 * The guard's settings: defaults < the global settings file < the project's settings file
 * (`compaction-guard.jsonc`, read and parsed by config/file.ts: this module reads no file) <
 * the options object of the plugin's entry in `opencode.json` < environment variables (< the
 * replay command's flags). Each value is validated on its own; an invalid one is reported (the
 * caller logs it once) and ignored: the value below it stands.
 *
 * {@link SETTINGS} is the one source of every setting: its schema (type and bounds), default,
 * option key, environment variable, replay flag and help text. Everything else here (and the
 * replay command's flags and help) is derived from it.
 */
import { closest, distance } from "fastest-levenshtein";
import type { z } from "zod";
import { boolean, BOOL_TEXT, decimal, spec, type SettingSpec, type SettingValues } from "../shared/setting.js";
import { lazily, zod } from "../shared/zod.js";

/** How a denial is announced: a TUI toast and a warn log line, the log line only, or nothing. */
export type NotifyMode = "toast" | "log" | "off";

/** `enforce`: deny when a rule fires. `observe`: never deny; say where it would have. */
export type GuardMode = "enforce" | "observe";

/**
 * What the guard does about a tool loop with no compaction (judge/tool-loop.ts): `warn` adds
 * a notice to the result that completes a chain, `stop` also refuses the call that goes on
 * with it and stops the session, `off` does nothing.
 */
export type ToolLoopMode = "warn" | "stop" | "off";

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

/** Every setting, in the order the start-up line and the help list them. */
export const SETTINGS = {
  threshold: spec({
    schema: lazily(() => zod().number().int().min(2).max(1000)),
    default: 3,
    expected: "an integer from 2 to 1000",
    env: "OPENCODE_COMPACTION_GUARD_THRESHOLD",
    flag: "threshold",
    help: "runs of one call, with nothing new between, across a compaction, that deny (repeated-tool-call)",
    fromText: decimal,
  }),
  window: spec({
    schema: lazily(() => zod().number().int().min(1).max(1000)),
    default: 8,
    expected: "an integer from 1 to 1000",
    env: "OPENCODE_COMPACTION_GUARD_WINDOW",
    flag: "window",
    help: "recent steps repeated-tool-call reads",
    fromText: decimal,
  }),
  minReduction: spec({
    schema: lazily(() => zod().number().min(0).lt(1)),
    default: 0.1,
    expected: "a number from 0 to below 1",
    env: "OPENCODE_COMPACTION_GUARD_MIN_REDUCTION",
    flag: "min-reduction",
    help: "fraction of the context a compaction must cut, at least (no-progress)",
    fromText: decimal,
  }),
  predict: spec({
    schema: lazily(() => zod().boolean()),
    default: true,
    expected: "true or false",
    expectedText: BOOL_TEXT,
    env: "OPENCODE_COMPACTION_GUARD_PREDICT",
    flag: "predict",
    help: "at the first compaction, deny when compaction cannot get under the usable context (cannot-make-room)",
    fromText: boolean,
  }),
  matchOutput: spec({
    schema: lazily(() => zod().boolean()),
    default: true,
    expected: "true or false",
    expectedText: BOOL_TEXT,
    env: "OPENCODE_COMPACTION_GUARD_MATCH_OUTPUT",
    flag: "match-output",
    help: "a repeat must have the same output too",
    fromText: boolean,
  }),
  ignore: spec<readonly string[]>({
    schema: lazily(() => zod().array(zod().string().trim().min(1).max(200)).max(100).readonly()),
    default: Object.freeze([]) as readonly string[],
    expected: "a list of up to 100 tool names or command starts",
    env: "OPENCODE_COMPACTION_GUARD_IGNORE",
    flag: "ignore",
    help: "tools or bash command starts never counted (a list; comma-separated in a flag or the env)",
    // A comma-separated list: "gh run watch, todowrite".
    fromText: (text) =>
      text
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== ""),
  }),
  toolLoop: spec<ToolLoopMode>({
    schema: lazily(() => zod().enum(["warn", "stop", "off"])),
    default: "warn",
    expected: "warn, stop or off",
    env: "OPENCODE_COMPACTION_GUARD_TOOL_LOOP",
    flag: "tool-loop",
    help: "the same call with the same result threshold times, no compaction needed: warn the model, stop the session, or off",
    fromText: (text) => text.trim().toLowerCase(),
  }),
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

type Specs = typeof SETTINGS;
type Key = keyof Specs;

/** The guard's settings, one field per entry of {@link SETTINGS}. */
export type GuardSettings = SettingValues<Specs>;

const KEYS = Object.keys(SETTINGS) as Key[];
const isKey = (key: string): key is Key => (KEYS as string[]).includes(key);

/** Defaults. threshold 3 mirrors opencode's DOOM_LOOP_THRESHOLD (session/processor.ts). */
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

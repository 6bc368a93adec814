/**
 * The shape of one setting's spec and the readers of its text. Each setting is declared where
 * it is read (a rule declares its own next to its check, judge/settings.ts those several parts
 * of the judge read, config/settings.ts the runtime's), and config/settings.ts assembles them
 * into the one table everything else is derived from.
 */
import type { z } from "zod";
import { lazily, zod } from "./zod.js";

/** One setting: everything the guard, the replay command and the README say about it. */
export interface SettingSpec<T> {
  /** Validates a value from `opencode.json` (JSON types: numbers, booleans, strings, lists); built with zod on first use. */
  readonly schema: () => z.ZodType<T>;
  readonly default: T;
  /** What the schema accepts, in words, for error messages. */
  readonly expected: string;
  /**
   * What text (an environment variable, a flag) may say, when it is more than `expected`
   * (booleans: the words {@link boolean} reads too); absent: `expected`.
   */
  readonly expectedText?: string;
  /** The environment variable (for `enabled`: `…_DISABLED`, which reads inverted). */
  readonly env: string;
  /** The replay flag (without `--`), or null when the setting means nothing to replay. */
  readonly flag: string | null;
  /** One line of help: what it does. */
  readonly help: string;
  /** Turns environment or flag text into what `schema` expects (unparseable text passes through and fails). */
  readonly fromText: (text: string) => unknown;
}

/** Settings' specs by key (an option key of `opencode.json` and of a settings file). */
export type SettingSpecs = { readonly [key: string]: SettingSpec<unknown> };

/** The values a table of specs describes: one field per key, of its schema's output type. */
export type SettingValues<S extends SettingSpecs> = { readonly [K in keyof S]: z.output<ReturnType<S[K]["schema"]>> };

/** Declares one setting with its value type inferred from the schema. */
export const spec = <T>(s: SettingSpec<T>): SettingSpec<T> => s;

/** Booleans from text: true/false, 1/0, yes/no, on/off, y/n, enabled/disabled, any case (zod's stringbool). */
const boolText = lazily(() => zod().stringbool());

/** What a boolean setting's text may say, for error messages (y/n and enabled/disabled are read too). */
export const BOOL_TEXT = "true or false (or 1/0, yes/no, on/off)";

/** Plain decimals only: Number() would also take "0x10", "1e3" or "Infinity". */
export const decimal = (text: string): unknown => (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text.trim()) ? Number(text.trim()) : text);

/** A boolean from text ({@link BOOL_TEXT}); other text passes through (and fails the schema). */
export const boolean = (text: string): unknown => {
  const parsed = boolText().safeParse(text.trim());
  return parsed.success ? parsed.data : text;
};

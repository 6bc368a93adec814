/**
 * Rule tests as tables, in the manner of ESLint's RuleTester: for one rule, the sessions on
 * which it must not fire (`valid`) and those on which it must (`invalid`), each a row with a
 * name, a session and the values expected; one vitest `it` per row, named by the row.
 *
 * What a row asserts is the rule itself: the tester builds the decision view of the row's
 * compaction exactly as `decide` does (judge/verdict.ts: the slice the hook fetches) and
 * calls `rule.check` on it alone, so no other rule's code takes part in `fired` and
 * `evidence`. It also replays the session with the public `replayMessages` (src/core.ts) and
 * asserts that the verdict holds that same finding, so the view built here is the one the
 * guard decides on; a row's `verdict` is matched against that replayed verdict (which rule
 * won, its severity, what the other rules saw).
 */
import { describe, expect, it } from "vitest";
import { buildTimeline, replayMessages, type ModelLimits, type ReplayRow } from "../../src/core.js";
import { opencodeInputs } from "../../src/hosts/opencode/facts.js";
import { compactionEnd } from "../../src/model/timeline.js";
import type { Evidence, RuleName } from "../../src/judge/rules/index.js";
import type { Rule } from "../../src/judge/rules/rule.js";
import { DEFAULT_SETTINGS, type GuardSettings } from "../../src/config/settings.js";
import { historyLimit } from "../../src/judge/verdict.js";
import { DecisionView, TimelineSteps } from "../../src/judge/view.js";
import { OPENCODE_WORDS } from "../../src/hosts/opencode/words.js";

/** Every field optional, at every depth: what `toMatchObject` compares. */
export type DeepPartial<T> = T extends readonly (infer U)[]
  ? readonly DeepPartial<U>[]
  : T extends object
    ? { readonly [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/** What a row may set besides its session: the guard's settings and the host's inputs. */
export interface RowInputs {
  /** Settings over DEFAULT_SETTINGS (e.g. `threshold`, `window`, `matchOutput`, `predict`). */
  readonly settings?: Partial<GuardSettings>;
  /** The model's limits (opencode's terms; the usable context follows from them); null: unknown, whatever the table's default. */
  readonly limits?: Partial<ModelLimits> | null;
  /** opencode's `compaction.reserved` (tokens). */
  readonly reserved?: number;
  /** The session is a subagent's. */
  readonly subagent?: boolean;
  /** The history begins with the session's first message (default true, as for a whole export). */
  readonly wholeSession?: boolean;
}

/** One row: a named session, the compaction decided, and what must hold there. */
export interface Row<N extends RuleName> extends RowInputs {
  /** The test's name; unique in its table. */
  readonly name: string;
  /** The history, oldest first (a SessionBuilder, or `{ messages }` of an export). */
  readonly session: { readonly messages: readonly unknown[] };
  /** Which automatic compaction is decided, by its 1-based index; default the last decided. */
  readonly at?: number;
  /** The rule's evidence there, matched with `toMatchObject` (wrap in {@link exactly} for equality). */
  readonly evidence?: DeepPartial<Evidence[N]>;
  /** The rule's one sentence of evidence there (`rule.words.explain`). */
  readonly explain?: string;
  /** The whole verdict there (decision, rule, severity, fired, other rules' evidence), matched with `toMatchObject`. */
  readonly verdict?: DeepPartial<ReplayRow>;
  /** How many automatic compactions the replay decides in the session. */
  readonly decisionPoints?: number;
}

/** The rows of one rule: where it must stay quiet, and where it must fire (with the evidence it must report). */
export interface RuleTable<N extends RuleName> {
  readonly valid: readonly Row<N>[];
  readonly invalid: readonly (Row<N> & { readonly evidence: DeepPartial<Evidence[N]> })[];
}

/** An expected value that must equal the actual one, no field more: see {@link exactly}. */
class Exactly<T> {
  /** Marks an asymmetric matcher for vitest's equality and its pretty-printer. */
  readonly $$typeof = Symbol.for("jest.asymmetricMatcher");
  constructor(readonly value: T) {}
  asymmetricMatch(actual: unknown): boolean {
    try {
      expect(actual).toStrictEqual(this.value);
      return true;
    } catch {
      return false;
    }
  }
  toString(): string {
    return "Exactly";
  }
  toAsymmetricMatcher(): string {
    return `Exactly ${JSON.stringify(this.value)}`;
  }
}

/**
 * `value` as an expected value that must equal what it is matched with, no field more
 * (`toStrictEqual`, so that matchers such as `expect.closeTo` may sit inside it): as a row's `evidence` (then compared with `toStrictEqual`, for a
 * readable diff), or inside `evidence` or `verdict`, where `toMatchObject` alone would let
 * extra fields pass.
 */
export function exactly<T>(value: T): T {
  return new Exactly(value) as unknown as T;
}

/** Asserts `actual` matches `expected`: strict equality for {@link exactly}, else `toMatchObject`. */
function expectMatch(actual: unknown, expected: unknown, what: string): void {
  if (expected instanceof Exactly) expect(actual, what).toStrictEqual(expected.value);
  else expect(actual, what).toMatchObject(expected as object);
}

/** The row's settings and inputs over the table's defaults. */
function inputsOf(row: RowInputs, defaults: RowInputs) {
  const settings: GuardSettings = { ...DEFAULT_SETTINGS, ...defaults.settings, ...row.settings };
  const limits = (row.limits === undefined ? defaults.limits : row.limits) ?? undefined;
  const reserved = row.reserved ?? defaults.reserved;
  const subagent = row.subagent ?? defaults.subagent;
  const wholeSession = row.wholeSession ?? defaults.wholeSession ?? true;
  return { settings, limits, reserved, subagent, wholeSession };
}

/** Runs one row: `fired` must be `fires`; then every value the row sets. */
function runRow<N extends RuleName>(rule: Rule<N, Evidence[N]>, row: Row<N>, fires: boolean, defaults: RowInputs): void {
  const { settings, limits, reserved, subagent, wholeSession } = inputsOf(row, defaults);
  const rows = replayMessages(row.session.messages, settings, { limits, reserved, subagent, wholeSession });
  if (row.decisionPoints !== undefined) expect(rows, "decision points").toHaveLength(row.decisionPoints);
  const verdict = row.at === undefined ? rows.at(-1) : rows.find((r) => r.compaction.index === row.at);
  if (!verdict) throw new Error(`row "${row.name}": no automatic compaction ${row.at ?? "at all"} is decided in its session`);

  // The rule alone, on the view decide builds for this compaction (decideWith in judge/verdict.ts).
  const timeline = buildTimeline(row.session.messages);
  const compaction = timeline.compactions.find((c) => c.messageID === verdict.compaction.messageID)!;
  const context = { ...opencodeInputs(limits, reserved), subagent, wholeSession, settings };
  const start = Math.max(0, compactionEnd(compaction) - historyLimit(settings) + 1);
  const finding = rule.check(new DecisionView(new TimelineSteps(timeline), compaction, settings, start), context);

  expect(finding.fired, `${rule.name} fired`).toBe(fires);
  if (row.evidence !== undefined) expectMatch(finding.evidence, row.evidence, `${rule.name} evidence`);
  if (row.explain !== undefined) expect(rule.words.explain(finding.evidence, OPENCODE_WORDS)).toBe(row.explain);
  // The guard's own verdict holds the same finding.
  expect(verdict.evidence[rule.name], "the verdict's evidence").toEqual(finding.evidence);
  expect(verdict.fired.includes(rule.name), "in the verdict's fired").toBe(fires);
  if (row.verdict !== undefined) expectMatch(verdict, row.verdict, "the verdict");
}

/**
 * One `describe` for `rule`, with a `valid` and an `invalid` block and one `it` per row.
 * Every row asserts `fired` (false for valid rows, true for invalid ones), and whichever of
 * `evidence`, `explain`, `verdict` and `decisionPoints` it sets.
 *
 * @param defaults settings and host inputs for every row (a row's own win).
 * @throws Error when two rows of the table share a name.
 */
export function ruleTester<N extends RuleName>(rule: Rule<N, Evidence[N]>, table: RuleTable<N>, defaults: RowInputs = {}): void {
  const names = [...table.valid, ...table.invalid].map((row) => row.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new Error(`${rule.name}: two rows are named "${twice}"`);
  describe(rule.name, () => {
    describe("valid", () => {
      for (const row of table.valid) it(row.name, () => runRow(rule, row, false, defaults));
    });
    describe("invalid", () => {
      for (const row of table.invalid) it(row.name, () => runRow(rule, row, true, defaults));
    });
  });
}

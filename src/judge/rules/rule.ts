/**
 * What every rule is: a name, how loud its denial is, the settings it alone reads, a pure
 * check over the decision view, and the words the user is told when it denies. Adding a rule
 * is one new file in this folder plus one line in ./index.ts (see CONTRIBUTING.md).
 */
import type { SettingSpecs, SettingValues } from "../../shared/setting.js";
import type { SharedSettings } from "../settings.js";
import type { HostInputs } from "../../model/host-facts.js";
import type { HostWords } from "../../model/host-words.js";
import type { DecisionView } from "../view.js";

/**
 * How a denial by this rule is announced. `warning`: a loop was stopped (toast + warn line).
 * `info`: housekeeping, nothing went wrong (an info line, no toast).
 */
export type Severity = "warning" | "info";

/**
 * What a rule saw: whether it fired, and its evidence (also when it did not fire). The
 * evidence is plain data, every field computed when the check returns: no getters, no classes.
 */
export interface Finding<E> {
  readonly fired: boolean;
  readonly evidence: E;
}

/**
 * What a decision depends on besides the history and the settings: the host's inputs (its
 * facts, and its usable context in tokens: when known, no-progress also compares with it and
 * cannot-make-room can predict), and what the host knows of the session.
 */
export interface DecideOptions extends HostInputs {
  /** The project directory: file paths in previews are shown relative to it. */
  readonly directory?: string | undefined;
  /** The session has a parent (a subagent's, started by the task tool): see turn-finished. */
  readonly subagent?: boolean | undefined;
  /**
   * The timeline begins with the session's first message (a whole export; in the hook, fewer
   * messages came back than it asked for). cannot-make-room predicts only then: its base is
   * the session's first step. Undefined = not known.
   */
  readonly wholeSession?: boolean | undefined;
}

/** What a rule may know beyond the history: the settings (`S`: a rule's check reads the shared ones and its own) and {@link DecideOptions}. */
export interface RuleContext<S extends SharedSettings = SharedSettings> extends DecideOptions {
  readonly settings: S;
}

/**
 * A rule's words: one sentence of evidence, a few words for the toast, and the next step to
 * suggest. Where a text names the host (what it is called, its config file, its settings), it
 * takes them from `host`, the words of the host whose session was judged (model/host-words.ts):
 * no rule names a host itself. Each function is pure and returns one sentence without its
 * final full stop (explain, short) or with it (nextStep).
 */
export interface Words<E> {
  readonly explain: (evidence: E, host: HostWords) => string;
  /** What happened in a few words, for the toast (read at a glance, at 54–60 columns). */
  readonly short: (evidence: E) => string;
  readonly nextStep: (host: HostWords) => string;
}

/**
 * A rule as its file declares it. `check` is pure and never throws on any DecisionView.
 * `O`: the specs of the settings this rule alone reads (none: `{}`); its check reads them
 * beside the shared ones (../settings.ts), and no other rule sees them.
 */
export interface RuleDeclaration<N extends string = string, E = unknown, O extends SettingSpecs = {}> {
  readonly name: N;
  readonly severity: Severity;
  /**
   * The settings this rule alone reads, each with its schema, default, option key, environment
   * variable, replay flag and help (shared/setting.ts `SettingSpec`): config/settings.ts lists
   * them with the others, so they are resolved, validated, documented and shown like every
   * setting. Absent: none.
   */
  readonly settings?: O;
  check(view: DecisionView, context: RuleContext<SharedSettings & SettingValues<O>>): Finding<E>;
  /**
   * How many of the newest messages the rule needs read, at least, under these settings;
   * absent: no more than any decision reads (verdict.ts `historyLimit`).
   */
  history?(settings: SharedSettings & SettingValues<O>): number;
  /** What the user is told when this rule denies (the notices, the stop note, replay's table). */
  readonly words: Words<E>;
}

/** One rule: its declaration, with `settings` always present (`{}` for none). */
export interface Rule<N extends string = string, E = unknown, O extends SettingSpecs = {}> extends RuleDeclaration<N, E, O> {
  readonly settings: O;
}

/** Declares a rule with its name, evidence and settings types inferred (`satisfies` in one call). */
export const defineRule = <N extends string, E, O extends SettingSpecs = {}>(rule: RuleDeclaration<N, E, O>): Rule<N, E, O> => ({
  ...rule,
  settings: rule.settings ?? ({} as O),
});

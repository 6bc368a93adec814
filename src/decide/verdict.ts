/**
 * The one decision function. The hook and the replay command both call {@link decide}:
 * history in, verdict out, nothing else.
 */
import { compactionEnd, type Compaction, type Timeline } from "./history.js";
import type { ModelLimits } from "./opencode-facts.js";
import { RULES, type Evidence, type Finding, type RuleContext, type RuleName, type Severity } from "./rules/index.js";
import type { GuardSettings } from "./settings.js";
import { buildView, type DecisionView } from "./view.js";

export type { Evidence, RuleName, Severity } from "./rules/index.js";

/** The guard's answer for one automatic compaction, with what every rule saw. */
export interface Verdict {
  /** deny: do not add the synthetic continue turn (`output.enabled = false`). */
  readonly decision: "allow" | "deny";
  /** The first rule (in RULES order) that fired; null on allow. */
  readonly rule: RuleName | null;
  /** Every rule that fired, in RULES order (the first is `rule`); empty on allow. */
  readonly fired: readonly RuleName[];
  /** How the denial is announced: `warning` for a stopped loop, `info` for housekeeping; null on allow. */
  readonly severity: Severity | null;
  /** The compaction being decided (index: 1-based among automatic ones in view). */
  readonly compaction: { readonly index: number; readonly messageID: string };
  /** Every rule's evidence, by rule name (also of the rules that did not fire). */
  readonly evidence: Evidence;
}

/**
 * How many of the newest messages the hook reads (`query.limit` of `session.messages`), and
 * so how far back any decision looks. Enough for the repeated-tool-call window and for
 * several compaction cycles; bounded so a decision costs the same in a 10-message and a
 * 50,000-message session. When the previous compaction lies further back, the session made
 * that many steps without compacting, and the cycle rules abstain.
 */
export function historyLimit(settings: Pick<GuardSettings, "window">): number {
  return Math.max(200, 4 * settings.window);
}

export interface DecideOptions {
  /** The model's limits, when known: no-progress then also compares with opencode's usable context. */
  readonly limits?: Partial<ModelLimits> | undefined;
  /** opencode's `compaction.reserved` (tokens) when the user set it; it moves the usable line. */
  readonly reserved?: number | undefined;
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

/**
 * Decides whether opencode may add the synthetic continue turn after `compaction`.
 *
 * Reads `timeline.entries[start..end]`, where end is the compaction's summary (the history
 * as it stood when the summary finished) and start is `end − historyLimit + 1`, exactly the
 * slice the hook fetches. Walks RULES in order; the first that fires denies.
 * Pure; never throws on a timeline from buildTimeline.
 */
export function decide(timeline: Timeline, compaction: Compaction, settings: GuardSettings, options: DecideOptions = {}): Verdict {
  return decideWith(timeline, compaction, contextOf(settings, options));
}

/** What the rules may know beyond the history (rules/rule.ts `RuleContext`), from decide's arguments. */
export function contextOf(settings: GuardSettings, options: DecideOptions): RuleContext {
  return {
    settings,
    limits: options.limits,
    reserved: options.reserved,
    directory: options.directory,
    subagent: options.subagent,
    wholeSession: options.wholeSession,
  };
}

/** {@link decide} with its context made ({@link contextOf}): every rule is checked before it returns. */
export function decideWith(timeline: Timeline, compaction: Compaction, context: RuleContext): Verdict {
  const judged = judge(timeline, compaction, context, false);
  const first = judged.first;
  return {
    decision: first ? "deny" : "allow",
    rule: first?.name ?? null,
    fired: judged.fired,
    severity: first?.severity ?? null,
    compaction: { index: compaction.index, messageID: compaction.messageID },
    evidence: judged.evidence,
  };
}

/**
 * The findings of the rules at one compaction, checked in RULES order: all of them, or with
 * `upToFirst` only up to the first that fires, which settles the decision, its rule and
 * severity; the rest are checked when `fired` or `evidence` is first read. A replay keeps
 * thousands of verdicts and shows of most only the decision and its rule. The rules are pure
 * and the timeline is not changed, so the values are the same either way.
 */
export class Judged {
  /** The first rule (in RULES order) that fired, or undefined: the verdict's rule. */
  readonly first: (typeof RULES)[number] | undefined;
  private readonly findings: Finding<unknown>[] = [];
  /** The view and context, until every rule is checked (then let go: a replay keeps its verdicts). */
  private view: DecisionView | undefined;
  private context: RuleContext | undefined;
  private firedMemo: readonly RuleName[] | undefined;
  private evidenceMemo: Evidence | undefined;

  constructor(view: DecisionView, context: RuleContext, upToFirst: boolean) {
    this.view = view;
    this.context = context;
    const { findings } = this;
    let first: (typeof RULES)[number] | undefined;
    for (let i = 0; i < RULES.length && !(upToFirst && first); i++) {
      const rule = RULES[i]!;
      const finding = rule.check(view, context);
      findings.push(finding);
      if (finding.fired) first ??= rule;
    }
    this.first = first;
    if (findings.length === RULES.length) this.view = this.context = undefined;
  }

  /** Every finding, in RULES order: the rules not yet checked are checked now. */
  private all(): readonly Finding<unknown>[] {
    const { findings, view, context } = this;
    if (view && context) {
      for (let i = findings.length; i < RULES.length; i++) findings.push(RULES[i]!.check(view, context));
      this.view = this.context = undefined;
    }
    return findings;
  }

  /** Every rule that fired, in RULES order (Verdict.fired). */
  get fired(): readonly RuleName[] {
    if (this.firedMemo === undefined) {
      const findings = this.all();
      const fired: RuleName[] = [];
      for (let i = 0; i < RULES.length; i++) if (findings[i]!.fired) fired.push(RULES[i]!.name);
      this.firedMemo = fired;
    }
    return this.firedMemo;
  }

  /** Every rule's evidence, by rule name (Verdict.evidence). */
  get evidence(): Evidence {
    if (this.evidenceMemo === undefined) {
      const findings = this.all();
      const evidence: Record<string, unknown> = {};
      for (let i = 0; i < RULES.length; i++) evidence[RULES[i]!.name] = findings[i]!.evidence;
      this.evidenceMemo = evidence as unknown as Evidence;
    }
    return this.evidenceMemo;
  }
}

/**
 * Checks the rules at `compaction` on the slice the hook fetches (see {@link decide}): all of
 * them, or with `upToFirst` only up to the first that fires (see {@link Judged}).
 */
export function judge(timeline: Timeline, compaction: Compaction, context: RuleContext, upToFirst: boolean): Judged {
  const start = Math.max(0, compactionEnd(compaction) - historyLimit(context.settings) + 1);
  return new Judged(buildView(timeline, compaction, context.settings, start), context, upToFirst);
}

/**
 * The decision point the hook is called for: the automatic compaction whose id is
 * `messageID` (the hook's `input.message.id`), else the latest automatic compaction with a
 * successful summary. Undefined when there is none.
 */
export function findDecisionPoint(timeline: Timeline, messageID?: string): Compaction | undefined {
  const candidates = timeline.compactions.filter((c) => c.auto);
  return candidates.find((c) => c.messageID === messageID) ?? candidates.filter((c) => c.succeeded).at(-1);
}

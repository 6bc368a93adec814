/**
 * The one decision function: history in, verdict out, nothing else ({@link decide}; on steps
 * a host already judged, {@link decideWith}). The live hooks and replay reach it on one path,
 * guard/decision.ts `decideAt`.
 */
import { compactionEnd, type Compaction, type Timeline } from "../model/timeline.js";
import type { HostInputs } from "../model/host-facts.js";
import { RULES, type DecideOptions, type Evidence, type JudgeSettings, type RuleName, type Severity } from "./rules/index.js";
import { DecisionView, TimelineSteps } from "./view.js";

export type { DecideOptions, Evidence, JudgeSettings, RuleName, Severity } from "./rules/index.js";

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
 * so how far back any decision looks: 200, enough for several compaction cycles, or what a
 * rule needs under these settings when more (rules/rule.ts `history`: repeated-tool-call's
 * window); bounded so a decision costs the same in a 10-message and a 50,000-message session.
 * When the previous compaction lies further back, the session made that many steps without
 * compacting, and the cycle rules abstain.
 */
export function historyLimit(settings: JudgeSettings): number {
  return Math.max(200, ...RULES.map((rule) => rule.history?.(settings) ?? 0));
}

/** What a session's decisions depend on besides its history: the settings (`S`: the guard's, or the judge's alone) and the host's inputs. */
export interface SessionInputs<S extends JudgeSettings = JudgeSettings> extends HostInputs {
  readonly settings: S;
}

/**
 * Decides whether opencode may add the synthetic continue turn after `compaction`.
 *
 * Reads `timeline.entries[start..end]`, where end is the compaction's summary (the history
 * as it stood when the summary finished) and start is `end − historyLimit + 1`, exactly the
 * slice the hook fetches. Checks every rule in RULES order; the first that fires denies, and
 * the verdict holds every rule's evidence. Pure; never throws on a timeline from buildTimeline.
 *
 * @param earlier the steps of an earlier read of the session, judged before the summary
 *   finished (view.ts `TimelineSteps.judgeNewest`): the verdict is the same with or without
 *   it; with it, the steps judged then are not judged again.
 */
export function decide(
  timeline: Timeline,
  compaction: Compaction,
  settings: JudgeSettings,
  options: DecideOptions,
  earlier?: TimelineSteps,
): Verdict {
  return decideWith(new TimelineSteps(timeline, earlier), compaction, settings, options);
}

/**
 * {@link decide} on the steps of the compaction's timeline (`steps`: one for all the decisions
 * of a replay). Checks every rule in RULES order, with the settings and `options` as their context, on
 * the slice the hook fetches; the first that fires is the verdict's rule. Returns plain data,
 * all of it computed before it returns.
 */
export function decideWith(steps: TimelineSteps, compaction: Compaction, settings: JudgeSettings, options: DecideOptions): Verdict {
  const context = { ...options, settings };
  const start = Math.max(0, compactionEnd(compaction) - historyLimit(settings) + 1);
  const view = new DecisionView(steps, compaction, settings, start);
  const findings = RULES.map((rule) => rule.check(view, context));
  const first = RULES.find((_, i) => findings[i]!.fired);
  const fired: RuleName[] = RULES.filter((_, i) => findings[i]!.fired).map((rule) => rule.name);
  const evidence = Object.fromEntries(RULES.map((rule, i) => [rule.name, findings[i]!.evidence]));
  return {
    decision: first ? "deny" : "allow",
    rule: first?.name ?? null,
    fired,
    severity: first?.severity ?? null,
    compaction: { index: compaction.index, messageID: compaction.messageID },
    evidence: evidence as unknown as Evidence,
  };
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

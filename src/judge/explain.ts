/**
 * A verdict in words, read from the rule that denied (`rule.words`): the one sentence of
 * evidence, the few words of the toast, the next step. The plugin's notices and the CLI's
 * replay table both tell a denial with these.
 */
import { RULES, type Evidence, type RuleName } from "./rules/index.js";
import type { Words } from "./rules/rule.js";
import type { Verdict } from "./verdict.js";

const WORDS = new Map<string, Words<never>>(RULES.map((rule) => [rule.name, rule.words as Words<never>]));

/** The words of the rule that denied (typed by the rule's own evidence). */
export function wordsOf<R extends RuleName>(rule: R, evidence: Evidence): { sentence: string; short: string; nextStep: string } {
  const words = WORDS.get(rule) as unknown as Words<Evidence[R]>;
  return { sentence: words.explain(evidence[rule]), short: words.short(evidence[rule]), nextStep: words.nextStep };
}

/** One sentence of evidence for a denial, e.g. "the same bash call (command=\"echo hi\") …". */
export function describeEvidence(verdict: Verdict): string {
  return verdict.rule === null ? "no rule fired" : wordsOf(verdict.rule, verdict.evidence).sentence;
}

/** What the user can do next, by rule. */
export function nextSteps(verdict: Verdict): string {
  return verdict.rule === null ? "" : wordsOf(verdict.rule, verdict.evidence).nextStep;
}

/**
 * A verdict in words, read from the rule that denied (`rule.words`): the one sentence of
 * evidence, the few words of the toast, the next step. The plugin's notices, the live hooks
 * and the CLI's replay table all tell a denial with these, each in the words of the host
 * whose session was judged (`host`, model/host-words.ts: hosts/read.ts `hostWords` by agent).
 */
import type { HostWords } from "../model/host-words.js";
import { RULES, type Evidence, type RuleName } from "./rules/index.js";
import type { Words } from "./rules/rule.js";
import type { Verdict } from "./verdict.js";

const WORDS = new Map<string, Words<never>>(RULES.map((rule) => [rule.name, rule.words as Words<never>]));

/** The words of the rule that denied (typed by the rule's own evidence), in `host`'s words. */
export function wordsOf<R extends RuleName>(
  rule: R,
  evidence: Evidence,
  host: HostWords,
): { sentence: string; short: string; nextStep: string } {
  const words = WORDS.get(rule) as unknown as Words<Evidence[R]>;
  return { sentence: words.explain(evidence[rule], host), short: words.short(evidence[rule]), nextStep: words.nextStep(host) };
}

/** One sentence of evidence for a denial, e.g. "the same bash call (command=\"echo hi\") …"; "no rule fired" for an allow. */
export function describeEvidence(verdict: Verdict, host: HostWords): string {
  return verdict.rule === null ? "no rule fired" : wordsOf(verdict.rule, verdict.evidence, host).sentence;
}

/** What happened in a few words, for a toast: the denying rule's `short`, "" for an allow (no rule's short words name a host). */
export function shortWords(verdict: Verdict): string {
  if (verdict.rule === null) return "";
  return (WORDS.get(verdict.rule) as unknown as Words<Evidence[RuleName]>).short(verdict.evidence[verdict.rule]);
}

/** What the user can do next, by rule, in `host`'s words; "" for an allow. */
export function nextSteps(verdict: Verdict, host: HostWords): string {
  return verdict.rule === null ? "" : wordsOf(verdict.rule, verdict.evidence, host).nextStep;
}

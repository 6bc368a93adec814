/**
 * Rule no-progress: the previous automatic compaction did not reduce the overflow, so the
 * next one will not either. Mirrors the unmerged opencode PRs #29150, #50233 and #48828, and
 * Gemini CLI's "compression made the history bigger" check. What a compaction left is the
 * *prompt* of the first step after it (output and reasoning are new work); a missing
 * measurement never stalls, a provider's overflow refusal of every step since is one
 * (e2e/FINDINGS.md).
 */
import { isStep, type Entry } from "../../model/entry.js";
import { compactionEnd, compactionSizes, type CompactionSizes } from "../../model/timeline.js";
import { defineRule } from "./rule.js";
import { REPLY, tokens } from "../words.js";
import { keptCulprits, type KeptCulprits } from "../culprits.js";
import { rearmedAfterStop } from "../rearm.js";

/** What no-progress saw: why it abstained, or the sizes it measured and whether they stalled. */
export type NoProgressEvidence =
  | {
      readonly status: "abstain";
      /** Why nothing was measured, in words. */
      readonly reason: string;
    }
  | ({
      readonly status: "measured";
      /** The previous automatic compaction, k−1. */
      readonly previousMessageID: string;
      /**
       * 1 − after / trigger: the fraction of the context the compaction removed (may be < 0);
       * null when the provider refused the steps after it and no size was recorded.
       */
      readonly reduction: number | null;
      readonly minReduction: number;
      /** The host's usable context in tokens, when the model's limits are known. */
      readonly usableTokens: number | null;
      /** Which test failed, or null when the compaction made progress. */
      readonly stalled: NoProgressStall;
      /** When it fired: the largest items the compaction keeps (../culprits.ts). */
      readonly culprits?: KeptCulprits;
    } & CompactionSizes);

/** Which of no-progress's tests failed, or null when the compaction made progress. */
type NoProgressStall = null | "reduction-below-minimum" | "still-over-usable-context" | "provider-overflow-again";

/**
 * Is every step strictly between positions `after` and `before` a refused, empty request
 * (no part that did anything, no token count), with at least one step?
 */
function everyStepRefused(entries: readonly Entry[], after: number, before: number): boolean {
  let steps = 0;
  for (let position = after + 1; position < before; position++) {
    const entry = entries[position];
    if (!isStep(entry)) continue;
    if (!entry.empty || entry.contextTokens !== null) return false;
    steps += 1;
  }
  return steps > 0;
}

/** The rule abstains: it did not fire, and says why. */
const abstain = (reason: string) => ({ fired: false, evidence: { status: "abstain", reason } as NoProgressEvidence });

/**
 * Fires at compaction k when, for k−1 (the previous automatic compaction), the compaction
 * cut less than `minReduction` (1 − after / trigger < minReduction; exactly minReduction is
 * progress); or the usable context is known and after ≥ usable
 * (opencode's own overflow line: every step compacts again); or k was set off by a provider
 * context-overflow error (`overflow: true`) and every step since k−1's summary is a refused,
 * empty request: k−1 made no room.
 *
 * Abstains when there is no k−1 in view, when the user spoke after k−1 (like Codex, only
 * real input re-arms), or when either size is missing or zero.
 */
export const noProgress = defineRule({
  name: "no-progress",
  severity: "warning",
  check(view, { settings, usable: usableTokens, directory }) {
    const { previous, compaction, timeline } = view;
    if (!previous) return abstain("no earlier automatic compaction");
    if (view.userSteppedIn) return abstain("a real user message came after the previous compaction");
    if (rearmedAfterStop(view, usableTokens)) return abstain("the guard stopped here and a later step fit under the usable context");

    const sizes = compactionSizes(timeline.entries, previous, compaction.position - 1, view.start);
    const { minReduction } = settings;
    // What was measured; when it stalled, what the compaction keeps against what it left (`residualTokens`).
    const measured = (reduction: number | null, stalled: NoProgressStall, residualTokens: number | null): NoProgressEvidence => {
      const evidence = {
        status: "measured" as const,
        previousMessageID: previous.messageID,
        ...sizes,
        minReduction,
        usableTokens,
        reduction,
        stalled,
      };
      if (stalled === null) return evidence;
      return { ...evidence, culprits: keptCulprits(timeline, compaction, { residualTokens, usableTokens }, view.start, directory) };
    };
    if (compaction.overflow && everyStepRefused(timeline.entries, compactionEnd(previous), compaction.position))
      return { fired: true, evidence: measured(null, "provider-overflow-again", null) };
    const { triggerTokens, afterTokens } = sizes;
    if (triggerTokens === null || afterTokens === null) return abstain("token sizes around the previous compaction are missing");
    const reduction = 1 - afterTokens / triggerTokens;
    // A cut of exactly minReduction is progress ("at least"); 1e-9 absorbs float rounding.
    const stalled =
      reduction < minReduction - 1e-9
        ? "reduction-below-minimum"
        : usableTokens !== null && afterTokens >= usableTokens
          ? "still-over-usable-context"
          : null;
    return { fired: stalled !== null, evidence: measured(reduction, stalled, afterTokens) };
  },
  words: {
    explain: (e, host) => {
      if (e.status !== "measured") return `no-progress abstained (${e.reason})`;
      if (e.stalled === "provider-overflow-again") {
        return "the provider refused the request after the previous compaction as over its context limit again, so that compaction made no room";
      }
      const reduction = e.reduction ?? 0;
      // Shown to the precision of minReduction and rounded toward it, so that a stalled cut
      // never reads as large as the cut needed ("9% smaller, less than the 10% needed").
      const decimals = Number.isInteger(Math.round(e.minReduction * 1000) / 10) ? 0 : 1;
      const scale = 100 * 10 ** decimals;
      const pct = (fraction: number, round: (x: number) => number) => `${round(fraction * scale) / 10 ** decimals}%`;
      // Floor for a cut that fell short (1e-6 absorbs float error: 0.29 × 100 = 28.999…).
      const floor = (x: number) => Math.floor(x + 1e-6);
      const cut =
        e.afterTokens === e.triggerTokens
          ? `the previous compaction left the context unchanged at ${tokens(e.afterTokens)}`
          : reduction < 0
            ? `the previous compaction left ${tokens(e.afterTokens)} of context, up from ${tokens(e.triggerTokens)} (${Math.round(-reduction * scale) === 0 ? "under 1%" : pct(-reduction, Math.round)} larger)`
            : `the previous compaction left ${tokens(e.afterTokens)} of context, down from ${tokens(e.triggerTokens)} (${pct(reduction, floor)} smaller)`;
      return e.stalled === "still-over-usable-context"
        ? `${cut}, still over ${host.name}'s usable context of ${tokens(e.usableTokens)}, so every step compacts again`
        : `${cut}, less than the ${pct(e.minReduction, Math.round)} cut needed to make progress`;
    },
    short: () => "compaction no longer frees context",
    nextStep: (host) => `${REPLY}, or ${host.freeContext}.`,
  },
});

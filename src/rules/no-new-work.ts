/**
 * Rule no-new-work: the whole cycle since the previous compaction redid what was already
 * done before it. Nothing new was read, written, run or said, so the next cycle will not
 * differ either.
 *
 * This catches what a per-call count cannot: cycles longer than `window / threshold` (the
 * same four reads after every compaction, opencode#31111 "create hello.txt redone after
 * every compaction"), text-only loops (the same words every step), and calls that fail the
 * same way. It compares cycles, as the reports describe the loop: after the compaction the
 * model does again what it did before it (anthropics/claude-code#86291).
 */
import { defineRule } from "./rule.js";
import { previewInput } from "../redact.js";

/** What the rule saw in the cycle between k−1's summary and compaction k. */
export type NoNewWorkEvidence =
  | { readonly status: "abstain"; readonly reason: string }
  | {
      readonly status: "measured";
      /** The previous automatic compaction, k−1. */
      readonly previousMessageID: string;
      /** Steps in the cycle that did something. */
      readonly steps: number;
      /** Tool calls and text-only answers in the cycle (calls on the ignore list left out). */
      readonly actions: number;
      /** Of those, how many were new since the user's last message. */
      readonly newActions: number;
      /**
       * When it fired, the cycle's first action, for the notice: a tool call's name and
       * redacted preview, or "text"; null otherwise.
       */
      readonly example: { readonly tool: string; readonly preview: string | null } | null;
    };

/**
 * Fires at compaction k when k−1 exists, the user did not speak since it, and the cycle
 * after k−1's summary did at least one thing, none of it new: every tool call (same tool,
 * input, ending and normalised result) and every text-only answer in it already appears
 * earlier since the user's last message.
 */
export const noNewWork = defineRule({
  name: "no-new-work",
  severity: "warning",
  check(view) {
    const abstain = (reason: string) => ({ fired: false, evidence: { status: "abstain", reason } as NoNewWorkEvidence });
    if (!view.previous) return abstain("no earlier automatic compaction");
    if (view.userSteppedIn) return abstain("a real user message came after the previous compaction");
    const actions = view.cycle.flatMap((step) => step.actions);
    if (actions.length === 0) return abstain("the cycle since the previous compaction did nothing the rules count");
    const newActions = actions.filter((action) => view.isNew(action)).length;
    const first = newActions === 0 ? actions[0] : undefined;
    const example = first
      ? first.call
        ? { tool: first.call.tool, preview: previewInput(first.call.input) }
        : { tool: "text", preview: null }
      : null;
    const evidence: NoNewWorkEvidence = {
      status: "measured",
      previousMessageID: view.previous.messageID,
      steps: view.cycle.length,
      actions: actions.length,
      newActions,
      example,
    };
    return { fired: newActions === 0, evidence };
  },
});

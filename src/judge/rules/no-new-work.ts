/**
 * Rule no-new-work: the whole cycle since the previous compaction brought nothing new: no
 * answer held content not already seen, no effect was new, nothing waited, no text was new
 * (../information.ts). However its calls were spelled, the next cycle will not differ either.
 *
 * This catches what a per-call count cannot: cycles longer than `window / threshold` (the
 * same four reads after every compaction, opencode#31111 "create hello.txt redone after
 * every compaction"), text-only loops (the same words every step), and calls that fail the
 * same way. It compares cycles, as the reports describe the loop: after the compaction the
 * model does again what it did before it (anthropics/claude-code#86291).
 */
import { defineRule } from "./rule.js";
import { REPLY } from "../words.js";
import { previewCall } from "../../redact/preview.js";
import type { Action, StepView } from "../view.js";

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
      /** Index (in the cycle, from 0) of the first action that brought something new, or null when none did. */
      readonly firstNew: number | null;
      /** The cycle redid the cycle before it call for call: the same calls, inputs and results, in order. */
      readonly repeatsPreviousCycle: boolean;
      /**
       * When it fired, the cycle's first action, for the notice: a tool call's name and
       * redacted preview, or "text"; null otherwise.
       */
      readonly example: { readonly tool: string; readonly preview: string | null } | null;
    };

/** Index, among the cycle's actions in order, of the first that passes `test`; −1 for none. */
function indexInCycle(cycle: readonly StepView[], test: (action: Action) => boolean): number {
  let index = 0;
  for (let s = 0; s < cycle.length; s++) {
    const actions = cycle[s]!.actions;
    for (let a = 0; a < actions.length; a++) {
      if (test(actions[a]!)) return index;
      index += 1;
    }
  }
  return -1;
}

/** The actions of `steps`, in order. */
const actionsOf = (steps: readonly StepView[]): Action[] => steps.flatMap((step) => step.actions);

/**
 * Does `cycle` redo `previous` call for call: as many actions, each the same as the one at
 * its place (the same key, input and result; text the same), none a deliberate wait? What
 * the session learned in `previous`, it learned again, and the next cycle will not differ.
 */
function repeatsCycle(cycle: readonly StepView[], previous: readonly StepView[]): boolean {
  const now = actionsOf(cycle);
  const before = actionsOf(previous);
  return (
    now.length > 0 &&
    now.length === before.length &&
    now.every((action, i) => action.input === before[i]!.input && action.sameAs(before[i]!))
  );
}

/** The rule abstains: it did not fire, and says why. */
const abstain = (reason: string) => ({ fired: false, evidence: { status: "abstain", reason } as NoNewWorkEvidence });

/**
 * Fires at compaction k when k−1 exists, the user did not speak since it, and the cycle
 * after k−1's summary did at least one thing, none of which brought anything new since the
 * user's last message (DecisionView.isNew, ../information.ts).
 */
export const noNewWork = defineRule({
  name: "no-new-work",
  severity: "warning",
  check(view, { directory }) {
    if (!view.previous) return abstain("no earlier automatic compaction");
    if (view.userSteppedIn) return abstain("a real user message came after the previous compaction");
    const { cycle } = view;
    let actions = 0;
    for (let s = 0; s < cycle.length; s++) actions += cycle[s]!.actions.length;
    if (actions === 0) return abstain("the cycle since the previous compaction did nothing the rules count");
    const index = indexInCycle(cycle, (action) => view.isNew(action));
    const firstNew = index === -1 ? null : index;
    const repeatsPreviousCycle = firstNew !== null && repeatsCycle(cycle, view.previousCycle);
    const fired = firstNew === null || repeatsPreviousCycle;
    const first = fired ? cycle.find((step) => step.actions.length > 0)!.actions[0] : undefined;
    const call = first?.call;
    const example = first
      ? call
        ? { tool: call.tool, preview: previewCall(call.tool, call.input, directory) }
        : { tool: "text", preview: null }
      : null;
    const evidence: NoNewWorkEvidence = {
      status: "measured",
      previousMessageID: view.previous.messageID,
      steps: cycle.length,
      actions,
      firstNew,
      repeatsPreviousCycle,
      example,
    };
    return { fired, evidence };
  },
  words: {
    explain: (e) => {
      if (e.status !== "measured") return `no-new-work abstained (${e.reason})`;
      const what = e.example?.tool === "text" ? "the same text" : e.example ? `${e.example.tool} (${e.example.preview})` : "it";
      if (e.repeatsPreviousCycle)
        return (
          `all ${e.actions} action${e.actions === 1 ? "" : "s"} in the ${e.steps} step${e.steps === 1 ? "" : "s"} since the previous compaction ` +
          `redid the cycle before it call for call, with the same results, such as ${what}, so the next cycle will repeat it again`
        );
      return (
        `all ${e.actions} action${e.actions === 1 ? "" : "s"} in the ${e.steps} step${e.steps === 1 ? "" : "s"} since the previous compaction ` +
        `repeated work done before it, such as ${what}, so the next cycle will repeat it again`
      );
    },
    short: () => "it redid the work from before the compaction",
    nextStep: `${REPLY}; tell the model what is already done.`,
  },
});

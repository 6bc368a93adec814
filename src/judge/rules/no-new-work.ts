/**
 * Rule no-new-work: the whole cycle since the previous compaction brought nothing new: no
 * answer held content not already seen, no effect was new, nothing waited, no text was new
 * (../information.ts). It sees what a per-call count cannot: long cycles (opencode#31111),
 * text-only loops and the same failure every cycle; it compares cycles, as the reports
 * describe the loop (anthropics/claude-code#86291).
 */
import { rearmedAfterStop } from "../rearm.js";
import { defineRule } from "./rule.js";
import { REPLY } from "../words.js";
import { previewCall } from "../../redact/preview.js";
import type { Action, StepsView, StepView } from "../view.js";

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
      /** The cycle redid the `threshold − 1` cycles before it call for call: the same calls, inputs and results, in order. */
      readonly repeatsPreviousCycle: boolean;
      /**
       * When it fired, the cycle's first action, for the notice: a tool call's name and
       * redacted preview, or "text"; null otherwise.
       */
      readonly example: { readonly tool: string; readonly preview: string | null } | null;
    };

/** The actions of `steps`, in order. */
const actionsOf = (steps: readonly StepView[]): Action[] => steps.flatMap((step) => step.actions);

/** Do the actions `before` end with `now`, each the same as the one at its place (the same key, input and result; text the same; `view.sameAction`)? */
function endsWith(view: StepsView, before: readonly Action[], now: readonly Action[]): boolean {
  const offset = before.length - now.length;
  return (
    offset >= 0 && now.every((action, i) => action.input === before[offset + i]!.input && view.sameAction(action, before[offset + i]!))
  );
}

/**
 * Are the cycle's actions (`now`) the `runs`-th run in a row of one cycle: the `runs − 1` cycles before it
 * (`earlier`, newest first) did the same actions with the same results, none a deliberate
 * wait, the oldest of them perhaps after other work of its own? What the session learned
 * in them it learned again each time, and the next cycle will not differ.
 */
function repeatsCycle(view: StepsView, now: readonly Action[], earlier: readonly (readonly StepView[])[], runs: number): boolean {
  if (now.length === 0 || earlier.length < runs - 1) return false;
  return earlier.slice(0, runs - 1).every((steps, i) => {
    const before = actionsOf(steps);
    return (i === runs - 2 || before.length === now.length) && endsWith(view, before, now);
  });
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
  check(view, { directory, settings, usable }) {
    if (!view.previous) return abstain("no earlier automatic compaction");
    if (view.userSteppedIn) return abstain("a real user message came after the previous compaction");
    if (rearmedAfterStop(view, usable)) return abstain("the guard stopped here and a later step fit under the usable context");
    const { cycle } = view;
    const done = actionsOf(cycle);
    if (done.length === 0) return abstain("the cycle since the previous compaction did nothing the rules count");
    const index = done.findIndex((action) => view.isNew(action));
    const firstNew = index === -1 ? null : index;
    const repeatsPreviousCycle =
      firstNew !== null && repeatsCycle(view, done, view.earlierCycles(settings.threshold - 1), settings.threshold);
    const fired = firstNew === null || repeatsPreviousCycle;
    const first = fired ? done[0] : undefined;
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
      actions: done.length,
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
          `redid the cycles before it call for call, with the same results, such as ${what}, so the next cycle will repeat it again`
        );
      return (
        `all ${e.actions} action${e.actions === 1 ? "" : "s"} in the ${e.steps} step${e.steps === 1 ? "" : "s"} since the previous compaction ` +
        `repeated work done before it, such as ${what}, so the next cycle will repeat it again`
      );
    },
    short: () => "it redid the work from before the compaction",
    nextStep: () => `${REPLY}; tell the model what is already done.`,
  },
});

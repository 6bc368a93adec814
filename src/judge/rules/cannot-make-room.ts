/**
 * Rule cannot-make-room: at the session's first automatic compaction (or the first after a
 * real user message), the prompt opencode will send with the continue turn is, by a lower
 * bound (../predict.ts, less `predictionMargin`), still at or over the usable context, or cut
 * by less than `minReduction`: every step will compact again, and no-progress, which judges
 * k−1 at k, could deny only at compaction 2. Abstains when `predict` is off, when the step
 * before the compaction ended the turn (turn-finished's), when the history may not begin
 * with the session's first message, when the model's limits are unknown, and whenever a
 * piece of the prediction has no token data. Why and what it costs: docs/how-it-decides.md.
 */
import { isFirstCompaction, predictNextPrompt, predictionMargin, type PredictedPrompt } from "../predict.js";
import { rearmedAfterStop } from "../rearm.js";
import { defineRule } from "./rule.js";
import { percent, tokens } from "../words.js";
import { endedTheTurn } from "../turn.js";
import { keptCulprits, type KeptCulprits } from "../culprits.js";
import { boolean, BOOL_TEXT, spec } from "../../shared/setting.js";
import { lazily, zod } from "../../shared/zod.js";

/** What cannot-make-room saw: why it abstained, or the prediction and the test it failed (if any). */
export type CannotMakeRoomEvidence =
  | { readonly status: "abstain"; readonly reason: string }
  | (PredictedPrompt & {
      /** Tokens taken off the prediction before the tests (predict.ts `predictionMargin`). */
      readonly marginTokens: number;
      /** The host's usable context, tokens. */
      readonly usableTokens: number;
      readonly minReduction: number;
      /** 1 − (predicted − margin) / trigger: the cut the compaction makes at best; null without a trigger size. */
      readonly reduction: number | null;
      /** Which test failed, or null when the compaction can make room. */
      readonly stalled: null | "still-over-usable-context" | "reduction-below-minimum";
      /** When it fired: the largest items the compaction keeps (../culprits.ts). */
      readonly culprits?: KeptCulprits;
    });

/** The rule abstains: it did not fire, and says why. */
const abstain = (reason: string) => ({ fired: false, evidence: { status: "abstain", reason } as CannotMakeRoomEvidence });

export const cannotMakeRoom = defineRule({
  name: "cannot-make-room",
  severity: "warning",
  settings: {
    predict: spec({
      schema: lazily(() => zod().boolean()),
      default: true,
      expected: "true or false",
      expectedText: BOOL_TEXT,
      env: "OPENCODE_COMPACTION_GUARD_PREDICT",
      flag: "predict",
      help: "at the first compaction, deny when compaction cannot get under the usable context (cannot-make-room)",
      fromText: boolean,
    }),
  },
  check(view, { settings, usable: usableTokens, facts, wholeSession, directory }) {
    if (!settings.predict) return abstain("prediction is off (predict: false)");
    if (wholeSession !== true) return abstain("the session's first message is not known to be in view");
    // From the second compaction on no-progress measures what the previous one left, unless the
    // user spoke since it: then this compaction is as knowable as the session's first.
    if (!isFirstCompaction(view.timeline, view.compaction, view.start) && !view.userSteppedIn && !rearmedAfterStop(view, usableTokens)) {
      return abstain("not the session's first compaction, nor the first after a message of the user's (no-progress measures)");
    }
    // A finished answer over the line is no loop: turn-finished's housekeeping (or, in a
    // subagent's session, the continue turn that lets it report) decides.
    if (endedTheTurn(view)) return abstain("the step before the compaction ended the turn (turn-finished decides)");
    if (usableTokens === null) return abstain("the model's limits are unknown");
    const prediction = predictNextPrompt(view.timeline, view.compaction, facts, view.start);
    if (prediction.status === "abstain") return abstain(prediction.reason);

    const marginTokens = predictionMargin(prediction.predictedTokens);
    const atLeast = prediction.predictedTokens - marginTokens;
    const reduction = prediction.triggerTokens === null ? null : 1 - atLeast / prediction.triggerTokens;
    // As no-progress: a cut of exactly minReduction is progress; 1e-9 absorbs float rounding.
    const stalled =
      atLeast >= usableTokens
        ? "still-over-usable-context"
        : reduction !== null && reduction < settings.minReduction - 1e-9
          ? "reduction-below-minimum"
          : null;
    return {
      fired: stalled !== null,
      evidence: {
        ...prediction,
        marginTokens,
        usableTokens,
        minReduction: settings.minReduction,
        reduction,
        stalled,
        ...(stalled === null
          ? {}
          : { culprits: keptCulprits(view.timeline, view.compaction, { residualTokens: atLeast, usableTokens }, 0, directory) }),
      } as CannotMakeRoomEvidence,
    };
  },
  words: {
    explain: (e) => {
      if (e.status !== "predicted") return `cannot-make-room abstained (${e.reason})`;
      const pieces =
        `the system prompt and tools alone are ~${tokens(e.baseTokens)}, the summary ${tokens(e.summaryTokens)}, ` +
        (e.tailStartID === null ? "no recent messages kept" : `the recent messages kept at least ${tokens(e.tailTokens)}`);
      return e.stalled === "reduction-below-minimum"
        ? `compaction cannot free enough context in this session: ${pieces}, at least ${tokens(e.predictedTokens - e.marginTokens)} ` +
            `against the ${tokens(e.triggerTokens)} it started from, less than the ${percent(e.minReduction)} cut needed to make progress`
        : `compaction cannot get this session under the usable context: ${pieces}, ` +
            `against a usable context of ${tokens(e.usableTokens)}, so every step would compact again`;
    },
    short: () => "compaction cannot make room here",
    nextStep: (host) =>
      `Start a new session with ${host.smallerBase}, or switch to a model with a larger context: ` +
      "a reply here compacts again, because what does not fit is what every request carries.",
  },
});

/**
 * Rule turn-finished: the step that set off the compaction had already ended the turn.
 *
 * opencode checks for overflow after every finished step, also one that ended with `stop`
 * (session/prompt.ts), so a finished answer can still be followed by compaction and the
 * synthetic continue turn, which only invites the model to redo finished work
 * (opencode#15533, #18941). Skipping that turn is housekeeping, not a stopped loop: the
 * answer stands, and the guard says so quietly (an info line, no toast).
 */
import { endedTheTurn } from "../turn.js";
import { stepBefore } from "../../model/timeline.js";
import { defineRule } from "./rule.js";

/** What the rule saw: the last step before compaction k. */
export interface TurnFinishedEvidence {
  /** Id of that step, or null when none is in view. */
  readonly messageID: string | null;
  /** Its `finish`, or null. */
  readonly finish: string | null;
  /** Tool parts in it (of any status). */
  readonly toolParts: number;
  /** A subagent's session: the rule abstains (see below). */
  readonly subagent: boolean;
}

/**
 * Fires when the last step before compaction k finished without error with `finish: "stop"`
 * and no tool part, and nothing (a user message, another compaction) lies between it and k.
 *
 * Never in a subagent's session: opencode hands the task tool's caller the session's newest
 * assistant message (SessionPrompt.run), which without the continue turn is the compaction
 * summary instead of the subagent's report; with it, the subagent answers again.
 */
export const turnFinished = defineRule({
  name: "turn-finished",
  severity: "info",
  check(view, { subagent }) {
    const { entries } = view.timeline;
    const last = stepBefore(entries, view.compaction.position, view.start);
    const evidence: TurnFinishedEvidence = {
      messageID: last?.entry.id ?? null,
      finish: last?.entry.finish ?? null,
      toolParts: last?.entry.toolParts ?? 0,
      subagent: subagent === true,
    };
    return { fired: !subagent && endedTheTurn(view), evidence };
  },
  words: {
    explain: () =>
      "the model had already finished its answer when the context filled up, so a continue turn would only restart finished work",
    short: () => "the answer was already finished",
    nextStep: () => "Nothing was lost; reply to go on.",
  },
});

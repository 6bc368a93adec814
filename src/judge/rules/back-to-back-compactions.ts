/**
 * Rule back-to-back-compactions: compaction after compaction with no step between them.
 *
 * A summary that is itself over the line makes the host compact again at once; nothing the
 * model does can change that. Two in a row and then normal work is a known benign double
 * fire (opencode#27468), so the rule waits for the third. Claude Code and Codex cap
 * consecutive failed compactions at 3 as well.
 */
import { isWorkStep } from "../../model/entry.js";
import { anyBetween, compactionEnd } from "../../model/timeline.js";
import { defineRule } from "./rule.js";
import { REPLY } from "../words.js";

/** Compactions in a row with no step between them that deny: the third one. */
export const BACK_TO_BACK_LIMIT = 3;

/** What the rule saw. */
export interface BackToBackEvidence {
  /** Automatic compactions in a row, ending at k, with no step that did something between them. */
  readonly inARow: number;
  readonly limit: number;
}

/** Fires at compaction k when k and the automatic compactions right before it make a run of 3 with no step between. */
export const backToBackCompactions = defineRule({
  name: "back-to-back-compactions",
  severity: "warning",
  check(view) {
    const { timeline } = view;
    const compactions = view.recentCompactions(BACK_TO_BACK_LIMIT);
    let inARow = 1;
    for (let i = compactions.length - 1; i > 0 && inARow < BACK_TO_BACK_LIMIT; i--) {
      if (anyBetween(timeline.entries, compactionEnd(compactions[i - 1]!), compactions[i]!.position, isWorkStep)) break;
      inARow += 1;
    }
    return { fired: inARow >= BACK_TO_BACK_LIMIT, evidence: { inARow, limit: BACK_TO_BACK_LIMIT } };
  },
  words: {
    explain: (e) => `${e.inARow} compactions in a row with no step between them that did anything: compaction leaves no room to work`,
    short: (e) => `${e.inARow} compactions in a row, no work between`,
    nextStep: (host) => `${REPLY}, or ${host.freeContext}.`,
  },
});

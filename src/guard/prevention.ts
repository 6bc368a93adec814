/**
 * The texts of prevention, in every runtime: the ledger pushed into a summary request and the
 * note that replaces (V1) or follows (V2) opencode's continue text, both from the calls the
 * session completed (./ledger.ts).
 */
import type { Timeline } from "../model/timeline.js";
import { completedCallsBefore, continueNote, ledgerText } from "./ledger.js";

/** How far back a ledger or note may look. */
export interface LookBack {
  /** The project directory: file paths in previews are shown relative to it. */
  readonly directory?: string | undefined;
  /** True when the timeline starts at the session's first message (else the look-back may be cut). */
  readonly wholeSession: boolean;
}

/**
 * The ledger for a summary request: the calls completed before position `end` of `timeline`,
 * or null when there are none. `continues`: a synthetic continue turn follows the summary
 * (an automatic compaction that is no overflow); the ledger then says so.
 */
export function summaryLedger(timeline: Timeline, end: number, continues: boolean, lookBack: LookBack): string | null {
  return ledgerText(completedCallsBefore(timeline, end, lookBack).calls, continues);
}

/**
 * The continue note for the calls completed before position `end` of `timeline`: it names
 * them only when the look-back is wholly in the timeline.
 */
export function continueNoteBefore(timeline: Timeline, end: number, lookBack: LookBack): string {
  const found = completedCallsBefore(timeline, end, lookBack);
  return continueNote(found.complete ? found.calls : null);
}

/**
 * The guard without opencode, for programs (`import { replayMessages } from
 * "opencode-compaction-guard/core"`): the session model (Timeline and its entries), the
 * timeline builders of opencode's V1 messages (`buildTimeline`) and V2 session messages and
 * events (`buildV2Timeline`, `v2InOrder`, `v2MessagesFromEvents`; docs/opencode-2.md), the pure
 * decision and its types, plus `readExport` (the one function here that does I/O) to load an
 * `opencode export` file or a saved V2 session as a {@link SessionData}.
 */
import type { Evidence, RuleName } from "./decide/rules/index.js";
import { replayTimeline, type ReplayRow } from "./decide/replay.js";
import type { GuardSettings } from "./decide/settings.js";
import type { DecideOptions } from "./decide/verdict.js";
import { buildTimeline } from "./hosts/opencode/v1.js";

export type { AssistantEntry, Entry, OtherEntry, ToolCall, UserEntry } from "./model/entry.js";
export type { Compaction, CompactionSizes, Timeline } from "./model/timeline.js";
export type { SessionData } from "./model/session.js";
export { buildTimeline, contextTokens } from "./hosts/opencode/v1.js";
/** V2 sessions (opencode's V2 session runner): their messages or events → a timeline (docs/opencode-2.md). */
export { buildV2Timeline, v2InOrder, v2MessagesFromEvents } from "./hosts/opencode/v2.js";
export { predictNextPrompt, predictionMargin, type PredictedPrompt, type Prediction } from "./decide/predict.js";
export { RULES } from "./decide/rules/index.js";
/** One rule's evidence, derived from RULES (`EvidenceOf<"no-progress">`): a new rule needs nothing here. */
export type EvidenceOf<R extends RuleName> = Evidence[R];
/** The names the evidence types had in 0.3.0, kept for programs that import them: `Evidence[<rule name>]`. */
export type NoProgressEvidence = Evidence["no-progress"];
export type CannotMakeRoomEvidence = Evidence["cannot-make-room"];
export type BackToBackEvidence = Evidence["back-to-back-compactions"];
export type RepeatedToolCallEvidence = Evidence["repeated-tool-call"];
export type NoNewWorkEvidence = Evidence["no-new-work"];
export type TurnFinishedEvidence = Evidence["turn-finished"];
export { decideCompaction, replayTimeline, type ReplayRow } from "./decide/replay.js";
export { usableContext, type ModelLimits } from "./decide/opencode-facts.js";
export { DEFAULT_SETTINGS, ENV_NAMES, resolveSettings, type GuardSettings, type NotifyMode } from "./decide/settings.js";
export { canonicalJson, toolCallSignature } from "./decide/signature.js";
export {
  decide,
  findDecisionPoint,
  historyLimit,
  type DecideOptions,
  type Evidence,
  type RuleName,
  type Severity,
  type Verdict,
} from "./decide/verdict.js";
export { readExport, type SessionExport } from "./sessions/export.js";

/**
 * Replays a whole session of opencode V1 messages: one verdict per automatic compaction with a
 * successful summary, each decided on the history as it stood when that summary finished.
 *
 * @param messages `Array<{ info, parts }>`, oldest first (`opencode export`'s `messages`): the
 *   whole session (`wholeSession` is true unless `options` says otherwise).
 */
export function replayMessages(messages: readonly unknown[], settings: GuardSettings, options: DecideOptions = {}): ReplayRow[] {
  return replayTimeline(buildTimeline(messages), settings, options);
}

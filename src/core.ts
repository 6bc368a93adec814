/**
 * The guard without opencode, for programs (`import { replayMessages } from
 * "opencode-compaction-guard/core"`): the pure decision and its types, plus `readExport`
 * (the one function here that does I/O) to load an `opencode export` file.
 */
import type { Evidence, RuleName } from "./decide/rules/index.js";

export {
  buildTimeline,
  contextTokens,
  type AssistantEntry,
  type Compaction,
  type Entry,
  type Timeline,
  type ToolCall,
  type UserEntry,
} from "./decide/history.js";
export type { CompactionSizes } from "./decide/timeline.js";
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
export { replayMessages, type ReplayRow } from "./decide/replay.js";
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
/** V2 sessions (opencode's V2 session runner): their messages or events → the messages the rules read (docs/opencode-2.md). */
export { decideV2, v2InOrder, v2MessagesFromEvents, v2ToV1Messages, type V1Message } from "./decide/v2-history.js";

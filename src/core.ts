/**
 * The guard without opencode, for programs (`import { replayMessages } from
 * "opencode-compaction-guard/core"`): the pure decision and its types, plus `readExport`
 * (the one function here that does I/O) to load an `opencode export` file.
 */
export {
  buildTimeline,
  contextTokens,
  type AssistantEntry,
  type Compaction,
  type Entry,
  type Timeline,
  type ToolCall,
  type UserEntry,
} from "./history.js";
export type { NoProgressEvidence, CompactionSizes } from "./rules/no-progress.js";
export type { RepeatedToolCallEvidence } from "./rules/repeated-tool-call.js";
export type { NoNewWorkEvidence } from "./rules/no-new-work.js";
export type { BackToBackEvidence } from "./rules/back-to-back-compactions.js";
export type { TurnFinishedEvidence } from "./rules/turn-finished.js";
export type { CannotMakeRoomEvidence } from "./rules/cannot-make-room.js";
export { predictNextPrompt, predictionMargin, type PredictedPrompt, type Prediction } from "./predict.js";
export { RULES } from "./rules/index.js";
export { replayMessages, type ReplayRow } from "./replay.js";
export { usableContext, type ModelLimits } from "./limits.js";
export { DEFAULT_SETTINGS, ENV_NAMES, resolveSettings, type GuardSettings, type NotifyMode } from "./settings.js";
export { canonicalJson, toolCallSignature } from "./signature.js";
export {
  decide,
  findDecisionPoint,
  historyLimit,
  type DecideOptions,
  type Evidence,
  type RuleName,
  type Severity,
  type Verdict,
} from "./verdict.js";
export { readExport, type SessionExport } from "./export.js";

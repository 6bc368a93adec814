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
} from "./decide/history.js";
export type { NoProgressEvidence } from "./decide/rules/no-progress.js";
export type { CompactionSizes } from "./decide/timeline.js";
export type { RepeatedToolCallEvidence } from "./decide/rules/repeated-tool-call.js";
export type { NoNewWorkEvidence } from "./decide/rules/no-new-work.js";
export type { BackToBackEvidence } from "./decide/rules/back-to-back-compactions.js";
export type { TurnFinishedEvidence } from "./decide/rules/turn-finished.js";
export type { CannotMakeRoomEvidence } from "./decide/rules/cannot-make-room.js";
export { predictNextPrompt, predictionMargin, type PredictedPrompt, type Prediction } from "./decide/predict.js";
export { RULES } from "./decide/rules/index.js";
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

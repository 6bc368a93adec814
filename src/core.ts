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
export type { NoProgressCheck, CompactionSizes } from "./rules/no-progress.js";
export type { RepeatedToolCallCheck } from "./rules/repeated-tool-call.js";
export { usableContext, type ModelLimits } from "./limits.js";
export { DEFAULT_SETTINGS, ENV_NAMES, resolveSettings, type GuardSettings, type NotifyMode } from "./settings.js";
export { canonicalJson, toolCallSignature } from "./signature.js";
export {
  decide,
  findDecisionPoint,
  historyLimit,
  replayMessages,
  type DecideOptions,
  type ReplayRow,
  type RuleName,
  type Verdict,
} from "./verdict.js";
export { readExport, type SessionExport } from "./export.js";

/**
 * The pure core, for programs that want the guard's decision without opencode
 * (`import { replayMessages } from "opencode-compaction-guard/core"`).
 */
export { buildTimeline, contextTokens, type Timeline, type Compaction, type Entry } from "./history.js";
export { usableContext, type ModelLimits } from "./limits.js";
export { DEFAULT_SETTINGS, ENV_NAMES, resolveSettings, type GuardSettings, type NotifyMode } from "./settings.js";
export { canonicalJson, toolCallSignature } from "./signature.js";
export { decide, findDecisionPoint, historyLimit, replayMessages, type ReplayRow, type RuleName, type Verdict } from "./verdict.js";
export { readExport, type SessionExport } from "./export.js";

/**
 * The guard without opencode, for programs (`import { replayMessages } from
 * "opencode-compaction-guard/core"`): the session model (Timeline and its entries), the
 * timeline builders of opencode's V1 messages (`buildTimeline`) and V2 session messages and
 * events (`buildV2Timeline`, `v2InOrder`, `v2MessagesFromEvents`; docs/opencode-2.md), the pure
 * decision and its types, plus `readExport` (the one function here that does I/O) to load an
 * `opencode export` file or a saved V2 session as a {@link SessionData}.
 */
import { predictNextPrompt as predictWith, type Prediction } from "./judge/predict.js";
import type { Evidence, RuleName } from "./judge/rules/index.js";
import { replayTimeline as replayTimelineWith, type ReplayRow } from "./guard/replay.js";
import type { GuardSettings } from "./config/settings.js";
import { decide as decideWith, findDecisionPoint, type DecideOptions as JudgeOptions, type Verdict } from "./judge/verdict.js";
import { OPENCODE_FACTS, opencodeInputs, type ModelLimits } from "./hosts/opencode/facts.js";
import { buildTimeline } from "./hosts/opencode/v1.js";
import type { Compaction, Timeline } from "./model/timeline.js";

export type { AssistantEntry, Entry, OtherEntry, ToolCall, UserEntry } from "./model/entry.js";
export type { Compaction, CompactionSizes, Timeline } from "./model/timeline.js";
export type { SessionData } from "./model/session.js";
export { buildTimeline, contextTokens } from "./hosts/opencode/v1.js";
/** V2 sessions (opencode's V2 session runner): their messages or events → a timeline (docs/opencode-2.md). */
export { buildV2Timeline, v2InOrder, v2MessagesFromEvents } from "./hosts/opencode/v2.js";
export { predictionMargin, type PredictedPrompt, type Prediction } from "./judge/predict.js";
export { RULES } from "./judge/rules/index.js";
/** One rule's evidence, derived from RULES (`EvidenceOf<"no-progress">`): a new rule needs nothing here. */
export type EvidenceOf<R extends RuleName> = Evidence[R];
/** The names the evidence types had in 0.3.0, kept for programs that import them: `Evidence[<rule name>]`. */
export type NoProgressEvidence = Evidence["no-progress"];
export type CannotMakeRoomEvidence = Evidence["cannot-make-room"];
export type BackToBackEvidence = Evidence["back-to-back-compactions"];
export type RepeatedToolCallEvidence = Evidence["repeated-tool-call"];
export type NoNewWorkEvidence = Evidence["no-new-work"];
export type TurnFinishedEvidence = Evidence["turn-finished"];
export type { ReplayRow } from "./guard/replay.js";
export { OPENCODE_FACTS, usableContext, type ModelLimits } from "./hosts/opencode/facts.js";
export type { HostFacts, HostInputs } from "./model/host-facts.js";
export { DEFAULT_SETTINGS, ENV_NAMES, resolveSettings, type GuardSettings, type NotifyMode } from "./config/settings.js";
export { canonicalJson } from "./shared/canonical-json.js";
export { findDecisionPoint, historyLimit, type Evidence, type RuleName, type Severity, type Verdict } from "./judge/verdict.js";
export { readExport, type SessionExport } from "./sources/export.js";

/**
 * What a decision depends on besides the history and the settings, in opencode's terms: the
 * model's limits and `compaction.reserved` (tokens) instead of the usable context, and what is
 * known of the session. opencode 1.18.33's facts are supplied.
 */
export interface DecideOptions extends Omit<JudgeOptions, "usable" | "facts"> {
  /** The model's limits, when known: no-progress then also compares with opencode's usable context. */
  readonly limits?: Partial<ModelLimits> | undefined;
  /** opencode's `compaction.reserved` (tokens) when the user set it; it moves the usable line. */
  readonly reserved?: number | undefined;
}

/** The judge's options for opencode's: the usable context of the limits, and opencode's facts. */
function judgeOptions({ limits, reserved, ...rest }: DecideOptions): JudgeOptions {
  return { ...rest, ...opencodeInputs(limits, reserved) };
}

/**
 * Decides whether opencode may add the synthetic continue turn after `compaction`, on the
 * history as it stood when the compaction's summary finished (see docs/how-it-decides.md).
 * Pure; never throws on a timeline from buildTimeline.
 */
export function decide(timeline: Timeline, compaction: Compaction, settings: GuardSettings, options: DecideOptions = {}): Verdict {
  return decideWith(timeline, compaction, settings, judgeOptions(options));
}

/**
 * The verdict at one automatic compaction of a timeline (undefined = the latest with a
 * successful summary), as the hook makes it; undefined when no such compaction is in it.
 */
export function decideCompaction(
  timeline: Timeline,
  compactionID: string | undefined,
  settings: GuardSettings,
  options: DecideOptions = {},
): Verdict | undefined {
  const point = findDecisionPoint(timeline, compactionID);
  if (!point || (compactionID !== undefined && point.messageID !== compactionID)) return undefined;
  return decide(timeline, point, settings, options);
}

/**
 * Replays a whole session: one verdict per automatic compaction with a successful summary,
 * each decided on the history as it stood when that summary finished (`wholeSession` is true
 * unless `options` says otherwise).
 */
export function replayTimeline(timeline: Timeline, settings: GuardSettings, options: DecideOptions = {}): ReplayRow[] {
  return replayTimelineWith(timeline, settings, judgeOptions(options));
}

/**
 * A lower bound (tokens) of the prompt of the first step after `compaction`, with what
 * opencode 1.18.33 sends after a compaction (see judge/predict.ts).
 * @param start first position in view; must be 0 for a prediction.
 */
export function predictNextPrompt(timeline: Timeline, compaction: Compaction, start = 0): Prediction {
  return predictWith(timeline, compaction, OPENCODE_FACTS, start);
}

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

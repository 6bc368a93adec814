/**
 * Predicts, at an automatic compaction, the prompt size of the first step after it: a lower
 * bound, in tokens, of what opencode 1.18.33 will send with the continue turn (read in its
 * source, e2e/FINDINGS.md "What the first request after a compaction carries"): the system
 * prompt and tools (session/llm.ts), the compaction question and the summary
 * (message-v2.ts `toModelMessages`), the kept tail from `tail_start_id` (compaction.ts
 * `select`, message-v2.ts `filterCompacted`) and the continue text; the two fixed texts come
 * from the host (`HostFacts.afterCompaction`). Each piece is bounded from below by what the
 * session recorded ({@link PredictedPrompt}; how, and why each bound holds under six real
 * tokenizers: docs/how-it-decides.md "cannot-make-room", docs/zero-waste.md). Per-message
 * template tokens are left out: they only add. Pure; never throws on a timeline from buildTimeline.
 */
import { isStep, type AssistantEntry } from "../model/entry.js";
import { type Compaction, type Timeline } from "../model/timeline.js";
import type { HostFacts } from "../model/host-facts.js";
import { compactionBetween } from "./view.js";

/** The margin taken off a prediction before it is compared with the usable context, tokens (why so much: docs/zero-waste.md). */
const MARGIN_MIN_TOKENS = 100;
const MARGIN_FRACTION = 0.01;

/** The margin for a prediction of `predicted` tokens: `max(MARGIN_MIN_TOKENS, MARGIN_FRACTION × predicted)`. */
export const predictionMargin = (predicted: number): number => Math.max(MARGIN_MIN_TOKENS, Math.ceil(MARGIN_FRACTION * predicted));

/**
 * Characters a token for the host's fixed texts: fewer tokens than any of six real tokenizers
 * makes of opencode's (e2e/tokenizers.ts; the figures in docs/zero-waste.md).
 */
export const FIXED_CHARS_PER_TOKEN = 5;

/** A prediction's pieces, tokens each. */
export interface PredictedPrompt {
  readonly status: "predicted";
  /** Prompt of the session's first step (system prompt + tools + first user message). */
  readonly firstStepTokens: number;
  /** The first user message at one token per UTF-8 byte: an upper bound of its tokens. */
  readonly firstUserTokens: number;
  /** The smallest prompt of any step before the compaction. */
  readonly smallestStepTokens: number;
  /** System prompt + tools: min(firstStepTokens − firstUserTokens, smallestStepTokens), ≥ 0. */
  readonly baseTokens: number;
  /** The summary's recorded output tokens. */
  readonly summaryTokens: number;
  /** Lower bound of the kept tail (0 when opencode kept none). */
  readonly tailTokens: number;
  /** The compaction question and the continue text, at {@link FIXED_CHARS_PER_TOKEN} characters a token. */
  readonly fixedTokens: number;
  /** base + summary + tail + fixed: a lower bound of the next step's prompt. */
  readonly predictedTokens: number;
  /** `tail_start_id`, or null when the summary replaced everything. */
  readonly tailStartID: string | null;
  /** Context size (tokens, opencode's overflow measure) of the step that set the compaction off, or null. */
  readonly triggerTokens: number | null;
}

/** A prediction, or why there is none. */
export type Prediction = PredictedPrompt | { readonly status: "abstain"; readonly reason: string };

/**
 * Tokens of a text, at least: one per run of non-whitespace characters. No tokenizer of the
 * six measured (o200k, cl100k, Claude, Qwen3, Llama 3, Gemma 3) makes a token that holds two
 * such runs, since each splits text at whitespace before it merges (docs/zero-waste.md).
 */
export function tokensAtLeast(text: string): number {
  let count = 0;
  let inRun = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const blank = code === 32 || (code >= 9 && code <= 13) || code === 160 || code === 0x3000;
    if (!blank && !inRun) count += 1;
    inRun = !blank;
  }
  return count;
}

/** Tokens of a fixed text, at least: ⌊characters / FIXED_CHARS_PER_TOKEN⌋. */
const estimate = (text: string): number => Math.floor(text.length / FIXED_CHARS_PER_TOKEN);

/**
 * Is `compaction` the first compaction in the timeline, with nothing cut off before `start`?
 * (That the timeline begins with the *session's* first message only the caller knows:
 * DecideOptions.wholeSession.) The rule predicts only there: from the second compaction on,
 * no-progress measures what the previous one really left.
 */
export function isFirstCompaction(timeline: Timeline, compaction: Compaction, start = 0): boolean {
  return start === 0 && timeline.compactions[0]?.messageID === compaction.messageID;
}

/**
 * Predicts a lower bound of the prompt of the first step after `compaction` (see the module
 * comment for what opencode sends and how each piece is bounded). Works at any compaction
 * whose kept tail no earlier compaction cuts through (the rule uses it at the first only;
 * the error table of e2e/prediction-table.ts at every one).
 *
 * @param facts the host's facts: its fixed texts after a compaction are counted in `fixedTokens`.
 * @param start first position in view (the hook reads the newest messages only); must be 0,
 *   and `timeline` must begin with the session's first message (its first step is the base):
 *   the caller checks that (cannot-make-room abstains unless DecideOptions.wholeSession).
 * @returns the pieces in tokens, or why there is no prediction: the session's start out of
 *   view, no successful summary, a first message that is not a plain text message of the
 *   user's, missing token data, or a tail start the history does not hold or that lies
 *   before an earlier compaction.
 */
export function predictNextPrompt(timeline: Timeline, compaction: Compaction, facts: HostFacts, start = 0): Prediction {
  const abstain = (reason: string): Prediction => ({ status: "abstain", reason });
  const { entries } = timeline;
  if (start !== 0) return abstain("the session's first step is out of view");
  const summary = entries[compaction.summaryPosition];
  if (!compaction.succeeded || summary?.kind !== "assistant") return abstain("no successful summary");

  const firstUser = entries[0];
  const firstStep = entries[1];
  if (firstUser?.kind !== "user" || firstUser.role !== "real") return abstain("the session does not start with a message of the user's");
  if (firstUser.unsized) return abstain("the first user message carries files or parts of unknown size");
  if (!isStep(firstStep) || firstStep.promptTokens === null) return abstain("no token data for the session's first step");
  if (summary.outputTokens <= 0) return abstain("no token data for the summary");

  const firstStepTokens = firstStep.promptTokens;
  const firstUserTokens = firstUser.sentBytes ?? Buffer.byteLength(firstUser.text, "utf8");
  const summaryTokens = summary.outputTokens;

  let trigger: AssistantEntry | undefined;
  let triggerPosition = -1;
  let smallestStepTokens = firstStepTokens;
  for (let p = compaction.position - 1; p >= 0; p--) {
    const entry = entries[p];
    if (!isStep(entry)) continue;
    if (trigger === undefined) {
      trigger = entry;
      triggerPosition = p;
    }
    if (entry.promptTokens !== null) smallestStepTokens = Math.min(smallestStepTokens, entry.promptTokens);
  }
  const baseTokens = Math.max(0, Math.min(firstStepTokens - firstUserTokens, smallestStepTokens));
  const triggerTokens = trigger?.contextTokens ?? null;
  if (trigger !== undefined && trigger.model !== firstStep.model) {
    return abstain("the model or agent answering now is not the one of the session's first step (another system prompt and tools)");
  }

  let tailTokens = 0;
  const tailStartID = compaction.tailStartID ?? null;
  if (tailStartID !== null) {
    const tailStart = entries.findIndex((entry) => entry.id === tailStartID);
    if (tailStart < 0 || tailStart >= compaction.position) return abstain("the kept tail's first message is not in the history");
    if (compactionBetween(timeline.compactions, tailStart - 1, compaction.position))
      return abstain("the kept tail spans an earlier compaction");
    let from: number | null = null;
    for (let p = tailStart; p < compaction.position && from === null; p++) {
      const entry = entries[p];
      if (isStep(entry)) from = entry.promptTokens;
    }
    // What the context grew by from the tail's start to the end of the last step, and the
    // last step's tool results, which no step measured: a lower bound.
    if (from !== null && trigger?.promptTokens != null) tailTokens = Math.max(0, trigger.promptTokens + trigger.outputTokens - from);
    if (trigger !== undefined && triggerPosition >= tailStart) {
      for (const call of trigger.toolCalls) if (typeof call.output === "string") tailTokens += tokensAtLeast(call.output);
    }
  }

  let fixedTokens = 0;
  for (const text of facts.afterCompaction) fixedTokens += estimate(text);
  return {
    status: "predicted",
    firstStepTokens,
    firstUserTokens,
    smallestStepTokens,
    baseTokens,
    summaryTokens,
    tailTokens,
    fixedTokens,
    predictedTokens: baseTokens + summaryTokens + tailTokens + fixedTokens,
    tailStartID,
    triggerTokens,
  };
}

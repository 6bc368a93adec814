/**
 * Every fact copied from opencode 1.18.33, in one file so that the next opencode change is a
 * one-file edit: the overflow line recomputed from a model's limits and `compaction.reserved`
 * (session/overflow.ts), the output cap, the continue text, and what is sent after a
 * compaction besides the summary. The judge reads them only as a host's inputs
 * ({@link opencodeInputs}).
 */
import type { HostFacts, HostInputs } from "../../model/host-facts.js";

/** The text opencode 1.18.33 puts in the synthetic continue turn (session/compaction.ts). */
export const CONTINUE_TEXT_PREFIX = "Continue if you have next steps";
/** opencode 1.18.33's continue text (session/compaction.ts). */
export const CONTINUE_TEXT = `${CONTINUE_TEXT_PREFIX}, or stop and ask for clarification if you are unsure how to proceed.`;
/** The text opencode sends for the compaction message after a compaction (message-v2.ts). */
export const COMPACTION_QUESTION = "What did we do so far?";
/** opencode's own token estimate: characters / 4 (util/token.ts `Token.estimate`). */
export const CHARS_PER_TOKEN = 4;

/** A model's token limits as opencode's models.dev data carries them (`model.limit`). */
export interface ModelLimits {
  /** Context window, tokens. 0 means unknown: opencode then never compacts. */
  readonly context: number;
  /** Maximum output tokens. */
  readonly output: number;
  /** Input limit, tokens, when the provider states one separately. */
  readonly input?: number | undefined;
}

/** opencode's cap on output tokens (`OUTPUT_TOKEN_MAX`, session/prompt.ts). */
export const OUTPUT_TOKEN_MAX = 32_000;
/** opencode's default for `compaction.reserved` is min(this, maxOut) (session/overflow.ts). */
export const RESERVED_MAX = 20_000;

const positive = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);

/**
 * The usable context in tokens: a step whose context size reaches it triggers compaction.
 *
 * `maxOut = min(limit.output, 32000) || 32000`;
 * `reserved = compaction.reserved ?? min(20000, maxOut)`;
 * `usable = limit.input ? max(0, limit.input − reserved) : max(0, limit.context − maxOut)`.
 * (`compaction.reserved` only moves the line of a model with an input limit.)
 *
 * @param reserved opencode's `compaction.reserved` in tokens when the user set it
 *   (read from opencode's config); undefined or invalid = opencode's default.
 * @returns tokens, or null when the limits are unknown (`context` missing or 0).
 */
export function usableContext(limits: Partial<ModelLimits> | undefined, reserved?: number): number | null {
  const context = positive(limits?.context);
  if (context === 0) return null;
  const maxOut = Math.min(positive(limits?.output), OUTPUT_TOKEN_MAX) || OUTPUT_TOKEN_MAX;
  const input = positive(limits?.input);
  const kept = typeof reserved === "number" && Number.isFinite(reserved) && reserved >= 0 ? reserved : Math.min(RESERVED_MAX, maxOut);
  if (input > 0) return Math.max(0, input - kept);
  return Math.max(0, context - maxOut);
}

/** opencode 1.18.33's facts as the judge reads them. */
export const OPENCODE_FACTS: HostFacts = Object.freeze({
  source: "opencode 1.18.33",
  afterCompaction: Object.freeze([COMPACTION_QUESTION, CONTINUE_TEXT]),
});

/**
 * The judge's inputs for a session opencode runs: its facts, and the usable context
 * ({@link usableContext}) of the model's limits and `compaction.reserved` (tokens).
 */
export function opencodeInputs(limits: Partial<ModelLimits> | undefined, reserved?: number): HostInputs {
  return { usable: usableContext(limits, reserved), facts: OPENCODE_FACTS };
}

/**
 * opencode's overflow line, recomputed from a model's limits (session/overflow.ts, 1.18.33).
 */

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

const positive = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;

/**
 * The usable context in tokens: a step whose context size reaches it triggers compaction.
 *
 * `maxOut = min(limit.output, 32000) || 32000`;
 * `usable = limit.input ? max(0, limit.input − min(20000, maxOut)) : max(0, limit.context − maxOut)`.
 * This assumes opencode's default `compaction.reserved`; a user who set it moves the line.
 *
 * @returns tokens, or null when the limits are unknown (`context` missing or 0).
 */
export function usableContext(limits: Partial<ModelLimits> | undefined): number | null {
  const context = positive(limits?.context);
  if (context === 0) return null;
  const maxOut = Math.min(positive(limits?.output), OUTPUT_TOKEN_MAX) || OUTPUT_TOKEN_MAX;
  const input = positive(limits?.input);
  if (input > 0) return Math.max(0, input - Math.min(RESERVED_MAX, maxOut));
  return Math.max(0, context - maxOut);
}

/**
 * What a compaction keeps that does not fit: the largest tool calls in its kept tail (from
 * `tailStartID` up to the compaction message, ./predict.ts), and the one remedy that would
 * help most, which the stops of cannot-make-room and no-progress name. Each call is sized at
 * {@link CHARS_PER_TOKEN} characters a token of its input (as JSON) and output, the host's
 * own estimate (opencode's util/token.ts); identical calls (same tool and preview) are one
 * item with their runs and tokens summed. Pure; never throws on a timeline from
 * buildTimeline. Previews are redact/preview.ts's: never an output, never a secret.
 */
import { isStep } from "../model/entry.js";
import type { Compaction, Timeline } from "../model/timeline.js";
import { previewCall } from "../redact/preview.js";

/** Characters a token, as the host estimates a text it has not sent yet. */
export const CHARS_PER_TOKEN = 4;

/** Most items a stop names. */
export const MAX_CULPRITS = 3;

/** Longest text measured per call (characters): a bigger output counts as this long, so that sizing costs the same for any output. */
const MAX_MEASURED_CHARS = 50_000_000;

/** One item the compaction keeps: a tool call (or several identical ones) of the kept tail. */
export interface Culprit {
  readonly tool: string;
  /** The call's input in short (redact/preview.ts `previewCall`): one line, at most 60 characters. */
  readonly preview: string;
  /** How many identical calls the tail keeps (≥ 1). */
  readonly runs: number;
  /** Their input and output, at {@link CHARS_PER_TOKEN} characters a token, summed over the runs. */
  readonly tokens: number;
}

/**
 * What would help most, by what is kept:
 * `narrow-output`: one item alone takes a quarter or more of the usable context (read in
 * ranges, filter the command's output); `keep-less`: the kept calls together take a quarter or
 * more of what is left after compaction, none alone that much (keep a smaller tail);
 * `larger-model`: what is left is mostly what every request carries (system prompt, tools,
 * summary), or nothing is kept.
 */
export type Remedy = "narrow-output" | "keep-less" | "larger-model";

/** The kept tail's largest items, their total, and the remedy. */
export interface KeptCulprits {
  /** The {@link MAX_CULPRITS} largest items, largest first; [] when the compaction keeps no tool call in view. */
  readonly items: readonly Culprit[];
  /** Every tool call the tail keeps, estimated as above, tokens. */
  readonly keptTokens: number;
  readonly remedy: Remedy;
}

/** The sizes a remedy is chosen against (tokens; null when unknown). */
export interface RoomSizes {
  /** What is left after the compaction: measured (no-progress) or predicted at least (cannot-make-room). */
  readonly residualTokens: number | null;
  /** The host's usable context. */
  readonly usableTokens: number | null;
}

/** Characters of a value as the host sends it: a string as it is, anything else as JSON (bounded). */
function sentChars(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === "string") return Math.min(value.length, MAX_MEASURED_CHARS);
  try {
    return Math.min(JSON.stringify(value)?.length ?? 0, MAX_MEASURED_CHARS);
  } catch {
    return 0;
  }
}

/**
 * The largest items `compaction` keeps verbatim, and what would help.
 *
 * @param start first position in view: a tail that starts before it is not known, and gives no items.
 * @param directory the project directory (previews show paths relative to it).
 * @returns items [] (and remedy `larger-model`) when the compaction keeps no tail, or its first
 *   message is not in view; never throws.
 */
export function keptCulprits(timeline: Timeline, compaction: Compaction, sizes: RoomSizes, start = 0, directory?: string): KeptCulprits {
  const byItem = new Map<string, { tool: string; preview: string; runs: number; tokens: number }>();
  let keptTokens = 0;
  const tailStart = compaction.tailStartID === undefined ? -1 : timeline.entries.findIndex((entry) => entry.id === compaction.tailStartID);
  if (tailStart >= start && tailStart < compaction.position) {
    for (let position = tailStart; position < compaction.position; position++) {
      const entry = timeline.entries[position];
      if (!isStep(entry)) continue;
      for (const call of entry.toolCalls) {
        const tokens = Math.ceil((sentChars(call.input) + sentChars(call.output)) / CHARS_PER_TOKEN);
        keptTokens += tokens;
        const preview = previewCall(call.tool, call.input, directory);
        const key = `${call.tool}\u0000${preview}`;
        const item = byItem.get(key);
        if (item) {
          item.runs += 1;
          item.tokens += tokens;
        } else byItem.set(key, { tool: call.tool, preview, runs: 1, tokens });
      }
    }
  }
  const items = [...byItem.values()].sort((a, b) => b.tokens - a.tokens).slice(0, MAX_CULPRITS);
  return { items, keptTokens, remedy: remedyFor(items, keptTokens, sizes) };
}

/** See {@link Remedy}: a quarter is where one item, or the kept calls, are what stands in the way. */
function remedyFor(items: readonly Culprit[], keptTokens: number, sizes: RoomSizes): Remedy {
  const largest = items[0];
  if (largest === undefined) return "larger-model";
  // One run of the largest item: what a narrower read or command would shrink.
  const oneRun = largest.tokens / largest.runs;
  if (sizes.usableTokens !== null && oneRun * 4 >= sizes.usableTokens) return "narrow-output";
  if (sizes.residualTokens === null || keptTokens * 4 >= sizes.residualTokens) return "keep-less";
  return "larger-model";
}

/**
 * Rule repeated-tool-call: the model re-emits the tool call it just completed.
 *
 * opencode's doom-loop check (session/processor.ts, DOOM_LOOP_THRESHOLD = 3) only reads the
 * last three parts of the *current* assistant message; every compaction cycle starts a new
 * assistant message, so a repeat across cycles is never seen (opencode#25254), nor an
 * A,B,A,B cycle (opencode#47759). This rule counts across messages, and since it counts
 * signatures rather than runs, it catches cycles too. Like Codex, only a real user message
 * resets the count: synthetic continue turns and compaction messages do not.
 *
 * Matching the output too (openclaw's post-compaction guard) keeps polling and re-running
 * tests after an edit allowed as long as the output moves.
 */
import { isRealUser, isStep, type AssistantEntry, type Entry, type ToolCall } from "../history.js";
import { previewInput } from "../redact.js";
import type { GuardSettings } from "../settings.js";
import { toolCallSignature } from "../signature.js";

/** What the rule saw: the most frequent completed tool call in the window. */
export interface RepeatedToolCallCheck {
  /** The signature reached `threshold`. */
  readonly fired: boolean;
  /** Tool name of the most frequent signature; null when the window holds no completed tool call. */
  readonly tool: string | null;
  /** Redacted one-line preview of its input (never the raw input). */
  readonly preview: string | null;
  /** How many completed tool parts carry that signature. */
  readonly count: number;
  readonly threshold: number;
  /** Non-summary assistant messages read (≤ window; fewer after a real user message). */
  readonly messagesRead: number;
  /** Ids of the assistant messages holding the most frequent call (fired or not), oldest first. */
  readonly messageIDs: readonly string[];
}

type Settings = Pick<GuardSettings, "threshold" | "window" | "matchOutput">;

/**
 * Signatures already computed, per tool call (timeline objects are never changed) and
 * matchOutput. A replay decides at every compaction and each step falls in up to `window`
 * of them: hashing each call once made a 12,500-compaction replay 2× faster. Entries go
 * with their timeline.
 */
const signatures = new WeakMap<ToolCall, { [matchOutput: string]: string }>();

function signatureOf(call: ToolCall, matchOutput: boolean): string {
  const known = signatures.get(call) ?? {};
  known[String(matchOutput)] ??= toolCallSignature(call, matchOutput);
  signatures.set(call, known);
  return known[String(matchOutput)]!;
}

/**
 * The last `window` non-summary assistant messages at or before `end`, after the latest
 * real user message, oldest first. `start` bounds the search (the hook sees only a slice).
 */
export function recentSteps(entries: readonly Entry[], end: number, window: number, start = 0): AssistantEntry[] {
  const steps: AssistantEntry[] = [];
  for (let position = end; position >= start && steps.length < window; position--) {
    const entry = entries[position];
    if (isRealUser(entry)) break;
    if (isStep(entry)) steps.push(entry);
  }
  return steps.reverse();
}

/**
 * Evaluates repeated-tool-call on the history `entries[start..end]`.
 *
 * Counts completed tool parts (`state.status === "completed"`) by signature (tool +
 * canonical input + normalised output when `matchOutput`); errored, pending and running
 * parts never count. Fires when a signature reaches `threshold`. Reports the most frequent
 * signature; ties go to the one seen most recently.
 */
export function checkRepeatedToolCall(
  entries: readonly Entry[],
  end: number,
  settings: Settings,
  start = 0,
): RepeatedToolCallCheck {
  const steps = recentSteps(entries, end, settings.window, start);
  const tally = new Map<string, { call: ToolCall; count: number; messageIDs: string[] }>();
  let best: { call: ToolCall; count: number; messageIDs: string[] } | undefined;
  for (const step of steps) {
    for (const call of step.toolCalls) {
      const signature = signatureOf(call, settings.matchOutput);
      const seen = tally.get(signature) ?? { call, count: 0, messageIDs: [] };
      seen.count += 1;
      if (seen.messageIDs.at(-1) !== step.id) seen.messageIDs.push(step.id);
      tally.set(signature, seen);
      if (!best || seen.count >= best.count) best = seen;
    }
  }
  return {
    fired: best !== undefined && best.count >= settings.threshold,
    tool: best?.call.tool ?? null,
    preview: best ? previewInput(best.call.input) : null,
    count: best?.count ?? 0,
    threshold: settings.threshold,
    messagesRead: steps.length,
    messageIDs: best?.messageIDs ?? [],
  };
}

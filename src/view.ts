/**
 * The decision view: what every rule reads at one automatic compaction, built once per
 * decision from the timeline so that rules never re-walk raw messages or reach into each
 * other. Also the helpers rules share: the steps since the user last spoke, each step's
 * actions (tool-call and text signatures) and whether an action is new work.
 */
import { compactionEnd, isRealUser, isStep, isWorkStep, type AssistantEntry, type Compaction, type Entry, type Timeline, type ToolCall } from "./history.js";
import type { GuardSettings } from "./settings.js";
import { textSignature, toolCallSignature } from "./signature.js";

/** One thing a step did: a tool call (completed or failed), or, in a step without tool calls, its text. */
export interface Action {
  readonly kind: "tool" | "text";
  /** Equal signatures mean the same action (see signature.ts). */
  readonly signature: string;
  /** The tool call, for a tool action. */
  readonly call: ToolCall | null;
  /**
   * First time this signature appears since the user's last message (within the view):
   * new work. A repeat of something already done is not.
   */
  readonly isNew: boolean;
}

/** A step that did something (non-empty, non-summary assistant message) and its actions. */
export interface StepView {
  readonly entry: AssistantEntry;
  /** Position in {@link Timeline.entries}. */
  readonly position: number;
  /** Its actions in part order; calls matched by the `ignore` setting are left out. */
  readonly actions: readonly Action[];
}

/** Everything a rule may read about one decision. Positions index `timeline.entries`. */
export interface DecisionView {
  readonly timeline: Timeline;
  /** The automatic compaction being decided: compaction k. */
  readonly compaction: Compaction;
  /** First position in view (the hook reads only the newest messages). */
  readonly start: number;
  /** Last position in view: k's summary (the history as it stood when the summary finished). */
  readonly end: number;
  /** The automatic compactions in view up to and including k, oldest first. */
  readonly compactions: readonly Compaction[];
  /** The previous automatic compaction in view, k−1, if any. */
  readonly previous: Compaction | undefined;
  /** Position of the user's last real message at or before `end`, or −1 (none in view). */
  readonly lastUserPosition: number;
  /** The user spoke after k−1's summary: k−1's cycle is not the model's alone. */
  readonly userSteppedIn: boolean;
  /** Steps that did something, after the user's last message, up to `end`, oldest first. */
  readonly steps: readonly StepView[];
  /** The steps of k−1's cycle: after k−1's summary and before k (all of `steps` when no k−1). */
  readonly cycle: readonly StepView[];
}

/**
 * Signatures already computed, per tool call (timeline objects are never changed) and
 * matchOutput. A replay decides at every compaction and each step falls in many of them:
 * hashing each call once keeps a long replay linear. Entries go with their timeline.
 */
const callSignatures = new WeakMap<ToolCall, { [matchOutput: string]: string }>();
const textSignatures = new WeakMap<AssistantEntry, string>();

function signatureOfCall(call: ToolCall, matchOutput: boolean): string {
  const known = callSignatures.get(call) ?? {};
  known[String(matchOutput)] ??= toolCallSignature(call, matchOutput);
  callSignatures.set(call, known);
  return known[String(matchOutput)]!;
}

function signatureOfText(entry: AssistantEntry): string {
  let known = textSignatures.get(entry);
  if (known === undefined) textSignatures.set(entry, (known = textSignature(entry.text)));
  return known;
}

/** The command of a bash call, or undefined. */
const bashCommand = (call: ToolCall): string | undefined => {
  const input = call.input as { command?: unknown } | null;
  return call.tool === "bash" && typeof input?.command === "string" ? input.command.trim() : undefined;
};

/**
 * Is this call on the user's `ignore` list? An entry matches a tool by name, or a bash call
 * whose command is the entry or starts with the entry and a space.
 */
export function isIgnored(call: ToolCall, ignore: readonly string[]): boolean {
  if (ignore.length === 0) return false;
  const command = bashCommand(call);
  return ignore.some((item) => item === call.tool || (command !== undefined && (command === item || command.startsWith(`${item} `))));
}

/** The position of the last automatic compaction in `compactions` (position order) before `before`, ≥ start. */
function previousAutomatic(compactions: readonly Compaction[], before: number, start: number): Compaction | undefined {
  let low = 0;
  let high = compactions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compactions[middle]!.position < before) low = middle + 1;
    else high = middle;
  }
  for (let i = low - 1; i >= 0 && compactions[i]!.position >= start; i--) {
    if (compactions[i]!.auto) return compactions[i];
  }
  return undefined;
}

/** The automatic compactions with start ≤ position ≤ upTo (binary search, then a short walk back). */
function automaticInView(compactions: readonly Compaction[], upTo: number, start: number): Compaction[] {
  let low = 0;
  let high = compactions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compactions[middle]!.position <= upTo) low = middle + 1;
    else high = middle;
  }
  const found: Compaction[] = [];
  for (let i = low - 1; i >= 0 && compactions[i]!.position >= start; i--) if (compactions[i]!.auto) found.push(compactions[i]!);
  return found.reverse();
}

/**
 * Builds the view of compaction k (`compaction`) on `timeline.entries[start..end]`, where end
 * is k's summary (or k itself when the summary is missing).
 *
 * @param settings `matchOutput` (whether outputs are part of a call's signature) and `ignore`.
 * @returns the view; never throws on a timeline from buildTimeline.
 */
export function buildView(
  timeline: Timeline,
  compaction: Compaction,
  settings: Pick<GuardSettings, "matchOutput" | "ignore">,
  start = 0,
): DecisionView {
  const { entries } = timeline;
  const end = compactionEnd(compaction);
  const previous = previousAutomatic(timeline.compactions, compaction.position, start);

  let lastUserPosition = -1;
  for (let position = end; position >= start; position--) {
    if (isRealUser(entries[position])) {
      lastUserPosition = position;
      break;
    }
  }

  const seen = new Set<string>();
  const steps: StepView[] = [];
  for (let position = Math.max(start, lastUserPosition + 1); position <= end; position++) {
    const entry = entries[position];
    if (!isWorkStep(entry)) continue;
    steps.push({ entry, position, actions: actionsOf(entry, settings, seen) });
  }
  const cycleStart = previous ? compactionEnd(previous) : -1;
  return {
    timeline,
    compaction,
    start,
    end,
    compactions: automaticInView(timeline.compactions, compaction.position, start),
    previous,
    lastUserPosition,
    userSteppedIn: previous !== undefined && lastUserPosition > compactionEnd(previous),
    steps,
    cycle: steps.filter((step) => step.position > cycleStart && step.position < compaction.position),
  };
}

/** A step's actions; `seen` holds the signatures met so far and is updated. */
function actionsOf(entry: AssistantEntry, settings: Pick<GuardSettings, "matchOutput" | "ignore">, seen: Set<string>): Action[] {
  const make = (kind: Action["kind"], signature: string, call: ToolCall | null): Action => {
    const isNew = !seen.has(signature);
    seen.add(signature);
    return { kind, signature, call, isNew };
  };
  if (entry.toolParts > 0) {
    return entry.toolCalls
      .filter((call) => !isIgnored(call, settings.ignore))
      .map((call) => make("tool", signatureOfCall(call, settings.matchOutput), call));
  }
  return entry.text.trim() === "" ? [] : [make("text", signatureOfText(entry), null)];
}

/** The last step (any assistant non-summary message, empty ones too) before `position`, ≥ start. */
export function stepBefore(entries: readonly Entry[], position: number, start: number): { entry: AssistantEntry; position: number } | undefined {
  for (let p = position - 1; p >= start; p--) {
    const entry = entries[p];
    if (isStep(entry)) return { entry, position: p };
  }
  return undefined;
}

/**
 * Calls repeated after a compaction: what a session redid because a summary made it forget,
 * whether or not a rule fired. Pure; a function of the timeline alone (no settings, no limits).
 */
import { isRealUser, isStep, type ToolCall } from "../model/entry.js";
import { compactionEnd, type Timeline } from "../model/timeline.js";
import { callKind } from "../judge/tool-kinds.js";

/** The calls a session repeated after its compactions. */
export interface RepeatsAfterCompaction {
  /** Calls made after a compaction that had already completed, with the same input, since the user last spoke before it (≥ 0). */
  readonly calls: number;
  /** Compactions after which at least one call was repeated (≥ 0; manual ones too). */
  readonly compactions: number;
  /** The repeated calls by tool name (as the host records it), most repeated first; ties by name. */
  readonly byTool: ReadonlyArray<{ readonly tool: string; readonly calls: number }>;
}

/** No repeat at all. */
export const NO_REPEATS: RepeatsAfterCompaction = Object.freeze({ calls: 0, compactions: 0, byTool: Object.freeze([]) });

/** A call's identity before it runs: its tool and what it asked for, as the host read it. */
const keyOf = (call: ToolCall): string => `${call.tool}\u0000${call.action.asked.comparable}`;

/**
 * Counts, for every compaction in `timeline` (automatic and manual), the tool calls in the
 * steps after its summary, up to the next compaction or the user's next real message
 * (`isRealUser`), whose key (tool and what it asked for, model/action.ts `Asked.comparable`) is the key of
 * a call that completed in a step between the user's last real message before the compaction
 * and the compaction. Bookkeeping and deliberate waits (judge/tool-kinds.ts `plan`,
 * `wait`) are left out on both sides. Outputs are not compared: a repeat whose answer
 * changed is still work done twice. A call repeated after two compactions counts twice.
 * @returns the counts; {@link NO_REPEATS} for a timeline without compactions. Never throws on
 *   a timeline from `timelineOf`.
 */
export function repeatsAfterCompaction(timeline: Timeline): RepeatsAfterCompaction {
  const { entries, compactions } = timeline;
  if (compactions.length === 0) return NO_REPEATS;
  const counted = (call: ToolCall) => {
    const kind = callKind(call);
    return kind !== "plan" && kind !== "wait";
  };
  const byTool = new Map<string, number>();
  let calls = 0;
  let withRepeats = 0;
  /** Keys of the calls completed since the user's last real message, up to the current position. */
  let done = new Set<string>();
  let next = 0;
  for (let c = 0; c < compactions.length; c++) {
    const compaction = compactions[c]!;
    for (; next < compaction.position; next++) {
      const entry = entries[next];
      if (isRealUser(entry)) done = new Set();
      else if (isStep(entry)) for (const call of entry.toolCalls) if (call.status === "completed" && counted(call)) done.add(keyOf(call));
    }
    const stop = Math.min(compactions[c + 1]?.position ?? entries.length, entries.length);
    let here = 0;
    for (let i = compactionEnd(compaction) + 1; i < stop; i++) {
      const entry = entries[i];
      if (isRealUser(entry)) break;
      if (!isStep(entry)) continue;
      for (const call of entry.toolCalls) {
        if (!counted(call) || !done.has(keyOf(call))) continue;
        here += 1;
        byTool.set(call.tool, (byTool.get(call.tool) ?? 0) + 1);
      }
    }
    calls += here;
    if (here > 0) withRepeats += 1;
  }
  const tools = [...byTool]
    .map(([tool, n]) => ({ tool, calls: n }))
    .sort((a, b) => b.calls - a.calls || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  return { calls, compactions: withRepeats, byTool: tools };
}

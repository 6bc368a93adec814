/**
 * The tool-loop check: is the call just completed the `threshold`-th run of the same action
 * with nothing new in between, with or without a compaction? Pure: history and the call in,
 * a count and what the guard does about it out. It counts across messages at tool time,
 * where opencode's doom-loop check (session/processor.ts) reads only the current message
 * (opencode#25254, #47759), with the chains of ./chains.ts; only a real user message resets
 * the count. It reads the newest {@link toolLoopHistoryLimit} messages and walks at most
 * {@link toolLoopSteps} steps: the same cost at 100 and at 10,000 steps.
 */
import { buildChains, type Chain } from "./chains.js";
import { isStep, TOOL_LOOP_NOTICE_MARK, type ToolCall } from "../model/entry.js";
import type { CallInTimeline, Timeline } from "../model/timeline.js";
import type { SharedSettings } from "./settings.js";
import { previewCall } from "../redact/preview.js";
import { StepsView, TimelineSteps, type Action } from "./view.js";

/** The settings the check reads. */
export type ToolLoopSettings = Pick<SharedSettings, "toolLoop" | "threshold" | "matchOutput" | "ignore">;

/** What the guard does at one call: add the notice (`warn`), refuse the call and stop the session (`stop`), or nothing (null). */
export type ToolLoopAction = "warn" | "stop" | null;

/**
 * How many steps back a chain is counted: at least 32, and 4 × threshold for a high
 * threshold, so that a chain of `threshold` runs with a few repeats between them still fits.
 * A chain longer than that reads as this many runs: still over `threshold`.
 */
export function toolLoopSteps(settings: Pick<SharedSettings, "threshold">): number {
  return Math.max(32, 4 * settings.threshold);
}

/**
 * How many of the newest messages the check reads (and the hook asks `session.messages`
 * for): twice {@link toolLoopSteps}, room for the chain's steps and for the user messages and
 * compactions between them. An action last done further back counts as new (the cautious
 * side: a missed repeat, never a false one).
 */
export function toolLoopHistoryLimit(settings: Pick<SharedSettings, "threshold">): number {
  return 2 * toolLoopSteps(settings);
}

/**
 * What the guard does at a call that is the `runs`-th of its chain: nothing below
 * `threshold`; `warn` from `threshold` on; with `toolLoop: "stop"`, `stop` from
 * `threshold + 2` on (the chain went on after two notices). Nothing either while the chain
 * is no longer than the user asked for (`asked`, see {@link askedRepeats}).
 */
export function toolLoopAction(runs: number, settings: Pick<SharedSettings, "toolLoop" | "threshold">, asked = 0): ToolLoopAction {
  if (settings.toolLoop === "off" || runs < settings.threshold || runs <= asked) return null;
  return settings.toolLoop === "stop" && runs >= settings.threshold + 2 ? "stop" : "warn";
}

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  twice: 2,
  thrice: 3,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
};
const ASKED = /\b(\d{1,4}|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty)\s*(?:x\b|times\b)|\b(twice|thrice)\b/gi;

/**
 * How many runs the user's message asks for, at most: "poll job 42 three times", "run the
 * tests 5 times", "twice", "10x". 0 when it names no count. A chain no longer than that is
 * what the user asked for, not a loop.
 */
export function askedRepeats(text: string): number {
  let most = 0;
  for (const match of text.matchAll(ASKED)) {
    const word = (match[1] ?? match[2] ?? "").toLowerCase();
    const n = /^\d+$/.test(word) ? Number(word) : (NUMBER_WORDS[word] ?? 0);
    most = Math.max(most, n);
  }
  return most;
}

/** The count the user's last real message in view asks for (see {@link askedRepeats}), or 0. */
function askedIn(timeline: Timeline, view: StepsView): number {
  const entry = view.lastUserPosition >= 0 ? timeline.entries[view.lastUserPosition] : undefined;
  return entry?.kind === "user" ? askedRepeats(entry.text) : 0;
}

/** The check's answer for one call. */
export interface ToolLoopCheck {
  /** The call's run in its chain (1: not a repeat); 0 when it is not counted (ignored, a planning tool). */
  readonly runs: number;
  readonly action: ToolLoopAction;
}

/** The chain of `target` (an action of the step at `position`) in the newest `window` steps up to it; undefined: its first run. */
function chainOf(view: StepsView, position: number, window: number, target: Action): Chain | undefined {
  // No earlier action of the same key in the window: the first run, with nothing listed, walked or compared.
  if (!view.keyUsedSince(target, view.firstStepUpTo(position, window))) return undefined;
  return buildChains(view.stepsUpTo(position, window), view, target).last;
}

/**
 * Is the call at `call`, just finished, the `threshold`-th run of the same action with nothing
 * new in between? Reads the timeline up to the call's entry, at most {@link toolLoopSteps} steps back.
 *
 * @param call the call in the timeline of the newest {@link toolLoopHistoryLimit} messages.
 * @returns the call's run in its chain and what the guard does; never throws on any input.
 */
export function checkToolCall(call: CallInTimeline, settings: ToolLoopSettings): ToolLoopCheck {
  if (settings.toolLoop === "off") return { runs: 0, action: null };
  const { timeline, position: at, callIndex: k } = call;
  const view = new StepsView(new TimelineSteps(timeline), at, { ...settings, askingByResult: false });
  const step = view.stepAt(at);
  const entry = timeline.entries[at];
  const target = step && entry?.kind === "assistant" ? step.actions.find((action) => action.call === entry.toolCalls[k]) : undefined;
  if (!target) return { runs: 0, action: null };
  const runs = chainOf(view, at, toolLoopSteps(settings), target)?.count ?? 1;
  return { runs, action: toolLoopAction(runs, settings, askedIn(timeline, view)) };
}

/** One call of a session where the guard would have acted (`replay --json`'s `toolLoop` list). */
export interface ToolLoopEntry {
  /** The step holding the call: 1-based among the session's assistant messages that are not summaries (the charts' steps). */
  readonly step: number;
  readonly action: "warn" | "stop";
  /** The call's run in its chain. */
  readonly runs: number;
  /** The assistant message holding the call. */
  readonly messageID: string;
  readonly tool: string;
  /** Redacted one-line preview of its input (never the raw input). */
  readonly preview: string;
}

/**
 * Every call of a whole session where the guard would have acted, oldest first: `warn` at
 * each run from `threshold` on; with `toolLoop: "stop"`, `stop` once at `threshold + 2` (the
 * session would have ended there: the chain's later runs are left out). The same judgement
 * as {@link checkToolCall}, on the whole session's timeline (the hook reads only the newest
 * messages, so an action last done further back than that can count as new there).
 *
 * @param source the session's timeline, or its steps when a replay's decisions share them.
 * @param directory the project directory, for relative paths in previews.
 */
export function toolLoopsOf(source: Timeline | TimelineSteps, settings: ToolLoopSettings, directory?: string): ToolLoopEntry[] {
  if (settings.toolLoop === "off") return [];
  const found: ToolLoopEntry[] = [];
  const window = toolLoopSteps(settings);
  const steps = source instanceof TimelineSteps ? source : new TimelineSteps(source);
  const { timeline } = steps;
  const options = { ...settings, askingByResult: false };
  let view: StepsView | undefined;
  let stepNumber = 0;
  /** The chain already stopped (key and first run): its later runs would not have happened. */
  let stopped: string | undefined;
  const entryOf = (call: ToolCall, action: "warn" | "stop", runs: number, messageID: string): ToolLoopEntry => {
    return { step: stepNumber, action, runs, messageID, tool: call.tool, preview: previewCall(call.tool, call.input, directory) };
  };
  timeline.entries.forEach((entry, position) => {
    if (!isStep(entry)) return;
    stepNumber += 1;
    if (entry.toolCalls.length === 0) return;
    // Views of one stretch since the user's last message share what they judged new: one view per stretch.
    if (view === undefined || view.lastUserPosition !== steps.lastUser[position]) view = new StepsView(steps, position, options);
    const step = view.stepAt(position);
    if (step === undefined) return;
    const actions = step.actions;
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i]!;
      if (action.kind !== "tool" || action.call === null) continue;
      // The live guard refused this call: the stop happened here, whatever the settings replayed.
      const refused = refusedRuns(action.call);
      if (refused !== null) {
        found.push(entryOf(action.call, "stop", refused, entry.id));
        continue;
      }
      const chain = chainOf(view, position, window, action);
      const runs = chain?.count ?? 1;
      // Below the threshold nothing is done, whatever the user asked for.
      if (runs < settings.threshold) continue;
      const act = toolLoopAction(runs, settings, askedIn(timeline, view));
      if (act === null) continue;
      const chainKey = `${action.key}\u0000${chain?.firstPosition}`;
      if (chainKey === stopped) continue;
      if (act === "stop") stopped = chainKey;
      found.push(entryOf(action.call, act, runs, entry.id));
    }
  });
  return found;
}

/**
 * The error a call refused by the guard's `stop` mode carries (what the model reads), for a
 * call of `tool` that would have been run `runs` of its chain: the chain had already run
 * `runs − 1` times.
 */
export function refusalMessage(tool: string, runs: number): string {
  return (
    `${REFUSAL_START}${tool} call: the same call already returned the same result ${runs - 1} times in a row with nothing else done in between, ` +
    "and the session is being stopped. Tell the user what is blocking you instead of repeating it."
  );
}

/** How a refusal's error begins (see {@link refusalMessage}). */
const REFUSAL_START = "compaction-guard refused this ";
const REFUSAL = /^compaction-guard refused this \S+ call: the same call already returned the same result (\d+) times/;

/** The run of its chain a call refused by the live guard would have been, or null when the guard did not refuse it. */
export function refusedRuns(call: ToolCall): number | null {
  if (call.status !== "error" || typeof call.output !== "string" || !call.output.startsWith(REFUSAL_START)) return null;
  const runs = REFUSAL.exec(call.output)?.[1];
  return runs === undefined ? null : Number(runs) + 1;
}

/**
 * The notice appended to the output of a call that is the `runs`-th of its chain: what the
 * model reads after the tool's own output (which is kept). Starts with
 * {@link TOOL_LOOP_NOTICE_MARK}, so the rules leave it out when they compare outputs.
 */
export function toolLoopNotice(runs: number, stopping: boolean): string {
  return (
    `${TOOL_LOOP_NOTICE_MARK}This exact call has now returned the same result ${runs} times in a row, with nothing else done in between. ` +
    `Repeating it will not change the result: change your approach, or stop and tell the user what is blocking you.` +
    (stopping ? " The next identical call will be refused and the session stopped." : "")
  );
}

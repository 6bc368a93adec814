/**
 * Chains of one tool call: the same action (view.ts `StepsView.sameAction`: the same key and
 * the same result or failure, noise removed) run again and again with no new action between
 * one run and the next. repeated-tool-call counts them at a compaction; the tool-loop check
 * (./tool-loop.ts) counts the one the call just completed belongs to. One judgement, here.
 */
import type { Action, StepView, StepsView } from "./view.js";

/** One chain: the same tool call, run `count` times with nothing new in between. */
export interface Chain {
  /** Its first run. */
  readonly action: Action;
  /** How many times it ran (≥ 1). */
  count: number;
  /** How many new actions had been seen at the chain's last run. */
  newSeen: number;
  /** Positions (in the timeline's entries) of the steps of its first and last run. */
  readonly firstPosition: number;
  lastPosition: number;
  /** Ids of the assistant messages holding its runs, oldest first, each once. */
  readonly messageIDs: string[];
}

/**
 * Walks `steps` (oldest first) and builds the chains of their tool calls: a run extends the
 * latest chain of its key when it is the same action (result included) and no new action
 * (per `view.isNew`) came since that chain's last run; otherwise it starts a chain.
 *
 * @param until stop right after this action (the one just completed): `last` is then its chain.
 * @returns every chain in order of its first run, the chain of the last tool call walked, and
 *   how many new actions were seen in all (a chain whose `newSeen` is less was followed by new work).
 *   Cost: when every key in `steps` is distinct (a chain needs two runs of one key) no action is
 *   judged new (no output is read).
 */
export function buildChains(
  steps: readonly StepView[],
  view: Pick<StepsView, "isNew" | "sameAction" | "keyOf" | "keyUsedSince">,
  until?: Action,
): { readonly chains: readonly Chain[]; readonly last: Chain | undefined; readonly newSeen: number } {
  const repeat = keysRepeat(steps, view);
  const latest = new Map<Action, Chain>();
  const chains: Chain[] = [];
  let last: Chain | undefined;
  let newSeen = 0;
  // Indexed loops: a replay walks thousands of windows, most of them before V8 optimises this.
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s]!;
    const actions = step.actions;
    for (let a = 0; a < actions.length; a++) {
      const action = actions[a]!;
      if (repeat && view.isNew(action)) newSeen += 1;
      if (action.kind !== "tool") continue;
      let chain = latest.get(view.keyOf(action));
      if (chain && chain.newSeen === newSeen && view.sameAction(chain.action, action)) {
        chain.count += 1;
        chain.lastPosition = step.position;
        if (chain.messageIDs.at(-1) !== step.entry.id) chain.messageIDs.push(step.entry.id);
      } else {
        chain = oneRun(step, action, newSeen);
        latest.set(view.keyOf(action), chain);
        chains.push(chain);
      }
      chain.newSeen = newSeen;
      last = chain;
      if (action === until) return { chains, last, newSeen };
    }
  }
  return { chains, last, newSeen };
}

/**
 * Does the key of a tool call run twice in `steps`? When it does not, every chain in them is
 * one run long. The steps are consecutive, so a key repeats in them when a tool call's key
 * was used since the first of them. No output is read.
 */
function keysRepeat(steps: readonly StepView[], view: Pick<StepsView, "keyUsedSince">): boolean {
  const first = steps[0]?.position ?? 0;
  for (let s = 0; s < steps.length; s++) {
    const actions = steps[s]!.actions;
    for (let a = 0; a < actions.length; a++) if (actions[a]!.kind === "tool" && view.keyUsedSince(actions[a]!, first)) return true;
  }
  return false;
}

/** The chain of one run: `action`, in `step`, with `newSeen` new actions seen before it. */
export function oneRun(step: StepView, action: Action, newSeen = 0): Chain {
  return { action, count: 1, newSeen, firstPosition: step.position, lastPosition: step.position, messageIDs: [step.entry.id] };
}

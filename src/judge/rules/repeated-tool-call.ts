/**
 * Rule repeated-tool-call: the model re-emits, after a compaction, the tool call it made
 * before it, with nothing new in between. opencode's doom-loop check (session/processor.ts,
 * DOOM_LOOP_THRESHOLD = 3) reads only the current assistant message, so a repeat across
 * cycles is never seen (opencode#25254), nor an A,B,A,B cycle (opencode#47759); this rule
 * counts chains across messages (../chains.ts). It learned from openclaw (same call *and*
 * same result), Cline (new work resets) and Codex (only a real user message resets);
 * evidence wholly on one side of a compaction does not deny (docs/how-it-decides.md).
 */
import { buildChains, oneRun, type Chain } from "../chains.js";
import { previewCall } from "../../redact/preview.js";
import { compactionBetween, type DecisionView, type StepView } from "../view.js";
import { decimal, spec } from "../../shared/setting.js";
import { lazily, zod } from "../../shared/zod.js";
import { rearmedAfterStop } from "../rearm.js";
import { defineRule } from "./rule.js";
import { REPLY } from "../words.js";

/** What the rule saw: the longest chain of one tool call in the window. */
export interface RepeatedToolCallEvidence {
  /** Tool name of that call; null when the window holds no tool call. */
  readonly tool: string | null;
  /** Redacted one-line preview of its input (never the raw input). */
  readonly preview: string | null;
  /** How many times it ran with no new work in between (its chain's length). */
  readonly count: number;
  readonly threshold: number;
  /** Whether outputs were part of "the same call" (the `matchOutput` setting). */
  readonly matchOutput: boolean;
  /** The chain runs across a compaction (before it and after it). */
  readonly acrossCompaction: boolean;
  /** Steps read (≤ window; fewer after a real user message). */
  readonly messagesRead: number;
  /** Ids of the assistant messages holding the chain's calls, oldest first. */
  readonly messageIDs: readonly string[];
  /** New actions came after the chain's last run: the model moved on, and the chain no longer denies. */
  readonly movedOn: boolean;
  /**
   * The chain is a check (a test run, a build, a linter) re-run with only reads between its
   * runs and no effect since the first, across two compactions (see {@link checkRunIn}).
   */
  readonly readsBetween: boolean;
}

/**
 * The longest run, in the cycle just ended, of a check asked `threshold` times or more with
 * the same answer and no effect since its first run, which came before compaction k−2: three
 * asks over two compactions with nothing changed, and no effect after the last. Reads between the runs
 * do not matter: only an effect can change a check's answer.
 */
function checkRunIn(view: DecisionView, threshold: number): Chain | undefined {
  const [twoBefore] = view.recentCompactions(3);
  if (!view.previous || twoBefore === view.previous || twoBefore === view.compaction || view.userSteppedIn) return undefined;
  let best: Chain | undefined;
  for (const step of view.cycle) {
    for (const action of step.actions) {
      // An effect after a run may have changed what the check reads: that run is over.
      const { brought, run } = view.judgementOf(action);
      if (brought === "effect") best = undefined;
      if (!run || run.count < threshold || run.firstPosition >= twoBefore!.position) continue;
      if (best && best.count > run.count) continue;
      best = { ...oneRun(step, action), count: run.count, firstPosition: run.firstPosition, messageIDs: [...run.messageIDs] };
    }
  }
  return best;
}

/**
 * The strongest chain of `steps`: one that fires first, then the longest, then the most
 * recent (when no key repeats in them, the latest call's one run).
 */
function strongest(
  steps: readonly StepView[],
  view: DecisionView,
  threshold: number,
): { readonly best: Chain | undefined; readonly fires: boolean; readonly newSeen: number } {
  const { chains, newSeen } = buildChains(steps, view);
  let best: Chain | undefined;
  let bestFires = false;
  for (let i = 0; i < chains.length; i++) {
    const chain = chains[i]!;
    const chainFires = chain.count >= threshold && across(view, chain) && chain.newSeen === newSeen;
    const stronger =
      best === undefined ||
      (chainFires && !bestFires) ||
      (chainFires === bestFires && (chain.count > best.count || (chain.count === best.count && chain.lastPosition >= best.lastPosition)));
    if (stronger) {
      best = chain;
      bestFires = chainFires;
    }
  }
  return { best, fires: bestFires, newSeen };
}

/** Does the chain run across a compaction (its first run before one, its last after)? */
const across = (view: DecisionView, chain: Chain): boolean =>
  compactionBetween(view.timeline.compactions, chain.firstPosition, chain.lastPosition);

/**
 * Fires when one tool call (same tool, canonical input, ending and normalised result; an
 * errored call counts, failing the same way) runs `threshold` times within the last
 * `window` steps since the user's last message, with no new action between one run and the
 * next nor after the last one, and the runs lie on both sides of a compaction. A chain
 * followed by new work is a loop the model already left: its continue turn is not the next
 * round of it. Also fires on a check re-run with only reads between across two compactions
 * ({@link checkRunIn}). Reports the longest chain; ties go to the one seen most recently.
 */
export const repeatedToolCall = defineRule({
  name: "repeated-tool-call",
  severity: "warning",
  settings: {
    window: spec({
      schema: lazily(() => zod().number().int().min(1).max(1000)),
      default: 8,
      expected: "an integer from 1 to 1000",
      env: "OPENCODE_COMPACTION_GUARD_WINDOW",
      flag: "window",
      help: "recent steps repeated-tool-call reads",
      fromText: decimal,
    }),
  },
  /** Four messages for each step of the window. */
  history: (settings) => 4 * settings.window,
  check(view, { settings, directory, usable }) {
    const steps = view.stepsUpTo(view.end, settings.window);
    const { best, fires: found, newSeen } = strongest(steps, view, settings.threshold);
    // After a stop that a fitting step released, repeats from before it no longer count.
    const rearmed = rearmedAfterStop(view, usable);
    const check = found || rearmed ? undefined : checkRunIn(view, settings.threshold);
    // The chain reported: the check re-run when one fires so, else the strongest (none when the window holds no tool call).
    const chain = check ?? best;
    const call = chain?.action.call;
    const evidence: RepeatedToolCallEvidence = {
      tool: call?.tool ?? null,
      preview: call ? previewCall(call.tool, call.input, directory) : null,
      count: chain?.count ?? 0,
      threshold: settings.threshold,
      matchOutput: settings.matchOutput,
      acrossCompaction: check !== undefined || (best !== undefined && across(view, best)),
      messagesRead: steps.length,
      messageIDs: chain?.messageIDs ?? [],
      movedOn: check === undefined && best !== undefined && best.newSeen !== newSeen,
      readsBetween: check !== undefined,
    };
    return { fired: check !== undefined || (found && !rearmed), evidence };
  },
  words: {
    explain: (e) =>
      e.readsBetween
        ? `the same check, ${e.tool} (${e.preview}), ran ${e.count} times${e.matchOutput ? " with the same result" : ""} across two compactions ` +
          `with only reads between its runs, and nothing changed that could change its result`
        : `the same ${e.tool} call (${e.preview}) ran ${e.count} times${e.matchOutput ? " with the same result" : ""} and nothing new in between, ` +
          `before and after a compaction (last ${e.messagesRead} assistant messages since your last message)`,
    short: (e) => `the same ${e.tool} call ran ${e.count} times`,
    nextStep: () => `${REPLY}, or add the call to the guard's ignore setting if it repeats on purpose.`,
  },
});

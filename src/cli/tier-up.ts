/**
 * How soon V8 optimises the executable's code. Most replays and audits are over in well
 * under a second, and with V8's own budget its optimising compiler (TurboFan) spends more
 * on the small functions a replay calls thousands of times than they then save: on a 10,000
 * message export with a compaction every 4 messages, a replay took 1.68× a bare parse of
 * the file with it and 1.51× with a budget four times V8's (docs/performance.md). Code that
 * stays hot, as in a replay of 50,000 messages, is still optimised, and as soon.
 */
import { builtin } from "../shared/builtin.js";

/**
 * V8's interrupt budget for the executable: how much bytecode (bytes) a function runs before
 * V8 considers optimising it. Four times the default of Node.js 20's V8 (11.3: 67,584).
 */
export const INTERRUPT_BUDGET = 4 * 67_584;

/**
 * Sets V8's interrupt budget to {@link INTERRUPT_BUDGET}, unless the user set one in Node's
 * options (`node --interrupt-budget=…`, or `NODE_OPTIONS`). Only the executable calls this:
 * the plugin runs in opencode's own process, whose flags are not the guard's to change.
 * Never throws: a runtime that refuses the flag keeps its own.
 *
 * @param execArgv Node's own options (`process.execArgv`); @param nodeOptions `NODE_OPTIONS`.
 * @param setFlags `v8.setFlagsFromString`.
 * @returns whether the budget was set.
 */
export function raiseInterruptBudget(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
  setFlags: (flags: string) => void = (flags) => builtin<typeof import("node:v8")>("node:v8").setFlagsFromString(flags),
): boolean {
  // The flag itself (`=N` or ` N`), not the longer V8 flags whose names begin with it.
  const userSet = (text: string) => /--interrupt[-_]budget(?=[=\s]|$)/.test(text);
  if (execArgv.some(userSet) || userSet(nodeOptions ?? "")) return false;
  try {
    setFlags(`--interrupt-budget=${INTERRUPT_BUDGET}`);
    return true;
  } catch {
    return false;
  }
}

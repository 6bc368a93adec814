/**
 * The executable raises V8's interrupt budget (cli/tier-up.ts), unless the user set one, and
 * never fails for it. That the flag takes effect is measured by the bench (docs/performance.md).
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { INTERRUPT_BUDGET, raiseInterruptBudget } from "../../src/cli/tier-up.js";

describe("raiseInterruptBudget", () => {
  it("sets four times Node 20's budget when the user set none", () => {
    const set: string[] = [];
    expect(raiseInterruptBudget([], undefined, (flags) => set.push(flags))).toBe(true);
    expect(set).toEqual(["--interrupt-budget=270336"]);
    expect(INTERRUPT_BUDGET).toBe(270_336);
  });

  it("keeps a budget set on node's command line or in NODE_OPTIONS, in either spelling", () => {
    const set: string[] = [];
    const record = (flags: string) => set.push(flags);
    expect(raiseInterruptBudget(["--interrupt-budget=1000"], undefined, record)).toBe(false);
    expect(raiseInterruptBudget([], "--max-old-space-size=512 --interrupt_budget=1000", record)).toBe(false);
    expect(set).toEqual([]);
    expect(raiseInterruptBudget(["--interrupt-budget", "1000"], undefined, record)).toBe(false);
    expect(set).toEqual([]);
    // Other options are not a budget, nor the V8 flags whose names begin with its name.
    expect(raiseInterruptBudget(["--max-old-space-size=512"], "--no-warnings", record)).toBe(true);
    expect(raiseInterruptBudget(["--interrupt-budget-for-feedback-allocation=940"], undefined, record)).toBe(true);
    expect(raiseInterruptBudget([], "--interrupt-budget-factor-for-feedback-allocation=8", record)).toBe(true);
    expect(set).toEqual(["--interrupt-budget=270336", "--interrupt-budget=270336", "--interrupt-budget=270336"]);
  });

  it("does not throw when the runtime refuses the flag", () => {
    const refuse = () => {
      throw new Error("flags are frozen");
    };
    expect(raiseInterruptBudget([], undefined, refuse)).toBe(false);
  });

  it("is accepted by this Node.js: the flag is set, and the process runs on", () => {
    const script = `import("${new URL("../../src/cli/tier-up.ts", import.meta.url).pathname}").then((m) => console.log(m.raiseInterruptBudget([], undefined)))`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "-e", script], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe("true");
  });
});

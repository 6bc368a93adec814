/**
 * The stop names the culprit, in the real opencode 1.18.33 (`opencode run`): big-tail-counted
 * prints the same `seq 1 3000` every step, and opencode keeps that output in the compaction's
 * tail. Compaction 1 cuts the context by at best 36% (predicted: 15,303 → at least ~9,700
 * tokens); with `minReduction` 0.4 that is too little, so the guard stops there by
 * cannot-make-room, and its note in the session names the kept `seq` call with its tokens,
 * the sizes (left after compaction, usable, trigger) and one remedy: opencode keeps more
 * recent output than what is left can hold, so keep less (`compaction.preserve_recent_tokens`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScenario, type ScenarioRun } from "./harness.js";
import { lastNote } from "./guard-command-flow.js";
import { createSandbox, type Sandbox } from "./sandbox.js";
import { BIG_TAIL_RANGE } from "./scenarios.js";

let run: ScenarioRun;
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await createSandbox();
  run = await runScenario({ scenario: "big-tail-counted", guard: true, sandbox, replay: true, pluginOptions: { minReduction: 0.4 } });
});

afterAll(async () => {
  await sandbox?.dispose();
});

describe("a stop that cannot make room, in opencode run", () => {
  it("stops at compaction 1 by cannot-make-room", () => {
    expect([run.exitCode, run.timedOut]).toEqual([0, false]);
    expect(run.decisions.map((d) => [d.index, d.decision, d.rule])).toEqual([[1, "deny", "cannot-make-room"]]);
  });

  it("the note names the kept seq call, its tokens, the sizes and one remedy", () => {
    const lines = lastNote(run.export!).split("\n");
    const kept = lines.find((l) => l.startsWith("Kept by compaction: "));
    expect(kept).toMatch(
      new RegExp(
        `^Kept by compaction: bash seq 1 ${BIG_TAIL_RANGE} \\((\\d+ runs, )?~[\\d,]+ tokens\\).*; left after compaction at least [\\d,]+ tokens, usable 14,000 tokens, trigger [\\d,]+ tokens\\.$`,
      ),
    );
    // At 4 characters a token, more than the prediction's lower bound of the kept tail (one token a word).
    const first = Number(/~([\d,]+) tokens/.exec(kept!)![1]!.replace(/,/g, ""));
    const predicted = (run.replay!.compactions[0]!.evidence as Record<string, { tailTokens: number }>)["cannot-make-room"]!;
    expect(first).toBeGreaterThan(predicted.tailTokens);
    expect(lines.find((l) => l.startsWith("Fix: "))).toBe(
      `Fix: lower compaction.preserve_recent_tokens in opencode.json: compaction now keeps ~${first.toLocaleString("en-US")} tokens of recent tool calls verbatim.`,
    );
    // Never the output itself.
    expect(lastNote(run.export!)).not.toContain(`${BIG_TAIL_RANGE - 1}\n${BIG_TAIL_RANGE}`);
  });

  it("replay's JSON carries the same culprits in the verdict's evidence", () => {
    const denied = run.replay!.compactions.find((d) => d.decision === "deny")!;
    expect((denied.evidence as Record<string, unknown>)["cannot-make-room"]).toMatchObject({
      stalled: "reduction-below-minimum",
      culprits: { items: [{ tool: "bash", preview: `seq 1 ${BIG_TAIL_RANGE}`, runs: 1 }], remedy: "keep-less" },
    });
  });
});

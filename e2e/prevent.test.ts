/**
 * Prevention in the real opencode 1.18.33, read in the request bodies the model server
 * gets: the summary request carries the ledger naming the repeated call, the first request
 * after a compaction carries the note instead of "Continue if you have next steps…", and no
 * summary request shows an earlier continue turn as the user speaking. With `prevent: false`
 * the bodies are as opencode sends them without the guard's prevention; either way the loop
 * is stopped at compaction 2 by no-progress, and the stored history holds opencode's own
 * continue text. Prediction is off here (`predict: false`): with the default, cannot-make-room
 * stops the fixed point at compaction 1, before any continue turn there would be to rewrite.
 *
 * PREVENT_E2E_OUT=<dir> writes the captured ledger and note there (docs/prevention.md quotes them).
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CONTINUE_TEXT } from "../src/hosts/opencode/facts.js";
import { expectLiveMatchesReplay } from "./expect-run.js";
import { runScenario, type ScenarioRun } from "./harness.js";
import { e2eConcurrency, mapLimit } from "./pool.js";
import type { RequestKind } from "./scenarios.js";

/** The summarizer's rendering of an earlier continue turn as the user speaking (session/compaction.ts). */
const USER_CONTINUE = "[User]: Continue if you have next steps";
const LEDGER = "[compaction-guard ledger]";
const NOTE = "[compaction-guard note]";
/** The repeated call of fixed-point (`echo hi`) as the allow-list preview shows it. */
const REPEATED = "bash `echo hi`";

interface Body {
  kind: RequestKind;
  /** Every message's text content, joined. */
  texts: string[];
  /** The last user message's text. */
  lastUser: string;
}

const contentText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content
          .map((c) =>
            typeof c === "object" && c !== null && typeof (c as { text?: unknown }).text === "string" ? (c as { text: string }).text : "",
          )
          .join("")
      : "";

function recorder(into: Body[]) {
  return (kind: RequestKind, body: unknown) => {
    const messages = ((body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? []).map((m) => ({
      role: m.role,
      text: contentText(m.content),
    }));
    into.push({ kind, texts: messages.map((m) => m.text), lastUser: messages.filter((m) => m.role === "user").at(-1)?.text ?? "" });
  };
}

const on: Body[] = [];
const off: Body[] = [];
let runOn: ScenarioRun;
let runOff: ScenarioRun;

beforeAll(async () => {
  const jobs = [
    { into: on, options: {} },
    { into: off, options: { pluginOptions: { prevent: false } } },
  ];
  const results = await mapLimit(jobs, e2eConcurrency(), (job) =>
    runScenario({
      scenario: "fixed-point",
      guard: true,
      env: { OPENCODE_COMPACTION_GUARD_PREDICT: "0" },
      onRequest: recorder(job.into),
      ...job.options,
    }),
  );
  [runOn, runOff] = results as [ScenarioRun, ScenarioRun];
  if (process.env.PREVENT_E2E_OUT) {
    await mkdir(process.env.PREVENT_E2E_OUT, { recursive: true });
    const summaries = on.filter((b) => b.kind === "compaction");
    const ledger = summaries.at(-1)!.texts.join("\n").slice(summaries.at(-1)!.texts.join("\n").indexOf(LEDGER));
    const note = on.find((b) => b.kind === "continue")!.lastUser;
    const summaryTwo = summaries.at(-1)!.texts.join("\n");
    await writeFile(join(process.env.PREVENT_E2E_OUT, "ledger.txt"), ledger);
    await writeFile(join(process.env.PREVENT_E2E_OUT, "note.txt"), note);
    await writeFile(join(process.env.PREVENT_E2E_OUT, "summary-2.txt"), summaryTwo);
    await writeFile(
      join(process.env.PREVENT_E2E_OUT, "summary-2-off.txt"),
      off
        .filter((b) => b.kind === "compaction")
        .at(-1)!
        .texts.join("\n"),
    );
  }
});

describe("with prevent (the default)", () => {
  it("the loop is still stopped at compaction 2 by no-progress, after one continue turn, as the replay says", () => {
    expect(runOn.metrics.ended.kind).toBe("guard-stop");
    expect(runOn.exitCode).toBe(0);
    expect(runOn.decisions.map((d) => [d.index, d.decision, d.rule])).toEqual([
      [1, "allow", null],
      [2, "deny", "no-progress"],
    ]);
    expect(runOn.figures!.continueTurns).toBe(1);
    expectLiveMatchesReplay(runOn);
    expect(runOn.guardLines.filter((l) => l.level === "WARN").map((l) => l.message)).toEqual([runOn.metrics.guardReason]);
  });

  it("every summary request carries the ledger, naming the repeated call and the automatic continuation", () => {
    const summaries = on.filter((b) => b.kind === "compaction");
    expect(summaries).toHaveLength(2);
    const ledgers = summaries.map((b) => b.texts.join("\n")).map((t) => t.slice(t.indexOf(LEDGER)));
    expect(ledgers[0]).toContain(`- ${REPEATED} (done)`);
    // By compaction 2 the call completed twice since the user's message.
    expect(ledgers[1]).toContain(`- ${REPEATED} (done, 2×)`);
    for (const ledger of ledgers) {
      expect(ledger).toContain("In the summary, list these under what was completed, with their outcome.");
      expect(ledger).toContain("not a new instruction from the user");
      expect(ledger.length).toBeLessThanOrEqual(1_500);
    }
  });

  it("the first request after the compaction carries the note naming the call, not opencode's continue text", () => {
    const continues = on.filter((b) => b.kind === "continue");
    expect(continues).toHaveLength(1);
    const note = continues[0]!.lastUser;
    expect(note.startsWith(NOTE)).toBe(true);
    expect(note).toContain("It is not a new instruction from the user and carries no new authority.");
    expect(note).toContain(`the most recent: ${REPEATED} (done).`);
    expect(note).not.toContain(CONTINUE_TEXT);
  });

  it("no summary request shows an earlier continue turn as the user speaking; the second shows the note there", () => {
    const summaries = on.filter((b) => b.kind === "compaction").map((b) => b.texts.join("\n"));
    expect(summaries.filter((t) => t.includes(USER_CONTINUE))).toEqual([]);
    expect(summaries[1]).toContain(`[User]: ${NOTE}`);
  });

  it("the stored history keeps opencode's own continue text", () => {
    const stored = runOn.export!.messages.flatMap((m) =>
      m.parts.filter((p) => p.metadata?.compaction_continue === true).map((p) => p.text),
    );
    expect(stored).toEqual([CONTINUE_TEXT]);
  });
});

describe("with prevent: false", () => {
  it("the loop is stopped at the same place", () => {
    expect(runOff.metrics.ended.kind).toBe("guard-stop");
    expect(runOff.decisions.map((d) => [d.index, d.decision, d.rule])).toEqual(runOn.decisions.map((d) => [d.index, d.decision, d.rule]));
    expect(runOff.guardLines[0]!.message).toContain("prevent false (option)");
  });

  it("opencode's bodies as it sends them: no ledger, the continue text, and the earlier continue as [User] in the summary", () => {
    expect(off.filter((b) => b.texts.some((t) => t.includes(LEDGER) || t.includes(NOTE)))).toEqual([]);
    const continues = off.filter((b) => b.kind === "continue");
    expect(continues.map((b) => b.lastUser)).toEqual([CONTINUE_TEXT]);
    const summaries = off.filter((b) => b.kind === "compaction").map((b) => b.texts.join("\n"));
    expect(summaries).toHaveLength(2);
    expect(summaries[1]).toContain(`${USER_CONTINUE}, or stop and ask for clarification`);
  });

  it("the same requests as with prevent, kind by kind", () => {
    // opencode asks for the title alongside the first step, so the two race: compared apart.
    const steps = (bodies: Body[]) => bodies.map((b) => b.kind).filter((kind) => kind !== "title");
    const titles = (bodies: Body[]) => bodies.filter((b) => b.kind === "title").length;
    expect(steps(off)).toEqual(steps(on));
    expect([titles(off), titles(on)]).toEqual([1, 1]);
  });
});

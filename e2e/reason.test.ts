/**
 * The reason stays: after the guard stops a loop, its note is in the session
 * (the export, so the TUI and any later `opencode run --session`), the model never reads
 * it, and it changes nothing the guard decides next: the user's reply re-arms the guard,
 * the note does not. The real opencode 1.18.33, the fixed-point loop stopped at compaction 2,
 * then a real reply in the same session (`opencode run --session <id> "…"`). Prediction is
 * off here (`predict: false`), so that the loop gets a continue turn and both turns are
 * stopped by no-progress; with the default, cannot-make-room stops it at 1 with the same note.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTimeline } from "../src/hosts/opencode/v1.js";
import { expectHookTimes, expectLiveMatchesReplay, type DecisionTriple } from "./expect-run.js";
import { runScenario, type ScenarioRun } from "./harness.js";
import { replayExport } from "./replay.js";
import { MODEL_LIMITS, type RequestKind } from "./scenarios.js";
import { isGuardNote, type ExportMessage, type SessionExport } from "./session-export.js";

/** The real user message of the second turn (opencode 1.18.33 stores a `run` message in double quotes). */
const REPLY = "go on, but check first whether the last run already printed hi";
const isReply = (p: { text?: string }): boolean => p.text?.includes(REPLY) === true;
/** The first line of every note starts so (src/guard/notices.ts, stopRecord). */
const NOTE_START = "Compaction loop stopped by compaction-guard after compaction";

/** cannot-make-room off, as this file's runs and replays have it. */
const PREDICT_OFF = { OPENCODE_COMPACTION_GUARD_PREDICT: "0" };
let run: ScenarioRun;
const bodies: Array<{ kind: RequestKind; text: string }> = [];
let scratch: string;

beforeAll(async () => {
  run = await runScenario({
    scenario: "fixed-point",
    guard: true,
    env: PREDICT_OFF,
    followUp: REPLY,
    onRequest: (kind, body) => bodies.push({ kind, text: JSON.stringify(body) }),
  });
  scratch = await mkdtemp(join(tmpdir(), "ocg-reason-"));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const notesOf = (exp: SessionExport): ExportMessage[] => exp.messages.filter((m) => m.info.role === "user" && m.parts.some(isGuardNote));
const triples = (decisions: ScenarioRun["decisions"]): DecisionTriple[] => decisions.map((d) => [d.index, d.decision, d.rule]);

/** Replays an export (written to a scratch file) with the run's model limits. */
async function replay(exp: SessionExport, name: string) {
  const path = join(scratch, name);
  await writeFile(path, JSON.stringify(exp));
  return replayExport(path, { limits: { ...MODEL_LIMITS }, env: PREDICT_OFF });
}

describe("after the deny (the first `opencode run`)", () => {
  it("the loop is stopped at compaction 2 as before, and nothing follows its summary but the guard's note", () => {
    expect(run.timedOut).toBe(false);
    expect(run.exitCode).toBe(0);
    expect(run.metrics.ended.kind).toBe("guard-stop");
    expect(triples(run.decisions)).toEqual([
      [1, "allow", null],
      [2, "deny", "no-progress"],
    ]);
    expect(run.decisions.map((d) => d.level)).toEqual(["INFO", "WARN"]);
    expect(run.figures!.compactions.map((c) => [c.index, c.summaryOk, c.next, c.hookCalled])).toEqual([
      [1, true, "continue", true],
      [2, true, "none", true],
    ]);
    expectLiveMatchesReplay(run);
    expectHookTimes(run);
    const messages = run.export!.messages;
    const summary = messages.map((m) => m.info.role === "assistant" && m.info.summary === true).lastIndexOf(true);
    expect(messages.slice(summary + 1)).toEqual(notesOf(run.export!));
    expect(run.figures!.guardNotes).toBe(1);
    expect(run.figures!.realUserTurns).toBe(1);
  });

  it("the note names the session, the rule, the evidence of the warn line and the next step", () => {
    const note = notesOf(run.export!)[0]!;
    expect(note.parts).toHaveLength(1);
    const part = note.parts[0]!;
    // Shown to the user, never sent to the model; not marked synthetic (the TUI hides those).
    expect(part).toMatchObject({ type: "text", ignored: true });
    expect(part.synthetic).not.toBe(true);
    const denied = run.figures!.compactions.at(-1)!;
    expect(part.metadata).toEqual({
      compaction_guard: { note: "loop-stopped", rule: "no-progress", compactionMessageID: denied.messageID },
    });
    // The culprit lines (what compaction keeps, and a fix) stand between the reason and the next step.
    const [first, session, why, kept, ...rest] = part.text!.split("\n");
    const [next, whose] = rest.slice(-2);
    expect(kept).toMatch(/^Kept by compaction: .*left after compaction [\d,]+ tokens, usable [\d,]+ tokens, trigger [\d,]+ tokens\.$/);
    expect(first).toBe(`${NOTE_START} 2: opencode did not send its automatic continue message, so the model stopped.`);
    // Named by its title once opencode has one (the scripted title answer comes first).
    expect([`Session: "Fake title" (${run.sessionID})`, `Session: ${run.sessionID}`]).toContain(session);
    // The evidence sentence and the next step are the warn line's own.
    const warn = run.metrics.guardReason!;
    const evidence = /^Why \(no-progress\): (.+)\.$/.exec(why!)![1]!;
    expect(evidence).toMatch(/^the previous compaction left /);
    expect(warn).toContain(`: no-progress: ${evidence}. `);
    expect(next).toMatch(/^Next: Reply to continue/);
    expect(warn.endsWith(next!.slice("Next: ".length))).toBe(true);
    expect(whose).toBe("(A note from the compaction-guard plugin: not your message, and not sent to the model.)");
  });

  it("keeps the session's agent and model, starts no model turn and calls no hook", () => {
    const note = notesOf(run.export!)[0]!;
    const prompt = run.export!.messages[0]!;
    expect(note.info).toMatchObject({ agent: prompt.info.agent, model: (prompt.info as { model?: unknown }).model });
    // The last request of the run is the denied compaction's summary; one decision per compaction.
    expect(run.requests.at(-1)!.kind).toBe("compaction");
    expect(run.requests.filter((r) => r.kind !== "title").map((r) => r.kind)).toEqual(["chat", "compaction", "continue", "compaction"]);
    expect(run.decisions).toHaveLength(run.figures!.compactionCycles);
  });

  it("is written once the session is idle, so `opencode run` (which stops reading there) does not print it", () => {
    expect(run.stdout).not.toContain(NOTE_START);
  });
});

describe("a real reply afterwards (`opencode run --session <id>`)", () => {
  const second = () => run.followUp!;

  it("re-arms the guard: the new turn's first compaction is allowed, its second is stopped with a second note", () => {
    expect(second().timedOut).toBe(false);
    expect(second().exitCode).toBe(0);
    expect(triples(second().decisions)).toEqual([
      [3, "allow", null],
      [4, "deny", "no-progress"],
    ]);
    expect(second().decisions.map((d) => d.level)).toEqual(["INFO", "WARN"]);
    expect(second().figures.guardNotes).toBe(2);
    expect(second().figures.realUserTurns).toBe(2);
    expect(
      second()
        .requests.filter((r) => r.kind !== "title")
        .map((r) => r.kind),
    ).toEqual(["chat", "compaction", "continue", "compaction"]);
  });

  it("the guard reads the note as no one speaking and the reply as the user: live and replay agree on all four compactions", async () => {
    const exp = second().export;
    const timeline = buildTimeline(exp.messages);
    const roles = exp.messages.flatMap((m, i) =>
      m.info.role === "user" && !m.parts.some((p) => p.type === "compaction") ? [[timeline.entries[i], m] as const] : [],
    );
    const noteRoles = roles.filter(([, m]) => m.parts.some(isGuardNote)).map(([e]) => e?.kind === "user" && e.role);
    const replyRoles = roles.filter(([, m]) => m.parts.some(isReply)).map(([e]) => e?.kind === "user" && e.role);
    expect(noteRoles).toEqual(["synthetic", "synthetic"]);
    expect(replyRoles).toEqual(["real"]);
    const replayed = second().replay!;
    expect(replayed.compactions.map((c): DecisionTriple => [c.index, c.decision, c.rule])).toEqual(
      triples([...run.decisions, ...second().decisions]),
    );
  });

  it("the note alone re-arms nothing: without the reply the guard would have stopped at compaction 3; without the note it decides the same", async () => {
    const exp = second().export;
    // The same session with the reply turned into a message no one wrote (all parts synthetic).
    const noReply: SessionExport = {
      ...exp,
      messages: exp.messages.map((m) => (m.parts.some(isReply) ? { ...m, parts: m.parts.map((p) => ({ ...p, synthetic: true })) } : m)),
    };
    const withoutReply = await replay(noReply, "no-reply.json");
    expect(withoutReply.compactions.map((c) => [c.index, c.decision, c.rule])).toEqual([
      [1, "allow", null],
      [2, "deny", "no-progress"],
      [3, "deny", "no-progress"],
      [4, "deny", "no-progress"],
    ]);
    // The same session without the notes: the same decisions as with them.
    const noNotes: SessionExport = { ...exp, messages: exp.messages.filter((m) => !m.parts.some(isGuardNote)) };
    const withoutNotes = await replay(noNotes, "no-notes.json");
    expect(withoutNotes.compactions.map((c) => [c.index, c.decision, c.rule])).toEqual(
      second().replay!.compactions.map((c) => [c.index, c.decision, c.rule]),
    );
  });

  it("the model never reads a note: no request opencode sent holds its text, while the reply reaches the model", () => {
    expect(bodies.length).toBe(run.requests.length + second().requests.length);
    expect(bodies.filter((b) => b.text.includes(NOTE_START))).toEqual([]);
    expect(bodies.some((b) => b.kind === "chat" && b.text.includes(REPLY))).toBe(true);
  });
});

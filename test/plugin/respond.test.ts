/**
 * The one response to a verdict (src/guard/respond.ts), for both ways a runtime stops a loop:
 * what is halted, logged, toasted and noted, by mode, notify setting and severity.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, type GuardSettings } from "../../src/config/settings.js";
import { replayMessages } from "../../src/core.js";
import type { Verdict } from "../../src/judge/verdict.js";
import type { GuardHost, StopKind } from "../../src/guard/host.js";
import { allowLogMessage, sessionLabel, stopLogMessage, stopRecord } from "../../src/guard/notices.js";
import { respond } from "../../src/guard/respond.js";
import { responsesOf, responseTo } from "../../src/guard/decision.js";
import { bash, SessionBuilder } from "../support/session.js";
import { OPENCODE_V2_WORDS, OPENCODE_WORDS } from "../../src/hosts/opencode/words.js";

/** The words of the opencode runtime that stops a loop by `stop`. */
const hostOf = (stop: StopKind) => (stop === "interrupt" ? OPENCODE_V2_WORDS : OPENCODE_WORDS);

const SESSION = "ses_r";

/** The verdicts at the last compaction of three sessions: a loop (no-progress), housekeeping (turn-finished), and an allowed one. */
function verdicts(): Record<"loop" | "housekeeping" | "allowed", Verdict> {
  const loop = new SessionBuilder(SESSION).user();
  loop.step({ tool: "read", input: { filePath: "a" } }, 10_000).compact();
  loop.step({ tool: "read", input: { filePath: "b" } }, 9_500).compact();
  const allowed = new SessionBuilder(SESSION).user();
  allowed.step({ tool: "read", input: { filePath: "a" } }, 10_000).compact();
  allowed.step({ tool: "read", input: { filePath: "b" } }, 5_000).compact();
  const finished = new SessionBuilder(SESSION).user().step(bash("ls"), null).say("Done: 3 files listed.", null).compact();
  const last = (s: SessionBuilder) => replayMessages(s.messages, { ...DEFAULT_SETTINGS }).at(-1)!;
  return { loop: last(loop), housekeeping: last(finished), allowed: last(allowed) };
}
const VERDICTS = verdicts();

/** A host that records every call, in order; `fail` makes halt or note throw. */
function recorder(stop: StopKind, fail: { halt?: boolean; note?: boolean } = {}) {
  const calls: string[] = [];
  const host: GuardHost = {
    stop,
    words: hostOf(stop),
    log: async (level, message) => void calls.push(`log ${level} ${message}`),
    toast: async (body) => void calls.push(`toast ${body.variant} ${body.title}`),
    halt: (id) => {
      if (fail.halt) throw new Error("interrupt refused");
      calls.push(`halt ${id}`);
    },
    note: (id, text) => {
      if (fail.note) throw new Error("note refused");
      calls.push(`note ${id} ${text.split("\n")[0]}`);
    },
  };
  return { host, calls };
}

const run = async (
  stop: StopKind,
  verdict: Verdict,
  settings: Partial<Pick<GuardSettings, "mode" | "notify">> = {},
  fail: { halt?: boolean; note?: boolean } = {},
) => {
  const { host, calls } = recorder(stop, fail);
  const response = responseTo(verdict, responsesOf(stop, { ...DEFAULT_SETTINGS, ...settings }));
  await respond(verdict, host, response, { sessionID: SESSION, index: 2, title: Promise.resolve("Fix it"), extra: {} });
  return calls;
};

describe("respond: one path for every runtime", () => {
  const session = sessionLabel(SESSION, "Fix it");
  const { loop, housekeeping, allowed } = VERDICTS;

  it("the three verdicts are what their names say", () => {
    expect([loop.decision, loop.severity, housekeeping.decision, housekeeping.severity, allowed.decision]).toEqual([
      "deny",
      "warning",
      "deny",
      "info",
      "allow",
    ]);
  });

  it.each<[StopKind, string]>([
    [
      "continue-turn",
      "Compaction loop stopped by compaction-guard after compaction 2: opencode did not send its automatic continue message, so the model stopped.",
    ],
    ["interrupt", "Compaction loop stopped by compaction-guard at compaction 2: the session was interrupted."],
  ])("%s, a loop in enforce mode: halt, toast, warn line, note, in that order", async (stop, headline) => {
    expect(await run(stop, loop)).toEqual([
      `halt ${SESSION}`,
      "toast warning Compaction loop stopped",
      `log warn ${stopLogMessage(stop, session, loop, 2, false, hostOf(stop))}`,
      `note ${SESSION} ${headline}`,
    ]);
  });

  it.each<StopKind>(["continue-turn", "interrupt"])("%s, a loop in observe mode: nothing halted, no note, an info toast", async (stop) => {
    expect(await run(stop, loop, { mode: "observe" })).toEqual([
      "toast info Compaction guard (observe mode)",
      `log warn ${stopLogMessage(stop, session, loop, 2, true, hostOf(stop))}`,
    ]);
  });

  it("housekeeping: V1 skips the continue turn with an info line; V2 has no turn to skip and lets it pass", async () => {
    expect(await run("continue-turn", housekeeping)).toEqual([
      `halt ${SESSION}`,
      `log info ${stopLogMessage("continue-turn", session, housekeeping, 2, false, OPENCODE_WORDS)}`,
    ]);
    expect(await run("interrupt", housekeeping)).toEqual([`log info ${allowLogMessage("interrupt", SESSION, housekeeping, 2)}`]);
  });

  it.each<StopKind>(["continue-turn", "interrupt"])("%s, allowed: one info line, none with notify off", async (stop) => {
    expect(await run(stop, allowed)).toEqual([`log info ${allowLogMessage(stop, SESSION, allowed, 2)}`]);
    expect(await run(stop, allowed, { notify: "off" })).toEqual([]);
  });

  it("notify off halts and says nothing; notify log says it without a toast", async () => {
    expect(await run("interrupt", loop, { notify: "off" })).toEqual([`halt ${SESSION}`]);
    expect(await run("interrupt", loop, { notify: "log" })).toEqual([
      `halt ${SESSION}`,
      `log warn ${stopLogMessage("interrupt", session, loop, 2, false, OPENCODE_V2_WORDS)}`,
      `note ${SESSION} ${stopRecord("interrupt", session, loop, 2, OPENCODE_V2_WORDS).split("\n")[0]}`,
    ]);
  });

  it("a halt that fails is one warn line and the end; a note that fails is one warn line", async () => {
    expect(await run("interrupt", loop, {}, { halt: true })).toEqual([
      `log warn compaction-guard found a loop in V2 session ${SESSION} (no-progress) but could not interrupt it: interrupt refused`,
    ]);
    expect((await run("continue-turn", loop, {}, { note: true })).at(-1)).toBe(
      `log warn compaction-guard could not leave its note in session ${SESSION}: note refused`,
    );
  });
});

/**
 * Replay is a host of the one decision path (src/guard/decision.ts): the response's choice
 * for every verdict in each runtime and mode, and replay's stop where the live path halts: a
 * session whose first compaction is housekeeping (turn-finished) and whose third is a loop
 * stops at the first as a V1 session (its continue turn denied) and at the third where the
 * runtime interrupts (a V2 session lets housekeeping go on).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, type GuardSettings } from "../../src/config/settings.js";
import { responsesOf, responseTo, type Response } from "../../src/guard/decision.js";
import { decideAtCompaction, type CompactionHost } from "../../src/guard/decide-at.js";
import type { StopKind } from "../../src/guard/host.js";
import { replaySession } from "../../src/guard/replay.js";
import { OPENCODE_FACTS } from "../../src/hosts/opencode/facts.js";
import { v1SessionData } from "../../src/hosts/opencode/session.js";
import { OPENCODE_WORDS } from "../../src/hosts/opencode/words.js";
import type { Verdict } from "../../src/judge/verdict.js";
import { SessionBuilder } from "../support/session.js";
import { readExport } from "../../src/sources/export.js";
import { toClaudeCode, toCodex } from "../support/transcripts.js";

const SESSION = "ses_r";

/** Compaction 1 after a finished answer (turn-finished, housekeeping), 2 allowed, 3 no progress (a loop). */
const built = new SessionBuilder(SESSION).user().say("Done: the bug was in a.ts.", 60_000).compact();
built.step({ tool: "read", input: { filePath: "a" } }, 10_000).compact();
built.step({ tool: "read", input: { filePath: "b" } }, 9_500).compact();
const V1 = v1SessionData({ id: SESSION }, built.messages);
const V2 = v1SessionData({ id: SESSION, runner: "v2" }, built.messages);
const INPUTS = { settings: DEFAULT_SETTINGS, usable: null, facts: OPENCODE_FACTS };

/** A verdict of `decision` and `severity` (the response reads nothing else). */
const verdict = (decision: Verdict["decision"], severity: Verdict["severity"]): Verdict =>
  ({ decision, severity, rule: decision === "deny" ? "no-progress" : null }) as Verdict;

describe("responsesOf and responseTo: what the guard does with a verdict", () => {
  const enforce = { mode: "enforce", notify: "toast" } as const;
  const rows: Array<[string, Verdict, StopKind, Pick<GuardSettings, "mode" | "notify">, Response]> = [
    [
      "an allow: the info line",
      verdict("allow", null),
      "continue-turn",
      enforce,
      { stops: false, observe: false, halt: false, line: "allow", level: "info", toast: false, note: false },
    ],
    [
      "a loop: halt, the warn line, the toast and the note",
      verdict("deny", "warning"),
      "interrupt",
      enforce,
      { stops: true, observe: false, halt: true, line: "stop", level: "warn", toast: true, note: true },
    ],
    [
      "housekeeping where the continue turn is denied: halt and an info line",
      verdict("deny", "info"),
      "continue-turn",
      enforce,
      { stops: true, observe: false, halt: true, line: "stop", level: "info", toast: false, note: false },
    ],
    [
      "housekeeping where the runtime interrupts: nothing to stop",
      verdict("deny", "info"),
      "interrupt",
      enforce,
      { stops: false, observe: false, halt: false, line: "allow", level: "info", toast: false, note: false },
    ],
    [
      "a loop in observe mode: it stops, but halts nothing and leaves no note",
      verdict("deny", "warning"),
      "continue-turn",
      { mode: "observe", notify: "toast" },
      { stops: true, observe: true, halt: false, line: "stop", level: "warn", toast: true, note: false },
    ],
    [
      "a loop with notify off: halt, nothing said",
      verdict("deny", "warning"),
      "continue-turn",
      { mode: "enforce", notify: "off" },
      { stops: true, observe: false, halt: true, line: null, level: "warn", toast: false, note: false },
    ],
  ];
  it.each(rows)("%s", (_name, given, stop, settings, expected) => {
    expect(responseTo(given, responsesOf(stop, settings))).toEqual(expected);
  });
});

/** The live path at compaction `messageID` of the session, in a runtime that stops by `stop`: whether it halted. */
async function liveHalts(stop: StopKind, messageID: string, settings: GuardSettings = DEFAULT_SETTINGS): Promise<boolean> {
  let halted = false;
  const host: CompactionHost = {
    stop,
    words: OPENCODE_WORDS,
    settings,
    fallback: "the test goes on",
    lookUp: () => ({ facts: async () => ({ inputs: { usable: null, facts: OPENCODE_FACTS }, title: undefined }) }),
    read: async () => ({ timeline: V1.timeline, count: built.messages.length, wholeSession: true, timelineMs: 0 }),
    log: async () => undefined,
    halt: () => void (halted = true),
  };
  await decideAtCompaction(host, { sessionID: SESSION, compactionID: messageID });
  return halted;
}

describe("replay's stop is where the live path halts", () => {
  it("the same rows either way; the first deny follows the runtime's stop", () => {
    const v1 = replaySession(V1, INPUTS);
    const v2 = replaySession(V2, INPUTS);
    expect(v1.rows.map((r) => [r.compaction.index, r.decision, r.rule])).toEqual([
      [1, "deny", "turn-finished"],
      [2, "allow", null],
      [3, "deny", "no-progress"],
    ]);
    expect(v2.rows).toEqual(v1.rows);
    expect(v1.firstDeny?.compaction.index).toBe(1);
    expect(v2.firstDeny?.compaction.index).toBe(3);
  });

  it.each([
    ["continue-turn", V1],
    ["interrupt", V2],
  ] as const)("%s: the live path halts first at replay's first deny", async (stop, session) => {
    const { rows, firstDeny } = replaySession(session, INPUTS);
    const halts = [];
    for (const row of rows) halts.push(await liveHalts(stop, row.compaction.messageID));
    expect(rows[halts.indexOf(true)]).toBe(firstDeny);
  });

  it("another agent's transcript stops as its live hook does: Codex ends the turn after the compaction, Claude Code interrupts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-replay-host-"));
    const firstDeny = async (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      const session = await readExport(join(dir, name));
      return [session.record.continueTurn, replaySession(session, INPUTS).firstDeny?.compaction.index];
    };
    expect(await firstDeny("codex.jsonl", toCodex(V1.timeline))).toEqual([true, 1]);
    expect(await firstDeny("claude.jsonl", toClaudeCode(V1.timeline))).toEqual([false, 3]);
  });

  it("observe mode: the live path halts nothing, replay names where it would have stopped", async () => {
    const observe = { ...DEFAULT_SETTINGS, mode: "observe" as const };
    const { rows, firstDeny } = replaySession(V1, { ...INPUTS, settings: observe });
    for (const row of rows) expect(await liveHalts("continue-turn", row.compaction.messageID, observe)).toBe(false);
    expect(firstDeny?.compaction.index).toBe(1);
  });
});

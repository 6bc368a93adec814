/**
 * The one decision path at a compaction (src/guard/decide-at.ts), with a host that records
 * what it was asked: the order of the steps, the log line's fields, the switch, and the one
 * warn line of a failure in the host's words.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { decideAtCompaction, type CompactionHost, type SessionRead, type SessionSwitch } from "../../src/guard/decide-at.js";
import { TimelineSteps } from "../../src/judge/view.js";
import { OPENCODE_FACTS } from "../../src/hosts/opencode/facts.js";
import { OPENCODE_WORDS } from "../../src/hosts/opencode/words.js";
import { v1Timeline } from "../../src/plugin/timelines.js";
import { SessionBuilder } from "../support/session.js";

const SESSION = "ses_d";

/** A session whose second compaction shows no progress (9,500 tokens after 10,000): a loop. */
const loop = new SessionBuilder(SESSION).user();
loop.step({ tool: "read", input: { filePath: "a" } }, 10_000).compact();
loop.step({ tool: "read", input: { filePath: "b" } }, 9_500).compact({ continueTurn: false });
const MESSAGES = loop.messages;
const TIMELINE = v1Timeline(MESSAGES);
const LAST = TIMELINE.compactions.at(-1)!.messageID;

interface Options {
  readonly claim?: boolean;
  readonly read?: () => Promise<SessionRead>;
  readonly switched?: SessionSwitch;
  readonly judged?: boolean;
  readonly whole?: boolean;
}

/** A host that records every call, in order (`log` with its fields). */
function recorder(options: Options = {}) {
  const calls: string[] = [];
  const lines: Array<{ level: string; message: string; extra: Record<string, unknown> | undefined }> = [];
  const host: CompactionHost = {
    stop: "interrupt",
    words: OPENCODE_WORDS,
    settings: DEFAULT_SETTINGS,
    fields: { runner: "test" },
    fallback: "the host goes on",
    claim: (id, compactionID) => (calls.push(`claim ${id} ${compactionID}`), options.claim ?? true),
    lookUp: (id) => {
      calls.push(`lookUp ${id}`);
      const earlier = new TimelineSteps(TIMELINE);
      return {
        facts: async () => (calls.push("facts"), { inputs: { usable: null, facts: OPENCODE_FACTS }, title: "Fix it" }),
        ...(options.judged && { judged: Promise.resolve({ steps: earlier, ms: 1.234 }) }),
      };
    },
    read:
      options.read ??
      (async (id, compactionID, limit) => {
        calls.push(`read ${id} ${compactionID} ${limit}`);
        const whole = options.whole ?? true;
        return { timeline: TIMELINE, count: MESSAGES.length, wholeSession: whole, timelineMs: 0.5, fields: { from: "test" } };
      }),
    ...(options.switched && {
      switch: { of: async () => options.switched, offLine: (id: string) => `switched off in ${id}` },
    }),
    log: async (level, message, extra) => void lines.push({ level, message, extra }),
    halt: (id) => void calls.push(`halt ${id}`),
    note: (id, _text, verdict) => void calls.push(`note ${id} ${verdict.rule} ${verdict.compaction.messageID}`),
  };
  return { host, calls, lines };
}

describe("decideAtCompaction: one path for every host", () => {
  it("claims, looks up, reads, decides and stops the loop; the line's fields in their order", async () => {
    const { host, calls, lines } = recorder({ judged: true });
    await decideAtCompaction(host, { sessionID: SESSION, compactionID: LAST });
    expect(calls).toEqual([
      `claim ${SESSION} ${LAST}`,
      `lookUp ${SESSION}`,
      `read ${SESSION} ${LAST} 200`,
      "facts",
      `halt ${SESSION}`,
      `note ${SESSION} no-progress ${LAST}`,
    ]);
    expect(lines.map((l) => l.level)).toEqual(["warn"]);
    const extra = lines[0]!.extra!;
    expect(Object.keys(extra)).toEqual([
      "sessionID",
      "compaction",
      "messageID",
      "decision",
      "rule",
      "runner",
      "elapsedMs",
      "from",
      "judgedAheadMs",
      "phasesMs",
    ]);
    expect(extra).toMatchObject({
      sessionID: SESSION,
      compaction: 2,
      messageID: LAST,
      decision: "deny",
      rule: "no-progress",
      runner: "test",
      judgedAheadMs: 1.23,
    });
    expect(Object.keys(extra.phasesMs as object)).toEqual(["read", "timeline", "lookups", "judge", "notice"]);
    expect((extra.phasesMs as Record<string, number>).timeline).toBe(0.5);
  });

  it("a read that may not reach the session's start names no index; no judging ahead: no judgedAheadMs", async () => {
    const { host, lines } = recorder({ whole: false });
    await decideAtCompaction(host, { sessionID: SESSION, compactionID: LAST });
    expect(lines[0]!.extra).toMatchObject({ compaction: null, rule: "no-progress" });
    expect(lines[0]!.extra).not.toHaveProperty("judgedAheadMs");
  });

  it("not claimed: nothing looked up, read or logged", async () => {
    const { host, calls, lines } = recorder({ claim: false });
    await decideAtCompaction(host, { sessionID: SESSION, compactionID: LAST });
    expect([calls, lines]).toEqual([[`claim ${SESSION} ${LAST}`], []]);
  });

  it("switched off: the host's info line, no look-up awaited, nothing halted", async () => {
    const { host, calls, lines } = recorder({ switched: "off" });
    await decideAtCompaction(host, { sessionID: SESSION, compactionID: LAST });
    expect(calls).toEqual([`claim ${SESSION} ${LAST}`, `lookUp ${SESSION}`, `read ${SESSION} ${LAST} 200`]);
    expect(lines).toEqual([{ level: "info", message: `switched off in ${SESSION}`, extra: { sessionID: SESSION, runner: "test" } }]);
  });

  it("switched to observe: the loop is logged as what would have been done, nothing halted", async () => {
    const { host, calls, lines } = recorder({ switched: "observe" });
    await decideAtCompaction(host, { sessionID: SESSION, compactionID: LAST });
    expect(calls.filter((c) => c.startsWith("halt") || c.startsWith("note"))).toEqual([]);
    expect(lines[0]!.extra).toMatchObject({ rule: "no-progress", mode: "observe" });
  });

  it("a failed read: one warn line in the host's words, with its fields; nothing halted", async () => {
    const { host, calls, lines } = recorder({ read: () => Promise.reject(new Error("connection refused")) });
    await decideAtCompaction(host, { sessionID: SESSION, compactionID: LAST });
    expect(calls).toEqual([`claim ${SESSION} ${LAST}`, `lookUp ${SESSION}`]);
    expect(lines.map((l) => `${l.level} ${l.message}`)).toEqual([
      `warn compaction-guard could not decide for V2 session ${SESSION}; the host goes on: connection refused`,
    ]);
    expect(Object.keys(lines[0]!.extra!)).toEqual(["sessionID", "runner", "elapsedMs"]);
  });

  it("no automatic compaction in what was read: the warn line counts the messages", async () => {
    const empty = v1Timeline([]);
    const { host, lines } = recorder({ read: async () => ({ timeline: empty, count: 0, wholeSession: true, timelineMs: 0 }) });
    await decideAtCompaction(host, { sessionID: SESSION, compactionID: undefined });
    expect(lines.map((l) => l.message)).toEqual([
      `compaction-guard could not decide for V2 session ${SESSION}; the host goes on: no automatic compaction among the 0 newest messages`,
    ]);
  });
});

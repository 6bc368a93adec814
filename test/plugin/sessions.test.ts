/**
 * The V1 guard's per-session store (plugin/opencode-v1/sessions.ts): the working slots of the
 * newest sessions used, the slots that outlive an eviction, work under way that holds its
 * record, and the deletion that forgets every slot; then the modules that keep their state in it.
 */
import { describe, expect, it, vi } from "vitest";
import { ANSWERED, createGuardCommand } from "../../src/plugin/opencode-v1/command.js";
import { createEventHandler } from "../../src/plugin/opencode-v1/events.js";
import { createMirror } from "../../src/plugin/opencode-v1/mirror.js";
import { createSessionStore, MAX_KEPT_SESSIONS, MAX_SESSIONS, type PendingNote } from "../../src/plugin/opencode-v1/sessions.js";
import { createStopNotes } from "../../src/plugin/opencode-v1/stop-note.js";
import { resolveSettings } from "../../src/config/settings.js";
import { fakeClient } from "../support/client.js";
import { SessionBuilder } from "../support/session.js";

const NOTE: PendingNote = {
  kind: "tool-loop",
  text: "compaction-guard stopped a tool loop",
  compactionID: "",
  rule: null,
  agent: undefined,
  model: undefined,
  variant: undefined,
};

/** Uses `count` other sessions, `ses_other_<from>` on, each with a working slot. */
function useOthers(store: ReturnType<typeof createSessionStore>, count: number, from = 0): void {
  for (let i = from; i < from + count; i++) store.use(`ses_other_${i}`).toolLoop = { logged: `bash other ${i}` };
}

describe("the store", () => {
  it(`keeps the working slots of the newest ${MAX_SESSIONS} sessions used; the least recently used goes first`, () => {
    const store = createSessionStore();
    for (let i = 0; i < MAX_SESSIONS; i++) store.use(`ses_${i}`).toolLoop = { logged: `bash ${i}` };
    // ses_0 used again: ses_1 is now the least recently used.
    store.use("ses_0");
    store.use("ses_new").toolLoop = { logged: "bash new" };
    expect(store.find("ses_1")).toBeUndefined();
    expect(store.find("ses_0")?.toolLoop).toEqual({ logged: "bash 0" });
    expect(store.find("ses_new")?.toolLoop).toEqual({ logged: "bash new" });
    expect(store.holding("toolLoop")).toBe(MAX_SESSIONS);
    // Looking a session up is no use: ses_2 goes next although it was just found.
    expect(store.find("ses_2")?.toolLoop).toEqual({ logged: "bash 2" });
    useOthers(store, 1);
    expect(store.find("ses_2")).toBeUndefined();
  });

  it("a session in use keeps its slots while many others come and go", () => {
    const store = createSessionStore();
    const notes = new Map([["msg_continue", "The guard's continue note"]]);
    store.use("ses_busy").continueNotes = notes;
    store.use("ses_busy").toolLoop = { logged: "bash:echo hi", armed: { key: "bash:echo hi", runs: 4, tool: "bash", preview: "echo hi" } };
    for (let i = 0; i < 50; i++) {
      useOthers(store, 1, i);
      expect(store.use("ses_busy").continueNotes?.get("msg_continue")).toBe("The guard's continue note");
    }
    expect(store.find("ses_busy")?.toolLoop?.armed).toEqual({ key: "bash:echo hi", runs: 4, tool: "bash", preview: "echo hi" });
    expect(store.holding("toolLoop")).toBe(MAX_SESSIONS);
  });

  it("a switch and a waiting stop note outlive the eviction; a look-up that found no switch does not", () => {
    const store = createSessionStore();
    const off = store.use("ses_off");
    off.mode = "off";
    off.toolLoop = { logged: "bash:ls" };
    off.continueNotes = new Map([["msg_c", "note"]]);
    store.use("ses_note").stopNote = NOTE;
    store.use("ses_none").mode = null;
    useOthers(store, MAX_SESSIONS);
    expect(store.find("ses_off")).toEqual({ mode: "off" });
    expect(store.find("ses_note")).toEqual({ stopNote: NOTE });
    expect(store.find("ses_none")).toBeUndefined();
    // Used again: the same record, the switch in it, the working slots to be made again.
    expect(store.use("ses_off")).toBe(off);
    expect(off).toEqual({ mode: "off" });
    expect(store.holding("mode")).toBe(1);
    expect(store.holding("stopNote")).toBe(1);
  });

  it(`kept slots: the newest ${MAX_KEPT_SESSIONS} sessions evicted`, () => {
    const store = createSessionStore();
    const total = MAX_KEPT_SESSIONS + MAX_SESSIONS + 1;
    for (let i = 0; i < total; i++) store.use(`ses_${i}`).mode = "on";
    expect(store.holding("mode")).toBe(MAX_KEPT_SESSIONS + MAX_SESSIONS);
    expect(store.find("ses_0")).toBeUndefined();
    expect(store.find("ses_1")).toEqual({ mode: "on" });
    expect(store.find(`ses_${total - 1}`)).toEqual({ mode: "on" });
  });

  it("work under way holds its record; once done, the record is evicted as any other", async () => {
    const store = createSessionStore();
    let finish!: () => void;
    const work = store.hold("ses_held", async (record) => {
      record.mirror = { messages: [], cap: 64, whole: true };
      await new Promise<void>((resolve) => (finish = resolve));
      return "read";
    });
    useOthers(store, MAX_SESSIONS + 3);
    expect(store.find("ses_held")?.mirror).toEqual({ messages: [], cap: 64, whole: true });
    finish();
    expect(await work).toBe("read");
    useOthers(store, 1, 100);
    expect(store.find("ses_held")).toBeUndefined();
    expect(store.holding("toolLoop")).toBe(MAX_SESSIONS);
  });

  it("forget forgets every slot, of a record in use and of an evicted one", () => {
    const store = createSessionStore();
    const record = store.use("ses_gone");
    Object.assign(record, {
      mirror: { messages: [], cap: 8, whole: true },
      lookups: {
        reserved: Promise.resolve(500),
        session: Promise.resolve({ title: "t", subagent: false }),
        judged: Promise.resolve(undefined),
        partID: "prt_1",
      },
      continueNotes: new Map([["msg_c", "note"]]),
      toolLoop: { logged: "bash:ls" },
      mode: "observe",
      stopNote: NOTE,
    });
    store.use("ses_evicted").mode = "off";
    useOthers(store, MAX_SESSIONS - 1);
    expect(store.find("ses_evicted")).toEqual({ mode: "off" });
    store.forget("ses_gone");
    store.forget("ses_evicted");
    expect([store.find("ses_gone"), store.find("ses_evicted")]).toEqual([undefined, undefined]);
    for (const slot of ["mirror", "lookups", "continueNotes", "mode", "stopNote"] as const) expect(store.holding(slot)).toBe(0);
    expect(store.holding("toolLoop")).toBe(MAX_SESSIONS - 1);
    // A session used after it was forgotten starts empty.
    expect(store.use("ses_gone")).toEqual({});
  });
});

describe("the modules over one store", () => {
  const session = new SessionBuilder("ses_m").user("hi").step({ tool: "bash", input: { command: "ls" }, output: "a\n" });

  it("the mirror: a read that ends after its session was forgotten keeps nothing", async () => {
    const store = createSessionStore();
    const mirror = createMirror(store);
    let answer!: (messages: unknown[]) => void;
    const seeding = mirror.seed("ses_m", 64, () => new Promise((resolve) => (answer = resolve)));
    expect(mirror.seeding("ses_m")).toBe(seeding);
    store.forget("ses_m");
    answer(session.messages);
    expect(await seeding).toHaveLength(session.messages.length);
    expect([mirror.kept("ses_m"), store.find("ses_m")]).toEqual([false, undefined]);
    // Read again, it is kept, in the session's record.
    await mirror.seed("ses_m", 64, async () => session.messages);
    expect(store.find("ses_m")?.mirror?.messages.map((m) => m.info.id)).toEqual(session.messages.map((m) => m.info.id));
  });

  it("the event hook: session.deleted forgets every slot of that session, and only of it", async () => {
    const store = createSessionStore();
    const mirror = createMirror(store);
    await mirror.seed("ses_m", 64, async () => session.messages);
    await mirror.seed("ses_kept", 64, async () => session.messages);
    Object.assign(store.use("ses_m"), {
      toolLoop: { logged: "bash:ls" },
      mode: "off",
      stopNote: NOTE,
      continueNotes: new Map([["m", "n"]]),
    });
    const handler = createEventHandler({
      notes: { leaveWhenIdle: () => {}, sessionIdle: async () => {}, dispose: async () => {} },
      toolLoop: { sessionIdle: () => {} },
      sessions: store,
      v2: { event: async () => {} },
      mirror,
      firstSight: () => {},
    });
    await handler({ event: { type: "session.deleted", properties: { info: { id: "ses_m" } } } as never });
    expect(store.find("ses_m")).toBeUndefined();
    expect(mirror.kept("ses_m")).toBe(false);
    expect(mirror.kept("ses_kept")).toBe(true);
  });

  it("the /guard switch outlives its session's eviction; a look-up that found none is made again after it", async () => {
    const store = createSessionStore();
    const fake = fakeClient(() => ({ data: [] }));
    const switches = { read: vi.fn(async () => null), write: vi.fn(async () => {}) };
    const command = createGuardCommand({
      client: fake.client as never,
      sessions: store,
      switches,
      readMessages: async () => [],
      resolved: resolveSettings(undefined, {}),
      directory: undefined,
      log: async () => {},
      timeoutMs: 1_000,
      reserved: async () => undefined,
      backoff: { step: async (_, read) => read(), backedOff: () => false },
      stepTimeoutMs: 1_000,
      readRecent: async () => [],
      firstRead: async () => [],
    });
    await command.config({} as never);
    await expect(
      command.before({ command: "guard", sessionID: "ses_off", arguments: "off" } as never, { parts: [] } as never),
    ).rejects.toThrow(ANSWERED);
    expect(await command.modeOf("ses_none", [])).toBeUndefined();
    expect(switches.read).toHaveBeenCalledTimes(1);
    for (let i = 0; i < MAX_SESSIONS; i++) expect(await command.modeOf(`ses_other_${i}`, [])).toBeUndefined();
    expect(switches.read).toHaveBeenCalledTimes(1 + MAX_SESSIONS);
    // Neither the history read (none) nor the switch file (none) holds it: the record kept it.
    expect(await command.modeOf("ses_off", [])).toBe("off");
    expect(await command.modeOf("ses_none", [])).toBeUndefined();
    expect(switches.read).toHaveBeenCalledTimes(2 + MAX_SESSIONS);
  });

  it("a stop note waiting for its session is written once the session goes idle, after its eviction too", async () => {
    const store = createSessionStore();
    const last = { info: { id: "msg_step", role: "assistant", agent: "build", providerID: "p", modelID: "m" }, parts: [] };
    const fake = fakeClient(() => ({ data: [last] }));
    const notes = createStopNotes(store, fake.client as never, async () => {}, 1_000);
    notes.leaveWhenIdle("ses_stopped", NOTE);
    useOthers(store, MAX_SESSIONS);
    await notes.sessionIdle("ses_stopped");
    expect(fake.prompts.map((p) => [p.sessionID, p.body.parts[0]?.text, p.body.agent])).toEqual([["ses_stopped", NOTE.text, "build"]]);
    await notes.sessionIdle("ses_stopped");
    expect(fake.prompts).toHaveLength(1);
  });
});

/**
 * The mirror of a session (src/plugin/opencode-v1/mirror.ts): seeded by one read, then kept from opencode's
 * message events, it gives back what a read of the newest messages would; it reads again only
 * when it holds too few; a read racing the events keeps the newer state; bounded; a deleted
 * session is forgotten.
 */
import { describe, expect, it, vi } from "vitest";
import { InformationState } from "../../src/judge/information.js";
import { createMirror, MAX_MIRRORED_SESSIONS } from "../../src/plugin/opencode-v1/mirror.js";
import { createSessionStore } from "../../src/plugin/opencode-v1/sessions.js";
import { bash, SessionBuilder, type Message } from "../support/session.js";
import { fakeClient, newestMessages } from "../support/client.js";
import { createGuard } from "../../src/plugin/opencode-v1/guard.js";
import { publish } from "./publish.js";
import { readFileSync } from "node:fs";
import { fixtureCases } from "../support/fixtures.js";
import { isRecord } from "../../src/shared/record.js";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { guardStopOf } from "../../src/hosts/opencode/guard-note.js";
import { findSwitch } from "../../src/plugin/opencode-v1/guard-command.js";

const events = (messages: readonly Message[]) =>
  messages.flatMap((m) => [
    { type: "message.updated", properties: { info: m.info } },
    ...m.parts.map((part) => ({ type: "message.part.updated", properties: { part } })),
  ]);

/** A session of `steps` bash steps (each its own output), with an automatic compaction every 7th. */
function grown(steps: number, id = "ses_m"): SessionBuilder {
  const session = new SessionBuilder(id).user("go");
  for (let i = 0; i < steps; i++) {
    session.step(bash(`echo ${i}`, `${i}\n`), 1000);
    if (i % 7 === 6) session.compact();
  }
  return session;
}

describe("the mirror of a session", () => {
  it("after one read, the events keep it equal to a read of the newest messages, for every count up to the one read", async () => {
    const session = grown(10);
    const mirror = createMirror();
    let reads = 0;
    const read = (count: number) => async () => (reads++, newestMessages(session.messages)({ limit: count }).data);
    expect(mirror.newest("ses_m", 64)).toBeUndefined();
    expect(await mirror.seed("ses_m", 64, read(64))).toEqual(session.messages);
    for (let i = 0; i < 80; i++) {
      const before = session.messages.length;
      session.step(bash(i % 3 === 0 ? "ls" : `echo ${i}`, "out\n"), 1000);
      if (i % 9 === 8) session.compact();
      for (const e of events(session.messages.slice(before))) mirror.event(e);
      for (const count of [1, 8, 64])
        expect(mirror.newest("ses_m", count)).toEqual(newestMessages(session.messages)({ limit: count }).data);
    }
    expect(reads).toBe(1);
    // More than it keeps: the session is read again.
    expect(mirror.newest("ses_m", 200)).toBeUndefined();
  });

  it("a part stored again (running, then completed) is replaced; a removed message or part is gone", async () => {
    const session = grown(2);
    const mirror = createMirror();
    await mirror.seed("ses_m", 64, async () => session.messages);
    const step = grown(3).messages.at(-1)!;
    const part = step.parts.find((p) => p.type === "tool")!;
    const running = { ...part, state: { status: "running", input: {}, time: { start: 1 } } };
    mirror.event({ type: "message.updated", properties: { info: step.info } });
    mirror.event({ type: "message.part.updated", properties: { part: running } });
    expect(mirror.newest("ses_m", 1)![0]).toMatchObject({ info: step.info, parts: [running] });
    mirror.event({ type: "message.part.updated", properties: { part } });
    expect((mirror.newest("ses_m", 1)![0] as Message).parts).toEqual([part]);
    mirror.event({ type: "message.part.removed", properties: { sessionID: "ses_m", messageID: step.info.id, partID: part.id } });
    expect((mirror.newest("ses_m", 1)![0] as Message).parts).toEqual([]);
    mirror.event({ type: "message.removed", properties: { sessionID: "ses_m", messageID: step.info.id } });
    expect(mirror.newest("ses_m", 64)).toEqual(session.messages);
  });

  it("events during a read are applied after it; an older event never undoes a finished tool call", async () => {
    const session = grown(3);
    const last = session.messages.at(-1)!;
    const tool = last.parts.find((p) => p.type === "tool")!;
    const stale = { ...tool, state: { status: "running", input: {}, time: { start: 1 } } };
    const next = grown(4).messages.at(-1)!;
    const mirror = createMirror();
    const seeded = await mirror.seed("ses_m", 64, async () => {
      // While opencode answers: an old event of the last step, and a new step.
      mirror.event({ type: "message.part.updated", properties: { part: stale } });
      for (const e of events([next])) mirror.event(e);
      return session.messages;
    });
    expect(seeded).toEqual(session.messages);
    expect(mirror.newest("ses_m", 64)).toEqual([...session.messages, next]);
  });

  it("a failed or backed-off read keeps nothing; other sessions' events are not kept", async () => {
    const mirror = createMirror();
    await expect(mirror.seed("ses_m", 64, async () => Promise.reject(new Error("socket closed")))).rejects.toThrow("socket closed");
    expect(await mirror.seed("ses_m", 64, async () => undefined)).toBeUndefined();
    for (const e of events(grown(3).messages)) mirror.event(e);
    expect([mirror.newest("ses_m", 1), mirror.sessions()]).toEqual([undefined, 0]);
  });

  it(`keeps at most ${MAX_MIRRORED_SESSIONS} sessions (the least recently used go first); a deleted one is dropped`, async () => {
    const store = createSessionStore();
    const mirror = createMirror(store);
    for (let i = 0; i <= MAX_MIRRORED_SESSIONS; i++) {
      const session = grown(1, `ses_${i}`);
      await mirror.seed(`ses_${i}`, 64, async () => session.messages);
    }
    expect(mirror.sessions()).toBe(MAX_MIRRORED_SESSIONS);
    expect(mirror.newest("ses_0", 1)).toBeUndefined();
    expect(mirror.newest("ses_1", 1)).toHaveLength(1);
    store.forget("ses_1");
    expect(mirror.newest("ses_1", 1)).toBeUndefined();
  });
});

describe("what the mirror keeps of each part", () => {
  /** The V1 exports among the fixtures: `{ info, messages: [{ info, parts }] }`. */
  const exports = fixtureCases().flatMap(([name, path]) => {
    const data = JSON.parse(readFileSync(path, "utf8")) as { messages?: unknown };
    const v1 = Array.isArray(data.messages) && data.messages.every((m) => isRecord(m) && isRecord(m.info) && Array.isArray(m.parts));
    return v1 ? [[name, data.messages as Message[]] as const] : [];
  });

  it("the fixtures hold V1 exports with bash metadata (the test below reads them)", () => {
    expect(exports.length).toBeGreaterThan(20);
    const truncated = exports.find(([name]) => name === "e2e-truncated-big-output.json")![1];
    const bash = truncated.flatMap((m) => m.parts).find((p) => p.type === "tool" && p.tool === "bash")!;
    expect((bash.state as { metadata: { output: string } }).metadata.output.length).toBe(13_893);
  });

  it.each(exports)("%s: the kept messages make the same timeline, the same /guard switch and stop notes", async (_, messages) => {
    // Seeded by a read of the whole session, and by a read of its first message then its events.
    const sessionID = String(messages[0]!.info.sessionID);
    const seeded = createMirror();
    await seeded.seed(sessionID, messages.length + 1, async () => messages);
    const read = seeded.newest(sessionID, messages.length)!;
    const followed = createMirror();
    await followed.seed(sessionID, messages.length + 1, async () => messages.slice(0, 1));
    for (const e of events(messages.slice(1))) followed.event(e);
    const kept = followed.newest(sessionID, messages.length)!;
    expect([read.length, kept.length]).toEqual([messages.length, messages.length]);
    for (const copy of [read, kept]) {
      expect(buildTimeline(copy)).toEqual(buildTimeline(messages));
      expect(findSwitch(copy)).toEqual(findSwitch(messages));
      expect(copy.map(guardStopOf)).toEqual(messages.map(guardStopOf));
    }
    const parts = read.flatMap((m) => (m as Message).parts);
    expect(parts.filter((p) => p.type === "tool" && isRecord(p.state) && p.state.metadata !== undefined)).toEqual([]);
  });
});

describe("the mirror inside the guard", () => {
  it("a session is read once: not again after it went idle; again after it was deleted", async () => {
    const session = grown(3, "ses_g");
    const fake = fakeClient((query) => newestMessages(session.messages)(query));
    const hooks = createGuard({ client: fake.client as never }, undefined, { env: {} });
    const call = async (i: number) => {
      const stored = session.messages.length;
      await hooks["tool.execute.after"]!(
        { tool: "bash", sessionID: "ses_g", callID: `c${i}`, args: { command: `echo ${i}` } },
        { title: "", output: `${i}\n`, metadata: {} },
      );
      session.step(bash(`echo ${i}`, `${i}\n`), 1000);
      await publish(hooks, session.messages.slice(stored));
    };
    for (let i = 0; i < 5; i++) await call(i);
    expect(fake.client.session.messages).toHaveBeenCalledTimes(1);
    await hooks.event!({ event: { type: "session.idle", properties: { sessionID: "ses_g" } } as never });
    await call(5);
    await call(6);
    expect(fake.client.session.messages).toHaveBeenCalledTimes(1);
    await hooks.event!({ event: { type: "session.deleted", properties: { info: { id: "ses_g" } } } as never });
    await call(7);
    expect(fake.client.session.messages).toHaveBeenCalledTimes(2);
  });

  it("a session's first event starts its read in the background: the steps after it read nothing themselves", async () => {
    const session = grown(3, "ses_f");
    let answer: (() => void) | undefined;
    const fake = fakeClient((query) => newestMessages(session.messages)(query));
    const read = fake.client.session.messages.getMockImplementation()!;
    fake.client.session.messages.mockImplementation((options) => new Promise((resolve) => (answer = () => resolve(read(options)))));
    const hooks = createGuard({ client: fake.client as never }, undefined, { env: {} });
    const user = session.messages.at(-1)!;
    await hooks.event!({ event: { type: "message.updated", properties: { info: user.info } } as never });
    expect(fake.client.session.messages).toHaveBeenCalledTimes(1);
    // The read has not answered: a tool call now waits the budget, not the read, and checks nothing.
    const started = performance.now();
    await hooks["tool.execute.after"]!(
      { tool: "bash", sessionID: "ses_f", callID: "c1", args: { command: "echo 1" } },
      { title: "", output: "1\n", metadata: {} },
    );
    expect(performance.now() - started).toBeLessThan(200);
    expect(fake.client.session.messages).toHaveBeenCalledTimes(1);
    expect(fake.logs.map((l) => l.message)).toContain(
      "compaction-guard: the first read of session ses_f takes over 10 ms; steps go unchecked until it is done",
    );
    answer!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    await hooks["tool.execute.after"]!(
      { tool: "bash", sessionID: "ses_f", callID: "c2", args: { command: "echo 2" } },
      { title: "", output: "2\n", metadata: {} },
    );
    expect(fake.client.session.messages).toHaveBeenCalledTimes(1);
  });
});

describe("the decision at a compaction inside the guard", () => {
  /** A guard that has seen `session` through its events up to the compaction's summary; its messages are stored as they come. */
  async function seenUpToSummary(session: SessionBuilder) {
    const stored: Message[] = [];
    const fake = fakeClient(
      (query) => newestMessages(stored)(query),
      () => ({ data: { compaction: { reserved: 500 } } }),
      "Fix the build",
    );
    const hooks = createGuard({ client: fake.client as never }, undefined, { env: {} });
    const summary = session.messages.length - 2;
    for (const message of session.messages.slice(0, summary + 1)) {
      stored.push(message);
      await publish(hooks, [message]);
    }
    // The background reads started by the events answer.
    await new Promise((resolve) => setTimeout(resolve, 0));
    return { fake, hooks, compaction: session.messages[summary - 1]! };
  }

  it("config.get and session.get start when the compaction starts; the decision reads nothing, from the mirror", async () => {
    // Two automatic compactions: after the 7th step, and after the 10th.
    const session = grown(10, "ses_d").compact();
    const { fake, hooks, compaction } = await seenUpToSummary(session);
    const starts = 2;
    expect(fake.client.config.get).toHaveBeenCalledTimes(starts);
    expect(fake.client.session.get).toHaveBeenCalledTimes(starts);
    const reads = fake.client.session.messages.mock.calls.length;
    const output = { enabled: true };
    await hooks["experimental.compaction.autocontinue"]!(
      { sessionID: "ses_d", agent: "build", model: { limit: { context: 200_000, output: 32_000 } }, message: compaction.info } as never,
      output,
    );
    expect([fake.client.config.get.mock.calls.length, fake.client.session.get.mock.calls.length]).toEqual([starts, starts]);
    expect(fake.client.session.messages).toHaveBeenCalledTimes(reads);
    // Compactions 3 steps apart at 1,000 tokens: no-progress (the look-ups' title named in the toast).
    expect(fake.logs.map((l) => [l.extra?.decision, l.extra?.rule, l.extra?.messagesFrom])).toEqual([["deny", "no-progress", "mirror"]]);
    expect(fake.toasts[0]!.message).toContain("Fix the build");
    expect(output.enabled).toBe(false);
  });

  it("the steps are judged while the summary is written, and the decision takes them over with the same verdict", async () => {
    const session = grown(10, "ses_j").compact();
    const { fake, hooks, compaction } = await seenUpToSummary(session);
    const input = { sessionID: "ses_j", agent: "build", model: { limit: { context: 200_000, output: 32_000 } }, message: compaction.info };
    const judge = vi.spyOn(InformationState.prototype, "judge");
    await hooks["experimental.compaction.autocontinue"]!(input as never, { enabled: true });
    const [line] = fake.logs;
    expect([line?.extra?.decision, line?.extra?.rule, line?.extra?.messagesFrom]).toEqual(["deny", "no-progress", "mirror"]);
    expect(line?.extra?.judgedAheadMs).toBeGreaterThan(0);
    // Every step was judged ahead: the decision judged none again.
    expect(judge).not.toHaveBeenCalled();
    // The same decision without judging ahead (taken already) judges the 10 steps since the user spoke.
    await hooks["experimental.compaction.autocontinue"]!(input as never, { enabled: true });
    expect(fake.logs[1]?.extra).toMatchObject({ decision: "deny", rule: "no-progress", judgedAheadMs: null });
    expect(judge).toHaveBeenCalledTimes(10);
    judge.mockRestore();
  });

  it("a second event of the same compaction part starts no second look-up; a decision with none started reads them itself", async () => {
    const session = grown(6, "ses_e").compact();
    const { fake, hooks, compaction } = await seenUpToSummary(session);
    const part = compaction.parts.find((p) => p.type === "compaction")!;
    await hooks.event!({ event: { type: "message.part.updated", properties: { part } } as never });
    expect(fake.client.config.get).toHaveBeenCalledTimes(1);
    const input = { sessionID: "ses_e", agent: "build", model: { limit: { context: 200_000, output: 32_000 } }, message: compaction.info };
    await hooks["experimental.compaction.autocontinue"]!(input as never, { enabled: true });
    expect(fake.client.config.get).toHaveBeenCalledTimes(1);
    // The same compaction asked again (a second copy's registry aside): the look-ups were taken, so it reads them.
    await hooks["experimental.compaction.autocontinue"]!(input as never, { enabled: true });
    expect([fake.client.config.get.mock.calls.length, fake.client.session.get.mock.calls.length]).toEqual([2, 2]);
  });
});

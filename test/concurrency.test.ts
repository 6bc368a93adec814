/**
 * Many sessions compacting at once: a parent session and its subagent sessions call the
 * hook concurrently, and their `session.messages` answers arrive in any order (fast-check's
 * scheduler picks it). Each decision must use its own session's history, and the plugin
 * keeps no per-session state: one hook object answers every call as a fresh one would.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createGuard } from "../src/plugin/opencode-v1/guard.js";
import { fakeClient, newestMessages, type LogBody } from "./support/client.js";
import { bash, SessionBuilder, type Message } from "./support/session.js";

const LIMIT = { context: 200_000, output: 32_000 };

/** The sessions, each with its own history and the outcome the guard must reach. */
const SESSIONS: Record<string, { messages: Message[]; fails?: boolean }> = {
  // The parent loops on one bash call; the hook decides its third compaction: repeated-tool-call
  // (its second would already be denied, by no-new-work).
  ses_parent: (() => {
    const s = new SessionBuilder("ses_parent").user("build the app");
    for (let i = 0; i < 3; i++) s.step(bash("npm run build", "error TS2304\n"), null).compact({ continueTurn: i < 2 });
    return { messages: s.messages };
  })(),
  // A subagent whose compactions cut the context: allowed.
  ses_sub_healthy: (() => {
    const s = new SessionBuilder("ses_sub_healthy").user("explore");
    s.step({ tool: "read", input: { filePath: "a.ts" } }, 150_000).compact();
    s.step({ tool: "read", input: { filePath: "b.ts" } }, 40_000).compact({ continueTurn: false });
    return { messages: s.messages };
  })(),
  // A subagent whose compaction did not reduce the context: no-progress.
  ses_sub_stalled: (() => {
    const s = new SessionBuilder("ses_sub_stalled").user("review");
    s.step({ tool: "grep", input: { pattern: "x" } }, 150_000).compact();
    s.step({ tool: "grep", input: { pattern: "y" } }, 149_000).compact({ continueTurn: false });
    return { messages: s.messages };
  })(),
  // Same tool calls as the parent, but interrupted by a real user message: allowed.
  ses_sub_answered: (() => {
    const s = new SessionBuilder("ses_sub_answered").user("build");
    s.step(bash("npm run build", "error TS2304\n"), null).step(bash("npm run build", "error TS2304\n"), null);
    s.user("try once more").step(bash("npm run build", "error TS2304\n"), null).compact({ continueTurn: false });
    return { messages: s.messages };
  })(),
  // A session whose messages cannot be read: falls back.
  ses_sub_unreadable: { messages: [], fails: true },
};
const IDS = Object.keys(SESSIONS);

const inputFor = (sessionID: string) => {
  const compaction = [...SESSIONS[sessionID]!.messages].reverse().find((m) => m.parts.some((p) => p.type === "compaction"));
  return {
    sessionID,
    agent: "build",
    model: { id: "m", providerID: "p", limit: LIMIT },
    provider: { source: "config", info: {}, options: {} },
    message: compaction?.info ?? { id: "msg_none" },
    overflow: false,
  } as never;
};

/** `session.messages` for every session, answering from the session the path names. */
function answer(options: { path: { id: string }; query?: { limit?: number } }) {
  const session = SESSIONS[options.path.id];
  if (!session || session.fails) return Promise.reject(new Error(`session ${options.path.id} is gone`));
  return Promise.resolve(newestMessages(session.messages)(options.query ?? {}));
}

interface Outcome {
  enabled: boolean;
  logs: Array<Pick<LogBody, "level" | "message"> & { decision: unknown }>;
  toasts: number;
}

const summarise = (enabled: boolean, logs: LogBody[], toasts: number): Outcome => ({
  enabled,
  logs: logs.map((l) => ({ level: l.level, message: l.message, decision: l.extra?.decision })),
  toasts,
});

/** What a fresh guard, called for this session alone, does. */
async function alone(sessionID: string): Promise<Outcome> {
  const fake = fakeClient(() => undefined);
  fake.client.session.messages.mockImplementation(answer as never);
  const hook = createGuard({ client: fake.client as never }, undefined, { env: {} })["experimental.compaction.autocontinue"]!;
  const output = { enabled: true };
  await hook(inputFor(sessionID), output);
  return summarise(output.enabled, fake.logs, fake.toasts.length);
}

const EXPECTED = Object.fromEntries(await Promise.all(IDS.map(async (id) => [id, await alone(id)] as const)));

describe("each session alone", () => {
  it("reaches its own outcome (the reference for the concurrent runs)", () => {
    expect(Object.fromEntries(IDS.map((id) => [id, [EXPECTED[id]!.enabled, EXPECTED[id]!.logs[0]?.decision ?? null]]))).toEqual({
      ses_parent: [false, "deny"],
      ses_sub_healthy: [true, "allow"],
      ses_sub_stalled: [false, "deny"],
      ses_sub_answered: [true, "allow"],
      ses_sub_unreadable: [true, null],
    });
    expect(EXPECTED.ses_parent!.logs[0]!.message).toContain("repeated-tool-call");
    expect(EXPECTED.ses_sub_stalled!.logs[0]!.message).toContain("no-progress");
    expect(EXPECTED.ses_sub_unreadable!.logs[0]!.message).toContain("session ses_sub_unreadable is gone");
  });
});

describe("sessions compacting concurrently", () => {
  it("every call decides on its own session, whatever order the answers arrive in", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.shuffledSubarray(IDS, { minLength: IDS.length }),
        fc.integer({ min: 1, max: 3 }),
        async (s, order, rounds) => {
          const fake = fakeClient(() => undefined);
          // session.messages, the log and the toast all settle when the scheduler says.
          fake.client.session.messages.mockImplementation(s.scheduleFunction(answer) as never);
          const log = fake.client.app.log.getMockImplementation()!;
          const toast = fake.client.tui.showToast.getMockImplementation()!;
          fake.client.app.log.mockImplementation(s.scheduleFunction(log) as never);
          fake.client.tui.showToast.mockImplementation(s.scheduleFunction(toast) as never);
          const hook = createGuard({ client: fake.client as never }, undefined, { env: {} })["experimental.compaction.autocontinue"]!;

          const calls = Array.from({ length: rounds }, () => order)
            .flat()
            .map((sessionID) => {
              const output = { enabled: true };
              return { sessionID, output, done: hook(inputFor(sessionID), output) };
            });
          await s.waitFor(Promise.all(calls.map((c) => c.done)));

          for (const { sessionID, output } of calls) expect(output.enabled).toBe(EXPECTED[sessionID]!.enabled);
          // Each session's log lines are its own, once per call, whatever the interleaving.
          for (const sessionID of IDS) {
            const mine = fake.logs.filter((l) => l.message.includes(`session ${sessionID}`));
            expect(summarise(true, mine, 0).logs).toEqual(Array.from({ length: rounds }, () => EXPECTED[sessionID]!.logs).flat());
          }
          expect(fake.logs).toHaveLength(rounds * IDS.length);
          expect(fake.toasts).toHaveLength(rounds * IDS.reduce((n, id) => n + EXPECTED[id]!.toasts, 0));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a session read while its history grows: each call decides on the snapshot it got", async () => {
    // The parent's history after its first compaction (allowed: nothing to compare with yet)
    // and after its third (denied). The first snapshot is answered last.
    const all = SESSIONS.ses_parent!.messages;
    const summaries = all.flatMap((m, i) => (m.info.summary === true ? [i] : []));
    const first = all.slice(0, summaries[0]! + 1);
    const fake = fakeClient(() => undefined);
    let release: ((value: unknown) => void) | undefined;
    fake.client.session.messages
      .mockImplementationOnce(() => new Promise((resolve) => (release = resolve)))
      .mockImplementationOnce(async () => ({ data: all }));
    const hook = createGuard({ client: fake.client as never }, undefined, { env: {} })["experimental.compaction.autocontinue"]!;
    const early = { enabled: true };
    const late = { enabled: true };
    const earlyDone = hook({ ...(inputFor("ses_parent") as object), message: first.at(-2)!.info } as never, early);
    await hook(inputFor("ses_parent"), late);
    release!({ data: first });
    await earlyDone;
    expect([early.enabled, late.enabled]).toEqual([true, false]);
    expect(fake.logs.map((l) => [l.extra?.messageID, l.extra?.compaction, l.extra?.decision, l.extra?.rule])).toEqual([
      [all.at(-2)!.info.id, 3, "deny", "repeated-tool-call"],
      [first.at(-2)!.info.id, 1, "allow", null],
    ]);
  });
});

describe("no per-session state", () => {
  it("one hook object, called in any order and any number of times, answers as a fresh one", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...IDS), { minLength: 1, maxLength: 25 }), async (sequence) => {
        const fake = fakeClient(() => undefined);
        fake.client.session.messages.mockImplementation(answer as never);
        const hook = createGuard({ client: fake.client as never }, undefined, { env: {} })["experimental.compaction.autocontinue"]!;
        for (const sessionID of sequence) {
          const before = fake.logs.length;
          const toasts = fake.toasts.length;
          const output = { enabled: true };
          await hook(inputFor(sessionID), output);
          expect(summarise(output.enabled, fake.logs.slice(before), fake.toasts.length - toasts)).toEqual(EXPECTED[sessionID]);
        }
      }),
      { numRuns: 60 },
    );
  });
});

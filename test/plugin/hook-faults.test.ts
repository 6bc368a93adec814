/**
 * The autocontinue hook when opencode's client misbehaves: `session.messages` throws, hangs,
 * answers an error or junk, or thousands of messages; `config.get` throws, hangs or answers
 * junk; `app.log` and `tui.showToast` throw or hang; `tui`, `app` or `config` are missing. The hook must decide or fall back within its timeouts,
 * log exactly one warning on fallback, never throw, and leave `output.enabled` true unless
 * it denied. Timeouts run on fake timers: the bounds are checked exactly, not by wall clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createGuard, SERVICE } from "../../src/plugin/opencode-v1/guard.js";
import { VERSION } from "../../src/shared/version.js";
import { fakeClient, newestMessages } from "../support/client.js";
import { bash, SessionBuilder, type Message } from "../support/session.js";
import { syntheticMessages } from "../support/synthetic.js";

const MESSAGES_MS = 500;
const NOTIFY_MS = 100;
const SESSION = "ses_faults";

/**
 * A loop the guard denies: the hook decides the third compaction, repeated-tool-call (the
 * second would already be denied, by no-new-work).
 */
function looping(): Message[] {
  const session = new SessionBuilder(SESSION).user("run it");
  for (let i = 0; i < 3; i++) session.step(bash("npm test", "1 failed\n"), null).compact({ continueTurn: i < 2 });
  return session.messages;
}

/** A healthy session the guard allows. */
function healthy(): Message[] {
  return new SessionBuilder(SESSION).user().step(bash("ls"), 9_000).compact().messages;
}

/**
 * Compaction 1 cut 9,000 to 7,000 tokens (enough), but for a model with an 8,000 input limit
 * and a 2,000 output limit opencode's default reserve (min(20,000, output)) puts the usable
 * line at 6,000: no-progress denies, still over it. With compaction.reserved 500 the line is
 * 7,500 and the guard allows.
 */
function overReserve(): Message[] {
  return new SessionBuilder(SESSION)
    .user()
    .step({ tool: "read", input: { filePath: "a.ts" } }, 9_000)
    .compact()
    .step({ tool: "read", input: { filePath: "b.ts" } }, 7_000)
    .compact({ continueTurn: false }).messages;
}
const INPUT_LIMITED = { context: 10_000, input: 8_000, output: 2_000 };

const inputFor = (messages: readonly Message[], limit: Record<string, number> = { context: 200_000, output: 32_000 }) => {
  const compaction = [...messages].reverse().find((m) => m.parts.some((p) => p.type === "compaction"));
  return {
    sessionID: SESSION,
    agent: "build",
    model: { id: "m", providerID: "p", limit },
    provider: { source: "config", info: {}, options: {} },
    message: compaction?.info ?? { id: "msg_unknown" },
    overflow: false,
  } as never;
};

type Fake = ReturnType<typeof fakeClient>;

/** Runs the hook once, on fake timers, and reports when it settled (ms of fake time). */
async function runHook(
  fake: Fake | { client: unknown },
  messages: readonly Message[],
  options: unknown = undefined,
  limit?: Record<string, number>,
) {
  const hooks = createGuard({ client: fake.client as never }, options, {
    env: {},
    messagesTimeoutMs: MESSAGES_MS,
    notifyTimeoutMs: NOTIFY_MS,
  });
  const output = { enabled: true };
  const started = Date.now();
  let settledAt: number | undefined;
  let failure: unknown;
  const done = hooks["experimental.compaction.autocontinue"]!(inputFor(messages, limit), output).then(
    () => (settledAt = Date.now() - started),
    (error: unknown) => (failure = error),
  );
  await vi.advanceTimersByTimeAsync(10 * (MESSAGES_MS + NOTIFY_MS));
  await done;
  expect(failure).toBeUndefined();
  return { output, settledAt: settledAt! };
}

const never = () => new Promise<never>(() => undefined);

const FALLBACK = new RegExp(`^compaction-guard could not decide for session ${SESSION}; auto-continue left to opencode: `);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("session.messages fails: fall back, one warning, enabled stays true", () => {
  it.each([
    [
      "throws synchronously",
      () => {
        throw new Error("socket closed\n    at Client.request (sdk.js:1:1)");
      },
      "socket closed",
    ],
    ["rejects", () => Promise.reject(new Error("ECONNREFUSED 127.0.0.1:4096")), "ECONNREFUSED 127.0.0.1:4096"],
    ["rejects with a string", () => Promise.reject("plain string"), "plain string"],
    ["rejects with nothing", () => Promise.reject(undefined), "unknown error"],
    [
      "answers an error object",
      () => ({ error: { name: "NotFoundError", data: { message: "Session not found" } } }),
      'session.messages returned no message list ({"name":"NotFoundError","data":{"message":"Session not found"}})',
    ],
    ["answers an error that cannot be serialised", () => ({ error: { big: 1n } }), "Do not know how to serialize a BigInt"],
    ["answers nothing", () => undefined, "session.messages returned no message list"],
    ["answers data that is not an array", () => ({ data: { messages: [] } }), "session.messages returned no message list"],
    ["answers data: null", () => ({ data: null }), "session.messages returned no message list"],
    [
      "answers an array of junk",
      () => ({ data: [1, "x", null, [], { info: 5 }, { parts: "no" }] }),
      "no automatic compaction among the 6 newest messages",
    ],
    ["answers an empty array", () => ({ data: [] }), "no automatic compaction among the 0 newest messages"],
  ])("%s", async (_, answer, reason) => {
    const fake = fakeClient(() => undefined);
    fake.client.session.messages.mockImplementation(answer as never);
    const { output, settledAt } = await runHook(fake, looping());
    expect(output.enabled).toBe(true);
    expect(fake.logs).toHaveLength(1);
    expect(fake.logs[0]).toMatchObject({ service: SERVICE, level: "warn", extra: { sessionID: SESSION } });
    expect(fake.logs[0]!.message).toMatch(FALLBACK);
    expect(fake.logs[0]!.message.replace(FALLBACK, "")).toContain(reason);
    expect(fake.logs[0]!.message).not.toContain("\n");
    expect(fake.toasts).toEqual([]);
    expect(settledAt).toBe(0);
  });

  it("hangs: gives up after messagesTimeoutMs exactly", async () => {
    const fake = fakeClient(() => undefined);
    fake.client.session.messages.mockImplementation(never);
    const { output, settledAt } = await runHook(fake, looping());
    expect(output.enabled).toBe(true);
    expect(settledAt).toBe(MESSAGES_MS);
    expect(fake.logs.map((l) => [l.level, l.message.replace(FALLBACK, "")])).toEqual([
      ["warn", `session.messages did not answer within ${MESSAGES_MS} ms`],
    ]);
  });

  it("answers after the timeout: the late answer changes nothing", async () => {
    const fake = fakeClient(() => undefined);
    fake.client.session.messages.mockImplementation(
      () => new Promise((resolve) => setTimeout(() => resolve({ data: looping() }), MESSAGES_MS + 1)),
    );
    const { output } = await runHook(fake, looping());
    expect(output.enabled).toBe(true);
    expect(fake.logs).toHaveLength(1);
    expect(fake.toasts).toEqual([]);
  });

  it("the session is missing from the client entirely", async () => {
    const fake = fakeClient(() => undefined);
    const { output } = await runHook({ client: { app: fake.client.app, tui: fake.client.tui } }, looping());
    expect(output.enabled).toBe(true);
    expect(fake.logs).toHaveLength(1);
    expect(fake.logs[0]!.message).toMatch(FALLBACK);
  });
});

describe("thousands of messages", () => {
  /** 5,000 messages of a normal session, then a loop. */
  const long = (): Message[] => {
    const tail = looping();
    return [...syntheticMessages(5_000, { sessionID: SESSION }), ...tail];
  };

  it.each([
    ["the client honours query.limit", (messages: Message[]) => newestMessages(messages)],
    ["the client ignores query.limit and sends all of them", (messages: Message[]) => () => ({ data: messages })],
  ])("%s: decides on the newest messages, in no time", async (_, server) => {
    const messages = long();
    const fake = fakeClient(server(messages));
    const { output, settledAt } = await runHook(fake, messages);
    expect(output.enabled).toBe(false);
    expect(settledAt).toBe(0);
    expect(fake.client.session.messages).toHaveBeenCalledWith({ path: { id: SESSION }, query: { limit: 200 } });
    expect(fake.logs).toHaveLength(1);
    expect(fake.logs[0]!.extra).toMatchObject({ decision: "deny", rule: "repeated-tool-call" });
  });

  it("a healthy 5,000-message session is allowed", async () => {
    const messages = [...syntheticMessages(5_000, { sessionID: SESSION })];
    const fake = fakeClient(newestMessages(messages));
    const { output } = await runHook(fake, messages);
    expect(output.enabled).toBe(true);
    expect(fake.logs.map((l) => [l.level, l.extra?.decision])).toEqual([["info", "allow"]]);
  });
});

describe("notifications that fail never undo a denial nor hold the hook", () => {
  const broken = {
    throws: () => {
      throw new Error("tui gone");
    },
    rejects: () => Promise.reject(new Error("tui gone")),
    hangs: never,
  };

  it.each(Object.entries(broken))("tui.showToast %s: still denied, warn log written", async (how, impl) => {
    const fake = fakeClient(newestMessages(looping()));
    fake.client.tui.showToast.mockImplementation(impl as never);
    const { output, settledAt } = await runHook(fake, looping());
    expect(output.enabled).toBe(false);
    expect(fake.client.tui.showToast).toHaveBeenCalledTimes(1);
    expect(fake.logs).toHaveLength(1);
    expect(fake.logs[0]).toMatchObject({ level: "warn", extra: { decision: "deny", rule: "repeated-tool-call" } });
    expect(fake.logs[0]!.message).toMatch(/^compaction-guard stopped auto-continue in session ses_faults/);
    expect(settledAt).toBe(how === "hangs" ? NOTIFY_MS : 0);
  });

  it.each(Object.entries(broken))("app.log %s: still denied, toast shown", async (how, impl) => {
    const fake = fakeClient(newestMessages(looping()));
    fake.client.app.log.mockImplementation(impl as never);
    const { output, settledAt } = await runHook(fake, looping());
    expect(output.enabled).toBe(false);
    expect(fake.toasts).toHaveLength(1);
    // The start-up line, then the denial's warn line.
    expect(fake.client.app.log).toHaveBeenCalledTimes(2);
    expect(settledAt).toBe(how === "hangs" ? NOTIFY_MS : 0);
  });

  it("both hang: the hook still returns after two notify timeouts, denied", async () => {
    const fake = fakeClient(newestMessages(looping()));
    fake.client.tui.showToast.mockImplementation(never);
    fake.client.app.log.mockImplementation(never);
    const { output, settledAt } = await runHook(fake, looping());
    expect(output.enabled).toBe(false);
    expect(settledAt).toBe(2 * NOTIFY_MS);
  });

  it("session.messages and app.log both hang: falls back after messages + notify timeouts", async () => {
    const fake = fakeClient(() => undefined);
    fake.client.session.messages.mockImplementation(never);
    fake.client.app.log.mockImplementation(never);
    const { output, settledAt } = await runHook(fake, looping());
    expect(output.enabled).toBe(true);
    expect(settledAt).toBe(MESSAGES_MS + NOTIFY_MS);
    expect(fake.client.app.log).toHaveBeenCalledTimes(2); // the start-up line, then the fallback warning
  });

  it("a client without tui: denied, and the log line says why (not a fallback warning)", async () => {
    const fake = fakeClient(newestMessages(looping()));
    const { output } = await runHook({ client: { session: fake.client.session, app: fake.client.app } }, looping());
    expect(output.enabled).toBe(false);
    expect(fake.logs).toHaveLength(1);
    expect(fake.logs[0]).toMatchObject({ level: "warn", extra: { decision: "deny" } });
    expect(fake.logs[0]!.message).toMatch(/^compaction-guard stopped auto-continue/);
  });

  it("a client without app: denied with a toast; allowed without a sound", async () => {
    const fake = fakeClient(newestMessages(looping()));
    const denied = await runHook({ client: { session: fake.client.session, tui: fake.client.tui } }, looping());
    expect(denied.output.enabled).toBe(false);
    expect(fake.toasts).toHaveLength(1);
    const quiet = fakeClient(newestMessages(healthy()));
    const allowed = await runHook({ client: { session: quiet.client.session } }, healthy());
    expect(allowed.output.enabled).toBe(true);
    expect(quiet.client.session.messages).toHaveBeenCalledTimes(1); // it read the history and decided
  });

  it("invalid settings are reported once even when app.log hangs, and the hook still works", async () => {
    const fake = fakeClient(newestMessages(looping()));
    fake.client.app.log.mockImplementation(never);
    const { output } = await runHook(fake, looping(), { threshold: "three", colour: "red" });
    expect(output.enabled).toBe(false);
    const messages = fake.client.app.log.mock.calls.map(([options]) => (options as { body: { message: string } }).body.message);
    expect(messages).toEqual([
      'compaction-guard: setting ignored: plugin option threshold: threshold must be an integer from 2 to 1000, got "three"; using 3',
      "compaction-guard: setting ignored: plugin option colour: unknown setting (known: threshold, window, minReduction, predict, matchOutput, ignore, toolLoop, notify, mode, prevent, statusFile, enabled); ignored",
      `compaction-guard ${VERSION} loaded: threshold 3 (default), window 8 (default), minReduction 0.1 (default), predict true (default), matchOutput true (default), ignore [] (default), toolLoop "warn" (default), notify "toast" (default), mode "enforce" (default), prevent true (default)`,
      expect.stringMatching(/^compaction-guard stopped auto-continue/),
    ]);
  });
});

describe("config.get fails: opencode's default compaction.reserved, and the hook still decides", () => {
  const STILL_OVER = "still over opencode's usable context of 6,000 tokens";

  it("answers reserved 500: the reference, allowed at once", async () => {
    const fake = fakeClient(newestMessages(overReserve()), () => ({ data: { compaction: { reserved: 500 } } }));
    const { output, settledAt } = await runHook(fake, overReserve(), undefined, INPUT_LIMITED);
    expect(output.enabled).toBe(true);
    expect(settledAt).toBe(0);
    expect(fake.logs.map((l) => [l.level, l.extra?.decision])).toEqual([["info", "allow"]]);
  });

  it.each([
    [
      "throws synchronously",
      () => {
        throw new Error("config gone");
      },
    ],
    ["rejects", () => Promise.reject(new Error("ECONNREFUSED"))],
    ["rejects with nothing", () => Promise.reject(undefined)],
    ["answers nothing", () => undefined],
    ["answers junk", () => ({ data: { compaction: "reserved=500" } })],
    ["answers a reserve that is not finite", () => ({ data: { compaction: { reserved: Number.POSITIVE_INFINITY } } })],
  ])("%s: decides at once with the default reserve, one warn line, no fallback", async (_, impl) => {
    const fake = fakeClient(newestMessages(overReserve()));
    fake.client.config.get.mockImplementation(impl as never);
    const { output, settledAt } = await runHook(fake, overReserve(), undefined, INPUT_LIMITED);
    expect(output.enabled).toBe(false);
    expect(settledAt).toBe(0);
    expect(fake.client.config.get).toHaveBeenCalledTimes(1);
    expect(fake.toasts).toHaveLength(1);
    expect(fake.logs).toHaveLength(1);
    expect(fake.logs[0]).toMatchObject({ level: "warn", extra: { decision: "deny", rule: "no-progress" } });
    expect(fake.logs[0]!.message).toContain(STILL_OVER);
  });

  it("hangs: decides with the default reserve after notifyTimeoutMs exactly", async () => {
    const fake = fakeClient(newestMessages(overReserve()));
    fake.client.config.get.mockImplementation(never);
    const { output, settledAt } = await runHook(fake, overReserve(), undefined, INPUT_LIMITED);
    expect(output.enabled).toBe(false);
    expect(settledAt).toBe(NOTIFY_MS);
    expect(fake.logs.map((l) => [l.level, l.extra?.rule])).toEqual([["warn", "no-progress"]]);
    expect(fake.logs[0]!.message).toContain(STILL_OVER);
  });

  it("answers after the timeout: the late reserve changes nothing", async () => {
    const fake = fakeClient(newestMessages(overReserve()));
    fake.client.config.get.mockImplementation(
      () => new Promise((resolve) => setTimeout(() => resolve({ data: { compaction: { reserved: 500 } } }), NOTIFY_MS + 1)),
    );
    const { output, settledAt } = await runHook(fake, overReserve(), undefined, INPUT_LIMITED);
    expect(output.enabled).toBe(false);
    expect(settledAt).toBe(NOTIFY_MS);
    expect(fake.logs).toHaveLength(1);
  });

  it("config.get and session.messages both hang: one fallback warning after messagesTimeoutMs, not two timeouts", async () => {
    const fake = fakeClient(() => undefined);
    fake.client.session.messages.mockImplementation(never);
    fake.client.config.get.mockImplementation(never);
    const { output, settledAt } = await runHook(fake, overReserve(), undefined, INPUT_LIMITED);
    expect(output.enabled).toBe(true);
    expect(settledAt).toBe(MESSAGES_MS);
    expect(fake.logs.map((l) => [l.level, l.message.replace(FALLBACK, "")])).toEqual([
      ["warn", `session.messages did not answer within ${MESSAGES_MS} ms`],
    ]);
  });

  it("the client has no config at all: decides at once with the default reserve", async () => {
    const fake = fakeClient(newestMessages(overReserve()));
    const { session, app, tui } = fake.client;
    const { output, settledAt } = await runHook({ client: { session, app, tui } }, overReserve(), undefined, INPUT_LIMITED);
    expect(output.enabled).toBe(false);
    expect(settledAt).toBe(0);
    expect(fake.logs[0]!.message).toContain(STILL_OVER);
  });

  it("a read that fails after a good one keeps the reserve read before", async () => {
    const fake = fakeClient(newestMessages(overReserve()), () => ({ data: { compaction: { reserved: 500 } } }));
    const hooks = createGuard({ client: fake.client as never }, undefined, {
      env: {},
      messagesTimeoutMs: MESSAGES_MS,
      notifyTimeoutMs: NOTIFY_MS,
    });
    const hook = hooks["experimental.compaction.autocontinue"]!;
    const first = { enabled: true };
    await hook(inputFor(overReserve(), INPUT_LIMITED), first);
    fake.client.config.get.mockImplementation(() => Promise.reject(new Error("config gone")));
    const second = { enabled: true };
    await hook(inputFor(overReserve(), INPUT_LIMITED), second);
    expect([first.enabled, second.enabled]).toEqual([true, true]);
    expect(fake.client.config.get).toHaveBeenCalledTimes(2);
  });

  it("a loop is still stopped while config.get hangs", async () => {
    const fake = fakeClient(newestMessages(looping()));
    fake.client.config.get.mockImplementation(never);
    const { output, settledAt } = await runHook(fake, looping());
    expect(output.enabled).toBe(false);
    expect(settledAt).toBe(NOTIFY_MS);
    expect(fake.logs[0]!.extra).toMatchObject({ decision: "deny", rule: "repeated-tool-call" });
  });
});

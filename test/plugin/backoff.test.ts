/**
 * The back-off from a slow or failing opencode (src/plugin/opencode-v1/backoff.ts) through createGuard:
 * per-step reads (the tool-time check after a tool call, the continue-note rewrite before a
 * model request) pay the time-out once, with one warn line; then steps read nothing and cost
 * nothing; a probe later, started without being awaited, ends the back-off with one info
 * line. Decisions at a compaction still read, with their own time-out. Fake timers: every
 * bound is checked exactly.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createGuard } from "../../src/plugin/opencode-v1/guard.js";
import { FIRST_BACKOFF_MS, MAX_BACKOFF_MS } from "../../src/plugin/opencode-v1/backoff.js";
import { bash, SessionBuilder, type Message } from "../support/session.js";
import { fakeClient, newestMessages } from "../support/client.js";

const SESSION = "ses_slow";
const STEP_MS = 200;
const MESSAGES_MS = 500;
const NOTIFY_MS = 100;
const echo = bash("echo hi", "hi\n");

const BACKS_OFF = (why: string) =>
  `compaction-guard backs off: opencode is slow or failing (${why}); tool-loop checks and continue-note rewrites are skipped until it answers again (next try in 15 s); compactions are still decided`;

/**
 * A guard over a session with one compaction and its continue turn (the transform has a turn
 * to rewrite), on a client whose `session.messages` answers after `delay.ms` (0: at once) or
 * fails while `delay.fail` is set.
 */
function setup() {
  const session = new SessionBuilder(SESSION).user("say hi").step(echo, 1000).compact().step(echo, 1000);
  const delay = { ms: 0, fail: false };
  const fake = fakeClient(() => undefined);
  fake.client.session.messages.mockImplementation(async (options: { query?: { limit?: number } }) => {
    if (delay.fail) throw new Error("ECONNREFUSED 127.0.0.1:4096");
    const answer = newestMessages(session.messages)(options.query ?? {});
    if (delay.ms === 0) return answer;
    return new Promise((resolve) => setTimeout(() => resolve(answer), delay.ms));
  });
  const guard = createGuard({ client: fake.client as never }, undefined, {
    env: {},
    stepTimeoutMs: STEP_MS,
    // A step waits for the read's own bound here: these tests are about the back-off (test/plugin/mirror.test.ts: the budget).
    firstReadBudgetMs: STEP_MS + 50,
    messagesTimeoutMs: MESSAGES_MS,
    notifyTimeoutMs: NOTIFY_MS,
  });
  /** How long (fake ms) a hook call took to settle. */
  const timed = async (call: () => Promise<void>): Promise<number> => {
    const started = Date.now();
    let settled: number | undefined;
    const done = call().then(() => (settled = Date.now() - started));
    await vi.advanceTimersByTimeAsync(0);
    while (settled === undefined) await vi.advanceTimersByTimeAsync(10);
    await done;
    return settled;
  };
  /** One tool call's after hook; returns its cost and what the model reads. */
  const toolCall = async () => {
    const output = { title: "", output: "hi\n", metadata: {} };
    const ms = await timed(() =>
      guard["tool.execute.after"]!({ tool: "bash", sessionID: SESSION, callID: `c${session.messages.length}`, args: echo.input }, output),
    );
    session.step({ ...echo, output: output.output }, 1000);
    return { ms, output: output.output };
  };
  /** One model request's transform (a fresh guard's note cache is empty, so it reads). */
  const request = async () => {
    const sent = { messages: structuredClone(session.messages) as never[] };
    return timed(() => guard["experimental.chat.messages.transform"]!({}, sent));
  };
  const compaction = async (messages: readonly Message[]) => {
    const compacted = [...messages].reverse().find((m) => m.parts.some((p) => p.type === "compaction"))!;
    const output = { enabled: true };
    const input = {
      sessionID: SESSION,
      agent: "build",
      model: { id: "m", providerID: "p", limit: { context: 200_000, output: 32_000 } },
      provider: { source: "config", info: {}, options: {} },
      message: compacted.info,
      overflow: false,
    } as never;
    const ms = await timed(() => guard["experimental.compaction.autocontinue"]!(input, output));
    return { ms, output };
  };
  const lines = () => fake.logs.map((l) => `${l.level} ${l.message}`);
  return { session, delay, fake, guard, toolCall, request, compaction, lines };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a slow opencode: the bound once, then nothing", () => {
  it("messages delayed 6 s: the first step waits the bound, one warn line; the next 20 steps and requests cost 0 ms and read nothing", async () => {
    const s = setup();
    s.delay.ms = 6_000;
    const first = await s.toolCall();
    expect(first.ms).toBe(STEP_MS);
    expect(first.output).toBe("hi\n");
    expect(s.lines()).toEqual([`warn ${BACKS_OFF(`session.messages did not answer within ${STEP_MS} ms`)}`]);
    const reads = s.fake.client.session.messages.mock.calls.length;
    const costs: number[] = [];
    for (let i = 0; i < 10; i++) costs.push((await s.toolCall()).ms, await s.request());
    expect(costs).toEqual(new Array(20).fill(0));
    expect(s.fake.client.session.messages.mock.calls.length).toBe(reads);
    expect(s.lines()).toHaveLength(1);
  });

  it("a request first: the same line, and a tool call after it costs nothing", async () => {
    const s = setup();
    s.delay.ms = 6_000;
    expect(await s.request()).toBe(STEP_MS);
    expect((await s.toolCall()).ms).toBe(0);
    expect(s.lines()).toEqual([`warn ${BACKS_OFF(`session.messages did not answer within ${STEP_MS} ms`)}`]);
  });

  it("a failing read backs off the same way, with its reason", async () => {
    const s = setup();
    s.delay.fail = true;
    expect((await s.toolCall()).ms).toBe(0);
    expect((await s.toolCall()).ms).toBe(0);
    expect(s.lines()).toEqual([`warn ${BACKS_OFF("ECONNREFUSED 127.0.0.1:4096")}`]);
    expect(s.fake.client.session.messages).toHaveBeenCalledTimes(1);
  });

  it("two steps at once while opencode is slow: each waits the bound once, one line", async () => {
    const s = setup();
    s.delay.ms = 6_000;
    const [a, b] = await Promise.all([s.toolCall(), s.request()]);
    expect([a.ms, b]).toEqual([STEP_MS, STEP_MS]);
    expect(s.lines()).toHaveLength(1);
  });
});

describe("retries: a probe not awaited, doubling waits, one line when guarding again", () => {
  it("still slow at the first probe: quiet, the wait doubles; answering at the next: one info line, then steps are checked again", async () => {
    const s = setup();
    s.delay.ms = 6_000;
    await s.toolCall();
    await vi.advanceTimersByTimeAsync(FIRST_BACKOFF_MS);
    // The wait is over: this step starts a probe and does not wait for it.
    const reads = s.fake.client.session.messages.mock.calls.length;
    expect((await s.toolCall()).ms).toBe(0);
    expect(s.fake.client.session.messages.mock.calls.length).toBe(reads + 1);
    await vi.advanceTimersByTimeAsync(STEP_MS);
    expect(s.lines()).toHaveLength(1); // the probe timed out, quietly
    // The wait doubled: 15 s later nothing is probed yet.
    await vi.advanceTimersByTimeAsync(FIRST_BACKOFF_MS);
    expect((await s.toolCall()).ms).toBe(0);
    expect(s.fake.client.session.messages.mock.calls.length).toBe(reads + 1);
    // opencode is fast again; at 30 s the next probe answers.
    s.delay.ms = 0;
    await vi.advanceTimersByTimeAsync(FIRST_BACKOFF_MS);
    expect((await s.toolCall()).ms).toBe(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(s.lines()).toEqual([
      `warn ${BACKS_OFF(`session.messages did not answer within ${STEP_MS} ms`)}`,
      // 4: the first call's /guard switch read timed out, so its tool-loop read was skipped too.
      "info compaction-guard is guarding every step again: opencode answered in 0 ms (4 steps skipped)",
    ]);
    // Guarding: the next call reads and is checked (the echo chain is long by now: the notice).
    const next = await s.toolCall();
    expect(next.output).toContain("compaction-guard");
    expect(s.lines().filter((l) => l.startsWith("warn compaction-guard: tool loop"))).toHaveLength(1);
  });

  it("the wait is capped", async () => {
    const s = setup();
    s.delay.fail = true;
    await s.toolCall();
    let wait = FIRST_BACKOFF_MS;
    const probes: number[] = [];
    for (let i = 0; i < 8; i++) {
      await vi.advanceTimersByTimeAsync(wait);
      const before = s.fake.client.session.messages.mock.calls.length;
      await s.toolCall();
      probes.push(s.fake.client.session.messages.mock.calls.length - before);
      await vi.advanceTimersByTimeAsync(0);
      wait = Math.min(wait * 2, MAX_BACKOFF_MS);
    }
    expect(probes).toEqual(new Array(8).fill(1));
    expect(s.lines()).toHaveLength(1);
  });
});

describe("compactions are still decided while backed off", () => {
  it("the autocontinue hook reads with its own time-out and decides", async () => {
    const s = setup();
    s.delay.ms = 6_000;
    await s.toolCall();
    // A loop to decide: the same echo across three compactions, nothing new.
    for (let i = 0; i < 3; i++) s.session.step(echo, null).compact({ continueTurn: i < 2 });
    s.delay.ms = 50;
    const { ms, output } = await s.compaction(s.session.messages);
    expect(ms).toBe(50);
    expect(output.enabled).toBe(false);
    expect(s.lines()[1]).toMatch(/^warn compaction-guard stopped auto-continue in session ses_slow/);
    // A compaction the guard has no event of is read again; slower than its bound: its own
    // warn line, after its own time-out.
    s.session.step(echo, null).compact({ continueTurn: false });
    s.delay.ms = 6_000;
    const slow = await s.compaction(s.session.messages);
    expect(slow.ms).toBe(MESSAGES_MS);
    expect(slow.output.enabled).toBe(true);
    expect(s.lines()[2]).toBe(
      `warn compaction-guard could not decide for session ${SESSION}; auto-continue left to opencode: session.messages did not answer within ${MESSAGES_MS} ms`,
    );
  });
});

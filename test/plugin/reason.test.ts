/**
 * The reason stays: after a stopped loop the guard leaves a note in the session,
 * once the session is idle, as a `noReply` user message holding one `ignored` text part; the
 * note names the session, the rule, one sentence of evidence and the next step, and the
 * guard never takes it for the user speaking.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createGuard, DecisionRegistry } from "../../src/plugin/opencode-v1/guard.js";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { describeEvidence, nextSteps } from "../../src/judge/explain.js";
import { sessionLabel, stopRecord } from "../../src/guard/notices.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { decide, findDecisionPoint } from "../../src/core.js";
import { fakeClient, newestMessages } from "../support/client.js";
import { bash, SessionBuilder, type Message } from "../support/session.js";
import { OPENCODE_WORDS } from "../../src/hosts/opencode/words.js";

const loop = JSON.parse(readFileSync(new URL("../../fixtures/opencode-1.18.33-loop-bash.json", import.meta.url), "utf8")) as {
  info: { id: string };
  messages: Message[];
};
const SESSION = loop.info.id;
const LIMITS = { context: 8000, output: 2000 };

/** The history as it stood when the summary of compaction `n` (1-based) finished. */
function upToSummary(messages: Message[], n: number): Message[] {
  let seen = 0;
  const end = messages.findIndex((m) => m.info.summary === true && ++seen === n);
  return messages.slice(0, end + 1);
}

/** The hook's input for the newest compaction of `messages`. */
const hookInput = (messages: Message[], sessionID = SESSION) => {
  const compaction = [...messages].reverse().find((m) => m.parts.some((p) => p.type === "compaction"))!;
  return {
    sessionID,
    agent: "build",
    model: { id: "fakemodel", providerID: "fake", limit: LIMITS },
    provider: { source: "config", info: {}, options: {} },
    message: compaction.info,
    overflow: false,
  } as never;
};

const idle = (sessionID = SESSION) => ({ event: { type: "session.status", properties: { sessionID, status: { type: "idle" } } } }) as never;
const busy = (sessionID = SESSION) => ({ event: { type: "session.status", properties: { sessionID, status: { type: "busy" } } } }) as never;

/** A guard on `history` (what session.messages answers, newest-N aware), after one hook call. */
async function denied(options: unknown = undefined, history = upToSummary(loop.messages, 2), deps: Parameters<typeof createGuard>[2] = {}) {
  const fake = fakeClient(newestMessages(history), undefined, "Fix the build");
  const hooks = createGuard({ client: fake.client as never }, options, { env: {}, ...deps });
  const output = { enabled: true };
  await hooks["experimental.compaction.autocontinue"]!(hookInput(history), output);
  return { ...fake, hooks, output, history };
}

describe("the note's text (stopRecord)", () => {
  const history = upToSummary(loop.messages, 2);
  const timeline = buildTimeline(history);
  const verdict = decide(timeline, findDecisionPoint(timeline)!, DEFAULT_SETTINGS, { limits: LIMITS });

  it("names the session, the compaction, the rule, one sentence of evidence and the next step, and says whose it is", () => {
    expect(verdict).toMatchObject({ decision: "deny", rule: "no-progress", severity: "warning" });
    const text = stopRecord("continue-turn", sessionLabel(SESSION, "Fix the build"), verdict, 2, OPENCODE_WORDS);
    expect(text.split("\n")).toEqual([
      "Compaction loop stopped by compaction-guard after compaction 2: opencode did not send its automatic continue message, so the model stopped.",
      `Session: "Fix the build" (${SESSION})`,
      `Why (no-progress): ${describeEvidence(verdict, OPENCODE_WORDS)}.`,
      // The export keeps no tail (no tail_start_id): nothing but what every request carries is left.
      "Kept by compaction: no tool call; left after compaction 7,000 tokens, usable 6,000 tokens, trigger 7,020 tokens.",
      "Fix: switch to a model with a larger context: what is left is what every request carries (system prompt, tools, summary).",
      `Next: ${nextSteps(verdict, OPENCODE_WORDS)}`,
      "(A note from the compaction-guard plugin: not your message, and not sent to the model.)",
    ]);
    expect(describeEvidence(verdict, OPENCODE_WORDS)).toBe(
      "the previous compaction left 7,000 tokens of context, down from 7,020 tokens (0% smaller), less than the 10% cut needed to make progress",
    );
  });

  it("names the compaction by id alone when its index is unknown, and the session by id without a title", () => {
    const text = stopRecord("continue-turn", sessionLabel(SESSION, undefined), verdict, null, OPENCODE_WORDS);
    expect(text.split("\n").slice(0, 2)).toEqual([
      "Compaction loop stopped by compaction-guard after compaction msg_22b7cb90b001Oacj8ldTaTA4T8: opencode did not send its automatic continue message, so the model stopped.",
      `Session: ${SESSION}`,
    ]);
  });

  it("quotes no tool output", () => {
    const history = new SessionBuilder()
      .user()
      .step(bash("cat secrets.txt", "SECRET-OUTPUT\n"), null)
      .step(bash("cat secrets.txt", "SECRET-OUTPUT\n"), null);
    history.step(bash("cat secrets.txt", "SECRET-OUTPUT\n"), null).compact().step(bash("cat secrets.txt", "SECRET-OUTPUT\n"), null);
    history
      .step(bash("cat secrets.txt", "SECRET-OUTPUT\n"), null)
      .step(bash("cat secrets.txt", "SECRET-OUTPUT\n"), null)
      .compact({ continueTurn: false });
    const t = buildTimeline(history.messages);
    const v = decide(t, findDecisionPoint(t)!, DEFAULT_SETTINGS);
    expect(v.decision).toBe("deny");
    expect(stopRecord("continue-turn", "ses_test", v, 2, OPENCODE_WORDS)).not.toContain("SECRET-OUTPUT");
  });
});

describe("when the guard stops a loop, it leaves the note once the session is idle", () => {
  it("writes nothing during the hook: opencode would answer a message added then as a new turn", async () => {
    const { output, toasts, logs, prompts } = await denied();
    expect(output.enabled).toBe(false);
    expect(toasts).toHaveLength(1);
    expect(logs.map((l) => l.level)).toEqual(["warn"]);
    expect(prompts).toEqual([]);
  });

  it("on idle: one noReply message with one ignored (not synthetic) text part, in the compaction's agent and model", async () => {
    const { hooks, prompts, logs, history } = await denied();
    await hooks.event!(idle());
    expect(prompts).toHaveLength(1);
    const { sessionID, body } = prompts[0]!;
    expect(sessionID).toBe(SESSION);
    const compaction = history.at(-2)!.info as { agent: string; model: { providerID: string; modelID: string } };
    expect(body).toMatchObject({
      noReply: true,
      agent: compaction.agent,
      model: { providerID: compaction.model.providerID, modelID: compaction.model.modelID },
    });
    expect(body.parts).toHaveLength(1);
    const part = body.parts[0]!;
    expect(part).toMatchObject({ type: "text", ignored: true });
    expect(part.synthetic).toBeUndefined();
    expect(part.metadata).toEqual({
      compaction_guard: { note: "loop-stopped", rule: "no-progress", compactionMessageID: "msg_22b7cb90b001Oacj8ldTaTA4T8" },
    });
    expect(part.time!.end).toBe(part.time!.start);
    // The same session label, evidence and next step as the warn line.
    const [first, named, why, , , next] = part.text!.split("\n");
    expect(first).toBe(
      "Compaction loop stopped by compaction-guard after compaction 2: opencode did not send its automatic continue message, so the model stopped.",
    );
    expect(named).toBe(`Session: "Fix the build" (${SESSION})`);
    const warn = logs[0]!.message;
    expect(warn).toContain(`no-progress: ${why!.replace(/^Why \(no-progress\): /, "")}`);
    expect(warn.endsWith(next!.replace(/^Next: /, ""))).toBe(true);
  });

  it("once per stop: a second idle, session.idle, a busy status or another session's idle write nothing more", async () => {
    const { hooks, prompts } = await denied();
    await hooks.event!(busy());
    await hooks.event!(idle("ses_other"));
    expect(prompts).toHaveLength(0);
    await hooks.event!(idle());
    await hooks.event!(idle());
    await hooks.event!({ event: { type: "session.idle", properties: { sessionID: SESSION } } } as never);
    expect(prompts).toHaveLength(1);
  });

  it("session.idle works as well as session.status idle; junk events are ignored", async () => {
    const { hooks, prompts } = await denied();
    for (const junk of [
      undefined,
      null,
      {},
      { event: null },
      { event: { type: "session.idle" } },
      { event: { type: "session.status", properties: { sessionID: SESSION } } },
    ]) {
      await hooks.event!(junk as never);
    }
    expect(prompts).toHaveLength(0);
    await hooks.event!({ event: { type: "session.idle", properties: { sessionID: SESSION } } } as never);
    expect(prompts).toHaveLength(1);
  });

  it("notify log: the note too (the toast is the only thing it leaves out)", async () => {
    const { hooks, prompts, toasts } = await denied({ notify: "log" });
    await hooks.event!(idle());
    expect(toasts).toHaveLength(0);
    expect(prompts).toHaveLength(1);
  });

  it("no note when it allowed, in observe mode, with notify off, or for turn-finished housekeeping", async () => {
    // Compaction 1 of the loop, prediction off: allowed (with it on, cannot-make-room stops it there).
    const allowed = await denied({ predict: false }, upToSummary(loop.messages, 1));
    const observed = await denied({ mode: "observe" });
    const off = await denied({ notify: "off" });
    const finished = new SessionBuilder().user().step(bash("ls"), 3000).say("Done: the answer.", 6500).compact({ continueTurn: false });
    const housekeeping = await denied(undefined, finished.messages);
    expect([allowed.output.enabled, observed.output.enabled, off.output.enabled, housekeeping.output.enabled]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(housekeeping.logs.map((l) => [l.level, l.extra?.rule])).toEqual([["info", "turn-finished"]]);
    for (const run of [allowed, observed, off, housekeeping]) {
      await run.hooks.event!(idle());
      await run.hooks.event!(idle("ses_test"));
      expect(run.prompts).toEqual([]);
    }
  });

  it("no note when the session went on after the stopped compaction (a reply, or a later plugin turned the continue turn back on)", async () => {
    const { hooks, prompts, history, client, logs } = await denied();
    // By the time the session is idle, a continue turn and a step follow the summary.
    client.session.messages.mockImplementation(async (options) =>
      newestMessages([...history, ...loop.messages.slice(history.length, history.length + 2)])(options.query ?? {}),
    );
    await hooks.event!(idle());
    expect(prompts).toEqual([]);
    expect(logs.at(-1)).toMatchObject({
      level: "debug",
      message: `compaction-guard left no note in session ${SESSION}: the session went on after the stopped compaction`,
    });
    expect(client.session.messages).toHaveBeenLastCalledWith({ path: { id: SESSION }, query: { limit: 1 } });
  });

  it.each([
    ["throws", () => Promise.reject(new Error("connection refused\n at stack"))],
    ["answers an error", async () => ({ error: { name: "NotFoundError", data: { message: "Session not found" } } })],
    ["hangs", () => new Promise(() => {})],
  ])("session.prompt %s: the event hook still resolves (within notifyTimeoutMs), with one warn line", async (_, impl) => {
    const { hooks, client, logs } = await denied(undefined, undefined, { notifyTimeoutMs: 50 });
    client.session.prompt.mockImplementation(impl as never);
    const started = performance.now();
    await expect(hooks.event!(idle())).resolves.toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1_000);
    const warn = logs.filter((l) => l.level === "warn").at(-1)!;
    expect(warn.message).toMatch(new RegExp(`^compaction-guard could not leave its note in session ${SESSION}: `));
    expect(warn.message).not.toContain("at stack");
  });

  it("a client without session.prompt: no note, no error", async () => {
    const fake = fakeClient(newestMessages(upToSummary(loop.messages, 2)));
    const { session, app, tui } = fake.client;
    const hooks = createGuard({ client: { session: { messages: session.messages, get: session.get }, app, tui } as never }, undefined, {
      env: {},
    });
    await hooks["experimental.compaction.autocontinue"]!(hookInput(upToSummary(loop.messages, 2)), { enabled: true });
    await expect(hooks.event!(idle())).resolves.toBeUndefined();
    expect(fake.logs.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([expect.stringMatching(/^compaction-guard stopped/)]);
  });

  it("dispose waits for a note being written (opencode run exits right after idle), and gives up after 2 × notifyTimeoutMs", async () => {
    const slow = await denied(undefined, undefined, { notifyTimeoutMs: 200 });
    let written = false;
    slow.client.session.prompt.mockImplementation((async () => {
      await new Promise((r) => setTimeout(r, 50));
      written = true;
      return { data: {} };
    }) as never);
    void slow.hooks.event!(idle());
    await slow.hooks.dispose!();
    expect(written).toBe(true);

    const stuck = await denied(undefined, undefined, { notifyTimeoutMs: 30 });
    stuck.client.session.messages.mockImplementation((() => new Promise(() => {})) as never);
    void stuck.hooks.event!(idle());
    const started = performance.now();
    await stuck.hooks.dispose!();
    expect(performance.now() - started).toBeLessThan(1_000);
    // Nothing pending: returns at once.
    await expect((await denied()).hooks.dispose!()).resolves.toBeUndefined();
  });

  it("listed twice: the copy that decided leaves the one note", async () => {
    const history = upToSummary(loop.messages, 2);
    const fake = fakeClient(newestMessages(history));
    const registry = new DecisionRegistry();
    const copies = [1, 2].map(() => createGuard({ client: fake.client as never }, undefined, { env: {}, registry }));
    const output = { enabled: true };
    for (const hooks of copies) await hooks["experimental.compaction.autocontinue"]!(hookInput(history), output);
    for (const hooks of copies) await hooks.event!(idle());
    expect(fake.prompts).toHaveLength(1);
  });
});

describe("the guard reads its note as no one speaking", () => {
  /** The note as opencode stores it (a user message with one ignored text part). */
  const note = (id: string): Message => ({
    info: {
      id,
      sessionID: "ses_test",
      role: "user",
      agent: "build",
      model: { providerID: "fake", modelID: "fakemodel" },
      time: { created: 0 },
    },
    parts: [
      {
        id: `prt_${id}`,
        type: "text",
        text: "Compaction loop stopped: …",
        ignored: true,
        metadata: { compaction_guard: { note: "loop-stopped" } },
      },
    ],
  });

  /** The fixed-point loop stopped at compaction 2, then (note?) (reply?), one step, compaction 3. */
  function session(withNote: boolean, withReply: boolean): Message[] {
    const b = new SessionBuilder().user("run echo hi").step(bash("echo hi", "hi\n"), 7020).compact();
    b.step(bash("echo hi", "hi\n"), 7020).compact({ continueTurn: false });
    if (withNote) b.messages.push(note("msg_note"));
    if (withReply) b.user("go on");
    return b.step(bash("echo hi", "hi\n"), 7020).compact({ continueTurn: false }).messages;
  }
  const decision = (messages: Message[]) => {
    const timeline = buildTimeline(messages);
    const v = decide(timeline, findDecisionPoint(timeline)!, DEFAULT_SETTINGS, { limits: LIMITS });
    return [v.compaction.index, v.decision, v.rule];
  };

  it("its role is synthetic, as for any message whose parts are all synthetic or ignored text", () => {
    const entries = buildTimeline(session(true, true)).entries;
    expect(entries.find((e) => e.id === "msg_note")).toMatchObject({ kind: "user", role: "synthetic" });
    const mixed = buildTimeline([
      {
        info: { id: "m1", role: "user" },
        parts: [
          { type: "text", text: "x", ignored: true },
          { type: "text", text: "y", synthetic: true },
        ],
      },
    ]);
    expect(mixed.entries[0]).toMatchObject({ role: "synthetic" });
    // A person's words beside it keep the message real; an ignored file part is no text.
    const spoken = buildTimeline([
      {
        info: { id: "m2", role: "user" },
        parts: [
          { type: "text", text: "x", ignored: true },
          { type: "text", text: "go on" },
        ],
      },
    ]);
    expect(spoken.entries[0]).toMatchObject({ role: "real" });
    const file = buildTimeline([{ info: { id: "m3", role: "user" }, parts: [{ type: "file", ignored: true }] }]);
    expect(file.entries[0]).toMatchObject({ role: "real" });
  });

  it("a reply after the note re-arms the guard (compaction 3 allowed); the note alone does not (denied, as without it)", () => {
    expect(decision(session(false, false))).toEqual([3, "deny", "no-progress"]);
    expect(decision(session(true, false))).toEqual([3, "deny", "no-progress"]);
    expect(decision(session(false, true))).toEqual([3, "allow", null]);
    expect(decision(session(true, true))).toEqual([3, "allow", null]);
  });
});

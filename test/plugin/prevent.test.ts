/**
 * The prevention hooks in the plugin: the ledger pushed to the summary prompt, the continue
 * turn rewritten in what the model is sent (byte for byte the same on every request), the
 * stored history untouched, and every failure leaving opencode's text as it was.
 */
import { describe, expect, it } from "vitest";
import { continueNote } from "../../src/guard/ledger.js";
import { CONTINUE_TEXT } from "../../src/hosts/opencode/facts.js";
import { createGuard } from "../../src/plugin/opencode-v1/guard.js";
import { fakeClient, newestMessages } from "../support/client.js";
import { bash, SessionBuilder, type Message } from "../support/session.js";

/** The session's stored history after two cycles of `echo hi`, the second compaction being summarized. */
function looping(): Message[] {
  return new SessionBuilder("ses_prev")
    .user("run echo hi")
    .step(bash("echo hi"))
    .compact()
    .step(bash("echo hi"))
    .compact()
    .step(bash("echo hi"))
    .messages.slice();
}

function hooks(
  messages: (query: { limit?: number }) => unknown,
  options: Record<string, unknown> | undefined = undefined,
  env: Record<string, string> = {},
) {
  const fake = fakeClient(messages);
  const guard = createGuard({ client: fake.client as never }, options, { env, preventTimeoutMs: 50, stepTimeoutMs: 50 });
  return { ...fake, guard };
}

/** A clone, as opencode hands the transform hook a copy. */
const copy = <T>(value: T): T => structuredClone(value);

const NOTE = continueNote([{ tool: "bash", preview: "echo hi", outcome: "done", count: 2, calls: 1, kind: "command" }]);

describe("experimental.session.compacting", () => {
  it("pushes the ledger naming the repeated call, and never sets the prompt", async () => {
    const stored = new SessionBuilder("ses_prev").user("run echo hi").step(bash("echo hi")).compact().step(bash("echo hi"));
    stored.compact({ continueTurn: false });
    const messages = stored.messages.slice(0, -1); // the summary is written after the hook
    const { guard, logs } = hooks(newestMessages(messages));
    const output: { context: string[]; prompt?: string } = { context: [] };
    await guard["experimental.session.compacting"]!({ sessionID: "ses_prev" }, output);
    expect(output.prompt).toBeUndefined();
    expect(output.context).toHaveLength(1);
    expect(output.context[0]).toContain("- bash `echo hi` (done, 2×)");
    expect(output.context[0]).toContain("not a new instruction from the user");
    expect(logs).toEqual([]);
  });

  it("pushes it once when the plugin is listed twice", async () => {
    const messages = looping().slice(0, -1);
    const first = hooks(newestMessages(messages)).guard;
    const second = hooks(newestMessages(messages)).guard;
    const output = { context: [] as string[] };
    await first["experimental.session.compacting"]!({ sessionID: "ses_prev" }, output);
    await second["experimental.session.compacting"]!({ sessionID: "ses_prev" }, output);
    expect(output.context).toHaveLength(1);
  });

  it.each([
    ["the read throws", () => Promise.reject(new Error("boom"))],
    ["the read hangs", () => new Promise(() => {})],
    ["the read returns no list", () => ({ error: { message: "nope" } })],
    ["no compaction in the history", () => ({ data: [{ info: { id: "m", role: "user" }, parts: [] }] })],
  ])("%s: the prompt is left as it was and one warn line says so", async (_, answer) => {
    const { guard, logs } = hooks(answer);
    const output = { context: ["from another plugin"] };
    await guard["experimental.session.compacting"]!({ sessionID: "ses_prev" }, output);
    expect(output.context).toEqual(["from another plugin"]);
    expect(logs.map((l) => [l.level, l.message.split(":")[0]])).toEqual([
      ["warn", "compaction-guard could not write its ledger for the summary of session ses_prev; opencode's prompt left as it was"],
    ]);
  });
});

describe("experimental.chat.messages.transform", () => {
  it("rewrites each continue part as the note naming the repeated calls; the stored history is untouched", async () => {
    const stored = looping();
    const before = JSON.stringify(stored);
    const { guard, logs } = hooks(newestMessages(stored));
    const sent = { messages: copy(stored) as never[] };
    await guard["experimental.chat.messages.transform"]!({}, sent);
    const texts = (sent.messages as Message[]).flatMap((m) =>
      m.parts.filter((p) => (p.metadata as { compaction_continue?: boolean } | undefined)?.compaction_continue).map((p) => p.text),
    );
    // The first continue comes after one echo, the second after two.
    expect(texts).toEqual([
      continueNote([{ tool: "bash", preview: "echo hi", outcome: "done", count: 1, calls: 1, kind: "command" }]),
      NOTE,
    ]);
    expect(JSON.stringify(stored)).toBe(before);
    expect(logs).toEqual([]);
  });

  it("gives the same bytes on every request that carries the turn, as the session grows", async () => {
    const builder = new SessionBuilder("ses_prev").user("run echo hi").step(bash("echo hi")).compact().step(bash("echo hi")).compact();
    const texts: string[] = [];
    for (let i = 0; i < 30; i++) {
      builder.step(bash(`npm run step${i}`));
      const stored = builder.messages.slice();
      const { guard } = hooks(newestMessages(stored));
      const sent = { messages: copy(stored.slice(-20)) as never[] }; // the model sees the messages since the compaction
      await guard["experimental.chat.messages.transform"]!({}, sent);
      const part = (sent.messages as Message[])
        .flatMap((m) => m.parts)
        .filter((p) => (p.metadata as { compaction_continue?: boolean } | undefined)?.compaction_continue)
        .at(-1);
      if (part) texts.push(String(part.text));
    }
    expect(texts.length).toBeGreaterThan(5);
    expect(new Set(texts)).toEqual(new Set([NOTE]));
  });

  describe("the note is a function of the history up to its compaction: the same bytes on every request of the cycle", () => {
    /** The user's message, `before` steps, an automatic compaction with its continue turn, then `after` steps. */
    function cycle(before: number, after: number): Message[] {
      const builder = new SessionBuilder("ses_prev").user("run the steps");
      for (let i = 1; i <= before; i++) builder.step(bash(`echo step-${i}`));
      builder.compact();
      for (let i = 1; i <= after; i++) builder.step(bash(`npm run task${i}`));
      return builder.messages.slice();
    }

    /** The continue turn's text as the model is sent it on a request of `stored` (the messages since the compaction). */
    async function noteSent(guard: ReturnType<typeof hooks>["guard"], stored: Message[]): Promise<string> {
      let since = stored.length - 1;
      while (since > 0 && !stored[since]!.parts.some((p) => p.type === "compaction")) since--;
      const sent = { messages: copy(stored.slice(since)) as never[] };
      await guard["experimental.chat.messages.transform"]!({}, sent);
      const part = (sent.messages as Message[])
        .flatMap((m) => m.parts)
        .find((p) => (p.metadata as { compaction_continue?: boolean } | undefined)?.compaction_continue);
      return String(part?.text);
    }

    const NAMED = continueNote([
      { tool: "bash", preview: "echo step-60", outcome: "done", count: 1, calls: 1, kind: "command" },
      { tool: "bash", preview: "echo step-59", outcome: "done", count: 1, calls: 1, kind: "command" },
      { tool: "bash", preview: "echo step-58", outcome: "done", count: 1, calls: 1, kind: "command" },
    ]);

    it.each([
      // 275 messages: the newest 200 hold neither the user's message nor the compaction.
      ["the same guard; the read no longer reaches the user's message or the compaction", 210, "same guard"],
      // 215 messages: the newest 200 hold the compaction and the 40 messages before it, not the user's message.
      ["a new guard (opencode restarted); the read reaches the compaction's look-back, not the user's message", 150, "new guard"],
    ])("%s: byte-identical", async (_, after, which) => {
      let stored = cycle(60, 1);
      const first = hooks((query) => newestMessages(stored)(query));
      const note = await noteSent(first.guard, stored);
      expect(note).toBe(NAMED);
      stored = cycle(60, after);
      const guard = which === "same guard" ? first.guard : hooks(newestMessages(stored)).guard;
      expect(await noteSent(guard, stored)).toBe(note);
      expect(first.client.session.messages).toHaveBeenCalledTimes(1);
    });

    it("a new guard whose read does not reach back to the compaction names no calls rather than a partial list", async () => {
      const stored = cycle(60, 210);
      expect(await noteSent(hooks(newestMessages(stored)).guard, stored)).toBe(continueNote(null));
    });

    it("a kept note costs no read: every request of the cycle after the first sends it without reading", async () => {
      let stored = cycle(3, 1);
      const { guard, client } = hooks((query) => newestMessages(stored)(query));
      const notes = new Set<string>();
      for (let after = 1; after <= 30; after++) {
        stored = cycle(3, after);
        notes.add(await noteSent(guard, stored));
      }
      expect([...notes]).toHaveLength(1);
      expect([...notes][0]).toContain("the most recent: bash `echo step-3` (done); bash `echo step-2` (done); bash `echo step-1` (done).");
      expect(client.session.messages).toHaveBeenCalledTimes(1);
    });
  });

  it("does not read the history when no continue turn is sent", async () => {
    const stored = new SessionBuilder("ses_prev").user().step(bash("npm test")).messages;
    const { guard, client } = hooks(newestMessages(stored));
    const sent = { messages: copy(stored) as never[] };
    await guard["experimental.chat.messages.transform"]!({}, sent);
    expect(client.session.messages).not.toHaveBeenCalled();
    expect(sent.messages).toEqual(stored);
  });

  it("leaves a text already rewritten (the plugin listed twice) as it is", async () => {
    const stored = looping();
    const sent = { messages: copy(stored) as never[] };
    await hooks(newestMessages(stored)).guard["experimental.chat.messages.transform"]!({}, sent);
    const once = JSON.stringify(sent);
    await hooks(newestMessages(stored)).guard["experimental.chat.messages.transform"]!({}, sent);
    expect(JSON.stringify(sent)).toBe(once);
  });

  it.each([
    ["the read throws", () => Promise.reject(new Error("boom"))],
    ["the read returns no list", () => ({ data: "nope" })],
  ])("%s: opencode's text is left as it was and the guard backs off with one warn line", async (_, answer) => {
    const stored = looping();
    const { guard, logs } = hooks(answer);
    const sent = { messages: copy(stored) as never[] };
    await guard["experimental.chat.messages.transform"]!({}, sent);
    expect(sent.messages).toEqual(stored);
    expect(JSON.stringify(sent.messages)).toContain(CONTINUE_TEXT);
    expect(logs.map((l) => [l.level, l.message.split(":")[0]])).toEqual([["warn", "compaction-guard backs off"]]);
  });

  it("the read hangs: the request waits the first read's budget, not the read; opencode's text is left; the guard backs off once the read times out", async () => {
    const stored = looping();
    const { guard, logs } = hooks(() => new Promise(() => {}));
    const sent = { messages: copy(stored) as never[] };
    const started = performance.now();
    await guard["experimental.chat.messages.transform"]!({}, sent);
    expect(performance.now() - started).toBeLessThan(45);
    expect(sent.messages).toEqual(stored);
    expect(logs.map((l) => l.message)).toEqual([
      "compaction-guard: the first read of session ses_prev takes over 10 ms; steps go unchecked until it is done",
    ]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(logs.map((l) => [l.level, l.message.split(":")[0]])).toEqual([
      ["info", "compaction-guard"],
      ["warn", "compaction-guard backs off"],
    ]);
  });

  it.each([
    ["no list", {}],
    ["junk entries", { messages: [null, 1, { info: null }, { info: {}, parts: "x" }] }],
  ])("malformed messages (%s) are left alone without a throw", async (_, output) => {
    const { guard, logs } = hooks(() => ({ data: [] }));
    const before = JSON.stringify(output);
    await guard["experimental.chat.messages.transform"]!({}, output as never);
    expect(JSON.stringify(output)).toBe(before);
    expect(logs).toEqual([]);
  });
});

describe("the prevent setting", () => {
  it.each([
    ["the option prevent: false", { prevent: false }, {}],
    ["OPENCODE_COMPACTION_GUARD_PREVENT=0", undefined, { OPENCODE_COMPACTION_GUARD_PREVENT: "0" }],
  ])("%s: no prevention hook", (_, options, env) => {
    const { guard } = hooks(() => ({ data: [] }), options, env);
    expect(guard["experimental.session.compacting"]).toBeUndefined();
    expect(guard["experimental.chat.messages.transform"]).toBeUndefined();
    expect(guard["experimental.compaction.autocontinue"]).toBeDefined();
  });

  it("observe mode keeps prevention; enabled: false turns it off with the rest", () => {
    expect(hooks(() => ({ data: [] }), { mode: "observe" }).guard["experimental.chat.messages.transform"]).toBeDefined();
    expect(hooks(() => ({ data: [] }), { enabled: false }).guard).toEqual({});
  });
});

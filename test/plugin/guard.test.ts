import { describe, expect, it } from "vitest";
import plugin from "../../src/index.js";
import { createGuard, SERVICE } from "../../src/plugin/opencode-v1/guard.js";
import { bash, SessionBuilder, type Message } from "../support/session.js";
import { hookInput, loop, upToSummary } from "../support/loop-hook.js";
import { fakeClient } from "../support/client.js";

async function run(messages: Message[], options?: unknown, env: Record<string, string> = {}) {
  const fake = fakeClient(() => ({ data: messages }));
  const hooks = createGuard({ client: fake.client as never }, options, { env });
  const output = { enabled: true };
  await hooks["experimental.compaction.autocontinue"]!(hookInput(messages), output);
  return { ...fake, output };
}

describe("the plugin module", () => {
  it("has the shape opencode 1.18.33 loads, and exports nothing else", async () => {
    expect(plugin.id).toBe("compaction-guard");
    expect(Object.keys(await import("../../src/index.js"))).toEqual(["default"]);
    const fake = fakeClient(() => ({ data: [] }));
    const hooks = await plugin.server({ client: fake.client } as never, undefined);
    // toolLoop "warn" (the default) adds tool.execute.after; "stop" adds tool.execute.before too.
    expect(Object.keys(hooks)).toEqual([
      "experimental.compaction.autocontinue",
      "event",
      "dispose",
      "config",
      "command.execute.before",
      "experimental.session.compacting",
      "experimental.chat.messages.transform",
      "tool.execute.after",
    ]);
    const stopping = await plugin.server({ client: fake.client } as never, { toolLoop: "stop", prevent: false });
    expect(Object.keys(stopping)).toEqual([
      "experimental.compaction.autocontinue",
      "event",
      "dispose",
      "config",
      "command.execute.before",
      "tool.execute.after",
      "tool.execute.before",
    ]);
  });

  it("with prevent: false and toolLoop: off, has only the compaction hooks and /guard", async () => {
    const fake = fakeClient(() => ({ data: [] }));
    const hooks = await plugin.server({ client: fake.client } as never, { prevent: false, toolLoop: "off" });
    expect(Object.keys(hooks)).toEqual(["experimental.compaction.autocontinue", "event", "dispose", "config", "command.execute.before"]);
  });
});

describe("experimental.compaction.autocontinue", () => {
  it("stops the real loop at its first compaction by default (cannot-make-room), with a warning toast", async () => {
    const { output, logs, toasts } = await run(upToSummary(loop.messages, 1));
    expect(output.enabled).toBe(false);
    expect(toasts).toHaveLength(1);
    expect(logs.map((l) => [l.level, l.extra?.compaction, l.extra?.rule])).toEqual([["warn", 1, "cannot-make-room"]]);
  });

  it("with prediction off, allows the first compaction of the real loop and logs one info line", async () => {
    const { output, logs, toasts } = await run(upToSummary(loop.messages, 1), { predict: false });
    expect(output.enabled).toBe(true);
    expect(toasts).toEqual([]);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      service: SERVICE,
      level: "info",
      extra: { compaction: 1, decision: "allow", rule: null, messageID: "msg_22b7cb6d0001bzMcMOyhULTJKu" },
    });
  });

  it("denies the second with a warning toast and a warn log line that say why", async () => {
    const { output, logs, toasts } = await run(upToSummary(loop.messages, 2));
    expect(output.enabled).toBe(false);
    expect(toasts).toHaveLength(1);
    expect(toasts[0]).toMatchObject({ title: "Compaction loop stopped", variant: "warning" });
    expect(toasts[0]!.message).toBe(
      "ses_dd48353bdffeeLNjPk1FftaDqf stopped: compaction no longer frees context. Reply to go on; the note in the session says why.",
    );
    expect(logs).toHaveLength(1);
    expect(logs[0]!.level).toBe("warn");
    expect(logs[0]!.message).toContain(`session ${loop.info.id} after compaction 2 (msg_22b7cb90b001Oacj8ldTaTA4T8): `);
    // "left": the prompt of the first step after compaction 1 (7,000 input; its total, 7,020, counts output too).
    expect(logs[0]!.message).toContain(
      "no-progress: the previous compaction left 7,000 tokens of context, down from 7,020 tokens (0% smaller)",
    );
    expect(logs[0]!.message).toContain("Reply to continue, or start a new session, or free context");
    expect(logs[0]!.extra).toMatchObject({
      compaction: 2,
      decision: "deny",
      rule: "no-progress",
      messageID: "msg_22b7cb90b001Oacj8ldTaTA4T8",
    });
    expect(typeof logs[0]!.extra!.elapsedMs).toBe("number");
    // Where the time went: the phases in the order they ran, each a duration in ms, the
    // notice (the toast before the line) last; they add up to no more than the hook's time.
    const phases = logs[0]!.extra!.phasesMs as Record<string, number>;
    expect(Object.keys(phases)).toEqual(["read", "timeline", "lookups", "judge", "notice"]);
    for (const ms of Object.values(phases)) expect(ms).toBeGreaterThanOrEqual(0);
    const { notice, ...decision } = phases;
    expect(Object.values(decision).reduce((a, b) => a + b)).toBeLessThanOrEqual((logs[0]!.extra!.elapsedMs as number) + 0.05);
    expect(logs[0]!.extra!.messagesFrom).toBe("opencode");
    expect(JSON.stringify([logs, toasts])).not.toContain("SECRET");
  });

  it("names the compaction by id alone when the history read may not start at the session's beginning", async () => {
    const session = new SessionBuilder().user();
    for (let i = 0; i < 250; i++) session.step(bash(`echo ${i}`), null);
    for (let i = 0; i < 3; i++) session.step(bash("npm test"), null).compact();
    const newest = session.messages.slice(-200);
    const fake = fakeClient(() => ({ data: newest }));
    const output = { enabled: true };
    await createGuard({ client: fake.client as never }, undefined, { env: {} })["experimental.compaction.autocontinue"]!(
      hookInput(newest),
      output,
    );
    expect(output.enabled).toBe(false);
    expect(fake.logs[0]!.extra).toMatchObject({ compaction: null, rule: "repeated-tool-call" });
    expect(fake.logs[0]!.message).toMatch(/after compaction msg_\d+: repeated-tool-call: /);
  });

  it("asks session.messages for the newest messages only", async () => {
    const { client } = await run(upToSummary(loop.messages, 1));
    expect(client.session.messages).toHaveBeenCalledWith({ path: { id: loop.info.id }, query: { limit: 200 } });
  });

  it("notify=log: no toast; notify=off: neither toast nor log, still denies", async () => {
    const logOnly = await run(upToSummary(loop.messages, 2), { notify: "log" });
    expect([logOnly.output.enabled, logOnly.toasts.length, logOnly.logs.length]).toEqual([false, 0, 1]);
    const off = await run(upToSummary(loop.messages, 2), {}, { OPENCODE_COMPACTION_GUARD_NOTIFY: "off" });
    expect([off.output.enabled, off.toasts.length, off.logs.length]).toEqual([false, 0, 0]);
  });

  it("options from opencode.json apply; environment variables win over them", async () => {
    // Only repeated-tool-call can fire here: no token data (no-progress abstains) and the
    // first compaction is a manual one (no-new-work compares automatic compactions' cycles).
    // `npm test` runs three times with nothing new between or after, across that compaction.
    const messages = new SessionBuilder()
      .user()
      .step({ tool: "read", input: { filePath: "a.ts" } }, null)
      .step(bash("npm test"), null)
      .compact({ auto: false })
      .step(bash("npm test"), null)
      .step(bash("npm test"), null)
      .compact({ continueTurn: false }).messages;
    const denied = await run(messages);
    expect(denied.output.enabled).toBe(false);
    expect(denied.logs[0]!.extra).toMatchObject({ compaction: 1, decision: "deny", rule: "repeated-tool-call" });
    expect(denied.logs[0]!.message).toContain("repeated-tool-call: the same bash call (npm test) ran 3 times");
    const allowed = await run(messages, { threshold: 4 });
    expect(allowed.output.enabled).toBe(true);
    expect(allowed.logs[0]!.message).toContain("longest repeat 3 of 4 runs across a compaction");
    const env = { OPENCODE_COMPACTION_GUARD_THRESHOLD: "3" };
    expect((await run(messages, { threshold: 4 }, env)).output.enabled).toBe(false);
    // ignore takes the call out of the count; the environment's list wins over the option's.
    expect((await run(messages, { ignore: ["npm test"] })).output.enabled).toBe(true);
    expect((await run(messages, { ignore: ["npm test"] }, { OPENCODE_COMPACTION_GUARD_IGNORE: "todowrite" })).output.enabled).toBe(false);
  });

  describe("a turn that had finished (turn-finished): skipped quietly", () => {
    // The model answered (finish "stop", text only) and that answer's step set off compaction 1.
    const finished = new SessionBuilder(loop.info.id)
      .user("what does src/a.ts do?")
      .step({ tool: "read", input: { filePath: "src/a.ts" } }, 6_000)
      .say("It parses the config and exports `load`.", 7_020)
      .compact({ continueTurn: false }).messages;

    it("denies with one info line (decision deny, rule turn-finished) and no toast", async () => {
      const { output, logs, toasts } = await run(finished);
      expect(output.enabled).toBe(false);
      expect(toasts).toEqual([]);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({
        service: SERVICE,
        level: "info",
        extra: { compaction: 1, decision: "deny", rule: "turn-finished", messageID: finished.at(-2)!.info.id },
      });
      expect(logs[0]!.message).toBe(
        `compaction-guard skipped auto-continue in session ${loop.info.id} after compaction 1 (${finished.at(-2)!.info.id}): turn-finished: ` +
          "the model had already finished its answer when the context filled up, so a continue turn would only restart finished work. Nothing was lost; reply to go on.",
      );
    });

    it("notify=log writes the same info line; notify=off writes nothing; both still deny", async () => {
      const logOnly = await run(finished, { notify: "log" });
      expect([logOnly.output.enabled, logOnly.toasts.length, logOnly.logs.map((l) => [l.level, l.extra?.rule])]).toEqual([
        false,
        0,
        [["info", "turn-finished"]],
      ]);
      const off = await run(finished, { notify: "off" });
      expect([off.output.enabled, off.toasts.length, off.logs.length]).toEqual([false, 0, 0]);
    });

    it("a step that ended with a tool call, or did not end the turn, is no finished turn", async () => {
      const working = new SessionBuilder(loop.info.id)
        .user()
        .step({ tool: "read", input: { filePath: "src/a.ts" } }, 7_020)
        .compact({ continueTurn: false }).messages;
      const cut = new SessionBuilder(loop.info.id).user().say("It parses the", 7_020, "length").compact({ continueTurn: false }).messages;
      for (const messages of [working, cut]) {
        const { output, logs } = await run(messages);
        expect(output.enabled).toBe(true);
        expect(logs.map((l) => [l.level, l.extra?.decision])).toEqual([["info", "allow"]]);
      }
    });
  });

  describe("opencode's compaction.reserved, read through client.config.get", () => {
    // A model with an input limit: opencode's usable line is input − reserved, and reserved
    // defaults to min(20,000, output) = 2,000, so 8,000 − 2,000 = 6,000. Compaction 1 cut
    // 9,000 to 7,000 (22%, enough), but 7,000 is over 6,000 and under 8,000 − 500 = 7,500.
    const limit = { context: 10_000, input: 8_000, output: 2_000 };
    const messages = new SessionBuilder(loop.info.id)
      .user()
      .step({ tool: "read", input: { filePath: "a.ts" } }, 9_000)
      .compact()
      .step({ tool: "read", input: { filePath: "b.ts" } }, 7_000)
      .compact({ continueTurn: false }).messages;

    async function decideWith(config: () => unknown) {
      const fake = fakeClient(() => ({ data: messages }), config);
      const output = { enabled: true };
      await createGuard({ client: fake.client as never }, undefined, { env: {} })["experimental.compaction.autocontinue"]!(
        hookInput(messages, limit),
        output,
      );
      return { ...fake, output };
    }

    it("reserved 500: 7,000 is under the usable 7,500, so the continue turn is allowed", async () => {
      const { output, logs, toasts, client } = await decideWith(() => ({ data: { compaction: { reserved: 500 } } }));
      expect(client.config.get).toHaveBeenCalledTimes(1);
      expect(output.enabled).toBe(true);
      expect(toasts).toEqual([]);
      expect(logs.map((l) => [l.level, l.extra?.decision])).toEqual([["info", "allow"]]);
      expect(logs[0]!.message).not.toContain("usable context");
    });

    it.each([
      ["sets nothing", () => ({ data: {} })],
      ["sets compaction without reserved", () => ({ data: { compaction: { auto: true } } })],
      ["answers an error", () => ({ error: { name: "UnknownError" } })],
      ["answers a reserve that is not a count", () => ({ data: { compaction: { reserved: "500" } } })],
      ["answers a negative reserve", () => ({ data: { compaction: { reserved: -500 } } })],
    ])("config %s: opencode's default reserve, and the guard says 7,000 is still over 6,000", async (_, config) => {
      const { output, logs, toasts } = await decideWith(config);
      expect(output.enabled).toBe(false);
      expect(toasts).toHaveLength(1);
      expect(logs[0]!.extra).toMatchObject({ decision: "deny", rule: "no-progress" });
      expect(logs[0]!.message).toContain(
        "no-progress: the previous compaction left 7,000 tokens of context, down from 9,000 tokens (22% smaller), still over opencode's usable context of 6,000 tokens",
      );
    });

    it("a client without config: the default reserve, and still a decision", async () => {
      const fake = fakeClient(() => ({ data: messages }));
      const output = { enabled: true };
      const { session, app, tui } = fake.client;
      await createGuard({ client: { session, app, tui } as never }, undefined, { env: {} })["experimental.compaction.autocontinue"]!(
        hookInput(messages, limit),
        output,
      );
      expect(output.enabled).toBe(false);
      expect(fake.logs.map((l) => [l.level, l.extra?.rule])).toEqual([["warn", "no-progress"]]);
    });
  });

  it("disabled: no hook at all", () => {
    const fake = fakeClient(() => ({ data: [] }));
    expect(createGuard({ client: fake.client as never }, { enabled: false }, { env: {} })).toEqual({});
    expect(createGuard({ client: fake.client as never }, {}, { env: { OPENCODE_COMPACTION_GUARD_DISABLED: "1" } })).toEqual({});
  });

  it("logs each invalid setting once, at start-up, and ignores it", async () => {
    const fake = fakeClient(() => ({ data: upToSummary(loop.messages, 2) }));
    const hooks = createGuard({ client: fake.client as never }, { threshold: 0 }, { env: { OPENCODE_COMPACTION_GUARD_WINDOW: "lots" } });
    const output = { enabled: true };
    await hooks["experimental.compaction.autocontinue"]!(hookInput(upToSummary(loop.messages, 2)), output);
    await hooks["experimental.compaction.autocontinue"]!(hookInput(upToSummary(loop.messages, 2)), { enabled: true });
    const warnings = fake.logs.filter((l) => l.message.includes("setting ignored"));
    expect(warnings.map((w) => w.message)).toEqual([
      "compaction-guard: setting ignored: plugin option threshold: threshold must be an integer from 2 to 1000, got 0; using 3",
      'compaction-guard: setting ignored: OPENCODE_COMPACTION_GUARD_WINDOW: window must be an integer from 1 to 1000, got "lots"; using 8',
    ]);
    expect(output.enabled).toBe(false);
  });

  it("leaves a denial by an earlier plugin alone and reads nothing", async () => {
    const fake = fakeClient(() => ({ data: loop.messages }));
    const hooks = createGuard({ client: fake.client as never }, undefined, { env: {} });
    const output = { enabled: false };
    await hooks["experimental.compaction.autocontinue"]!(hookInput(loop.messages), output);
    expect(output.enabled).toBe(false);
    expect(fake.client.session.messages).not.toHaveBeenCalled();
  });

  it("case 10: session.messages throws: enabled stays true, one warning", async () => {
    const fake = fakeClient(() => {
      throw new Error("connection refused\n    at stack line");
    });
    const hooks = createGuard({ client: fake.client as never }, undefined, { env: {} });
    const output = { enabled: true };
    await hooks["experimental.compaction.autocontinue"]!(hookInput(loop.messages), output);
    expect(output.enabled).toBe(true);
    expect(fake.logs).toHaveLength(1);
    expect(fake.logs[0]).toMatchObject({ level: "warn", service: SERVICE });
    expect(fake.logs[0]!.message).toBe(
      `compaction-guard could not decide for session ${loop.info.id}; auto-continue left to opencode: connection refused`,
    );
  });
});

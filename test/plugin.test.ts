import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import plugin from "../src/index.js";
import { createGuard, SERVICE } from "../src/guard.js";
import { bash, SessionBuilder, type Message } from "./support/session.js";
import { fakeClient } from "./support/client.js";

const loop = JSON.parse(
  readFileSync(new URL("../fixtures/opencode-1.18.33-loop-bash.json", import.meta.url), "utf8"),
) as { info: { id: string }; messages: Message[] };

/** The history as it stood when the summary of compaction `n` (1-based) finished. */
function upToSummary(messages: Message[], n: number): Message[] {
  let seen = 0;
  const end = messages.findIndex((m) => m.info.summary === true && ++seen === n);
  return messages.slice(0, end + 1);
}

const hookInput = (messages: Message[], limit = { context: 8000, output: 2000 }) => {
  const compaction = [...messages].reverse().find((m) => m.parts.some((p) => p.type === "compaction"))!;
  return {
    sessionID: loop.info.id,
    agent: "build",
    model: { id: "fakemodel", providerID: "fake", limit },
    provider: { source: "config", info: {}, options: { apiKey: "sk-live-SECRET1234567890" } },
    message: compaction.info,
    overflow: false,
  } as never;
};

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
    expect(Object.keys(await import("../src/index.js"))).toEqual(["default"]);
    const fake = fakeClient(() => ({ data: [] }));
    const hooks = await plugin.server({ client: fake.client } as never, undefined);
    expect(Object.keys(hooks)).toEqual(["experimental.compaction.autocontinue"]);
  });
});

describe("experimental.compaction.autocontinue", () => {
  it("allows the first compaction of the real loop and logs one info line", async () => {
    const { output, logs, toasts } = await run(upToSummary(loop.messages, 1));
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
    expect(toasts[0]!.message).toContain("no-progress");
    expect(logs).toHaveLength(1);
    expect(logs[0]!.level).toBe("warn");
    expect(logs[0]!.message).toContain(`session ${loop.info.id} after compaction 2 (msg_22b7cb90b001Oacj8ldTaTA4T8): `);
    expect(logs[0]!.message).toContain("no-progress: the previous compaction left 7,020 tokens of context");
    expect(logs[0]!.message).toContain("Reply to continue, start a new session");
    expect(logs[0]!.extra).toMatchObject({ compaction: 2, decision: "deny", rule: "no-progress", messageID: "msg_22b7cb90b001Oacj8ldTaTA4T8" });
    expect(typeof logs[0]!.extra!.elapsedMs).toBe("number");
    expect(JSON.stringify([logs, toasts])).not.toContain("SECRET");
  });

  it("names the compaction by id alone when the history read may not start at the session's beginning", async () => {
    const session = new SessionBuilder().user();
    for (let i = 0; i < 250; i++) session.step(bash(`echo ${i}`), null);
    for (let i = 0; i < 3; i++) session.step(bash("npm test"), null).compact();
    const newest = session.messages.slice(-200);
    const fake = fakeClient(() => ({ data: newest }));
    const output = { enabled: true };
    await createGuard({ client: fake.client as never }, undefined, { env: {} })["experimental.compaction.autocontinue"]!(hookInput(newest), output);
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
    const session = new SessionBuilder().user();
    for (let i = 0; i < 3; i++) session.step(bash("npm test"), null).compact();
    const messages = upToSummary(session.messages, 3);
    expect((await run(messages)).output.enabled).toBe(false);
    expect((await run(messages, { threshold: 4 })).output.enabled).toBe(true);
    const env = { OPENCODE_COMPACTION_GUARD_THRESHOLD: "3" };
    expect((await run(messages, { threshold: 4 }, env)).output.enabled).toBe(false);
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

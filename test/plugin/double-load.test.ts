/**
 * The plugin loaded twice in one process (`opencode.json` naming the clone folder and
 * `dist/index.js`, or a global and a project config): opencode runs both copies' hooks in
 * turn on the same output. The second copy defers to the first (HookOwners, plugin/opencode-v1/guard.ts),
 * so that each tool-loop notice, note rewrite and log line happens once; when the first copy
 * is disposed, the second takes over.
 */
import { describe, expect, it, vi } from "vitest";
import { InformationState } from "../../src/judge/information.js";
import { createGuard, DecisionRegistry, server } from "../../src/plugin/opencode-v1/guard.js";
import { TOOL_LOOP_NOTICE_MARK } from "../../src/model/entry.js";
import { bash, SessionBuilder, type Message } from "../support/session.js";
import { fakeClient, newestMessages } from "../support/client.js";
import { publish } from "./publish.js";
import type { Hooks } from "@opencode-ai/plugin";

const SESSION = "ses_twice";
const echo = bash("echo hi", "hi\n");

/** A session growing by one echo step per tool call, and its fake client. */
function world() {
  const session = new SessionBuilder(SESSION).user("say hi");
  const fake = fakeClient((query) => newestMessages(session.messages)(query));
  (fake.client.session as Record<string, unknown>).abort = async () => ({ data: true });
  return { session, fake };
}

/** One tool call as opencode runs it with every copy's hooks in turn on the same output; the step is then stored and its events sent. */
async function toolCall(copies: readonly Hooks[], session: SessionBuilder): Promise<string> {
  const callID = `call_${session.messages.length}`;
  const output = { title: "", output: "hi\n", metadata: {} };
  for (const hooks of copies) await hooks["tool.execute.after"]?.({ tool: "bash", sessionID: SESSION, callID, args: echo.input }, output);
  const stored = session.messages.length;
  session.step({ ...echo, output: output.output }, 1000);
  await publish(copies, session.messages.slice(stored));
  return output.output;
}

const notices = (text: string) => text.split(TOOL_LOOP_NOTICE_MARK).length - 1;
const warnLines = (logs: Array<{ level: string; message: string }>) => logs.filter((l) => l.level === "warn").map((l) => l.message);

describe("two copies on one client", () => {
  it("one notice, one line", async () => {
    const { session, fake } = world();
    const registry = new DecisionRegistry();
    const copies = [1, 2].map(() => createGuard({ client: fake.client as never }, undefined, { env: {}, registry }));
    await toolCall(copies, session);
    await toolCall(copies, session);
    const third = await toolCall(copies, session);
    expect(notices(third)).toBe(1);
    expect(warnLines(fake.logs)).toEqual([
      "compaction-guard: tool loop in session ses_twice: the same bash call (echo hi) returned the same result 3 times with nothing else done in between; the model was told to change approach or stop",
    ]);
    // The second copy read nothing; the first read once, then followed the session's events (the /guard switch too).
    expect(fake.client.session.messages).toHaveBeenCalledTimes(1);
  });

  it("one copy judges a compaction's steps ahead, and the copy that decides takes them over", async () => {
    const { session, fake } = world();
    const registry = new DecisionRegistry();
    const copies = [1, 2].map(() => createGuard({ client: fake.client as never }, undefined, { env: {}, registry }));
    for (let i = 0; i < 4; i++) await toolCall(copies, session);
    const stored = session.messages.length;
    session.compact();
    const [compaction] = session.messages.slice(stored) as [Message];
    const judge = vi.spyOn(InformationState.prototype, "judge");
    await publish(copies, session.messages.slice(stored, stored + 1));
    await new Promise((resolve) => setTimeout(resolve, 1));
    // The four echo steps since the user spoke, judged once: the copy that reads nothing keeps no messages to judge.
    expect(judge).toHaveBeenCalledTimes(4);
    await publish(copies, session.messages.slice(stored + 1, stored + 2));
    const input = { sessionID: SESSION, agent: "build", model: { limit: { context: 200_000, output: 32_000 } }, message: compaction.info };
    const output = { enabled: true };
    for (const hooks of copies) await hooks["experimental.compaction.autocontinue"]!(input as never, output);
    expect(judge).toHaveBeenCalledTimes(4);
    const decided = fake.logs.filter((l) => l.extra?.decision !== undefined);
    expect(decided).toHaveLength(1);
    expect(decided[0]!.extra?.judgedAheadMs).toEqual(expect.any(Number));
    judge.mockRestore();
  });

  it("a slow opencode: one back-off line, not two", async () => {
    const { session, fake } = world();
    fake.client.session.messages.mockImplementation(async () => Promise.reject(new Error("socket closed")));
    const registry = new DecisionRegistry();
    const copies = [1, 2].map(() => createGuard({ client: fake.client as never }, undefined, { env: {}, registry }));
    await toolCall(copies, session);
    await toolCall(copies, session);
    expect(warnLines(fake.logs)).toHaveLength(1);
    expect(warnLines(fake.logs)[0]).toMatch(/^compaction-guard backs off: opencode is slow or failing \(socket closed\)/);
  });

  it("the first copy with the feature off: the second one acts, once", async () => {
    const { session, fake } = world();
    const registry = new DecisionRegistry();
    const copies = [
      createGuard({ client: fake.client as never }, { toolLoop: "off" }, { env: {}, registry }),
      createGuard({ client: fake.client as never }, undefined, { env: {}, registry }),
    ];
    for (let i = 0; i < 2; i++) await toolCall(copies, session);
    expect(notices(await toolCall(copies, session))).toBe(1);
  });

  it("the first copy disposed: the second takes over", async () => {
    const { session, fake } = world();
    const registry = new DecisionRegistry();
    const [first, second] = [1, 2].map(() => createGuard({ client: fake.client as never }, undefined, { env: {}, registry }));
    await first!.dispose!();
    for (let i = 0; i < 2; i++) await toolCall([first!, second!], session);
    expect(notices(await toolCall([first!, second!], session))).toBe(1);
    expect(warnLines(fake.logs)).toHaveLength(1);
  });

  it("the continue note is rewritten once", async () => {
    const stored = new SessionBuilder(SESSION).user("run echo hi").step(echo).compact().step(echo).messages.slice();
    const fake = fakeClient(newestMessages(stored));
    const registry = new DecisionRegistry();
    const copies = [1, 2].map(() => createGuard({ client: fake.client as never }, undefined, { env: {}, registry }));
    const sent = { messages: structuredClone(stored) as never[] };
    for (const hooks of copies) await hooks["experimental.chat.messages.transform"]!({}, sent);
    expect(fake.client.session.messages).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(sent)).toContain("[compaction-guard note]");
  });

  it("through `server`, as opencode loads it: the process-wide registry", async () => {
    const { session, fake } = world();
    const input = { client: fake.client } as never;
    const copies = [await server(input, undefined), await server(input, undefined)];
    try {
      for (let i = 0; i < 2; i++) await toolCall(copies, session);
      expect(notices(await toolCall(copies, session))).toBe(1);
      expect(warnLines(fake.logs)).toHaveLength(1);
    } finally {
      for (const hooks of copies) await hooks.dispose?.();
    }
  });
});

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ANSWERED } from "../../src/plugin/opencode-v1/command.js";
import { GUARD_COMMAND_DESCRIPTION, switchLine } from "../../src/plugin/opencode-v1/guard-command.js";
import { createGuard } from "../../src/plugin/opencode-v1/guard.js";
import { toolLoopNotice } from "../../src/judge/tool-loop.js";
import { fakeClient, newestMessages, type PromptBody } from "../support/client.js";
import { bash, SessionBuilder, type Message } from "../support/session.js";

const loop = JSON.parse(readFileSync(new URL("../../fixtures/opencode-1.18.33-loop-bash.json", import.meta.url), "utf8")) as {
  info: { id: string };
  messages: Message[];
};
const SESSION = loop.info.id;

/** A guard over a session whose messages are `messages` (the note a prompt writes is appended, as opencode stores it). */
async function guardOver(messages: Message[], options?: unknown, env: Record<string, string> = {}) {
  const fake = fakeClient(newestMessages(messages));
  fake.client.session.prompt.mockImplementation(async (call: { path: { id: string }; body: PromptBody }) => {
    fake.prompts.push({ sessionID: call.path.id, body: call.body });
    const info = { id: `msg_note${messages.length}`, sessionID: call.path.id, role: "user" };
    messages.push({ info, parts: call.body.parts as never });
    return { data: { info, parts: call.body.parts } };
  });
  const hooks = createGuard({ client: fake.client as never }, options, { env });
  const cfg: { command?: Record<string, { template?: string; description?: string }> } = {};
  await hooks.config!(cfg as never);
  return { ...fake, hooks, cfg };
}

/** Runs `/guard <args>` as opencode does; returns what the hook threw (it must throw to end the command). */
async function guard(hooks: Awaited<ReturnType<typeof guardOver>>["hooks"], args: string, sessionID = SESSION): Promise<unknown> {
  const output = { parts: [] as unknown[] };
  try {
    await hooks["command.execute.before"]!({ command: "guard", sessionID, arguments: args }, output as never);
  } catch (error) {
    expect(output.parts).toEqual([]);
    return error;
  }
  return undefined;
}

/** The history as it stood when the summary of compaction `n` (1-based) finished. */
function upToSummary(messages: Message[], n: number): Message[] {
  let seen = 0;
  const end = messages.findIndex((m) => m.info.summary === true && ++seen === n);
  return messages.slice(0, end + 1);
}

/** The autocontinue hook on the newest compaction of `messages`; returns `output.enabled`. */
async function decide(hooks: Awaited<ReturnType<typeof guardOver>>["hooks"], messages: Message[]): Promise<boolean> {
  const compaction = [...messages].reverse().find((m) => m.parts.some((p) => p.type === "compaction"))!;
  const output = { enabled: true };
  await hooks["experimental.compaction.autocontinue"]!(
    {
      sessionID: SESSION,
      agent: "build",
      model: { id: "fakemodel", providerID: "fake", limit: { context: 8000, output: 2000 } },
      provider: { source: "config", info: {}, options: {} },
      message: compaction.info,
      overflow: false,
    } as never,
    output,
  );
  return output.enabled;
}

describe("the /guard command", () => {
  it("the config hook lists it; a /guard the user defined is left alone and not answered", async () => {
    const { cfg } = await guardOver([]);
    expect(cfg.command?.guard).toEqual({ template: "", description: GUARD_COMMAND_DESCRIPTION });
    const fake = fakeClient(() => ({ data: [] }));
    const hooks = createGuard({ client: fake.client as never }, undefined, { env: {} });
    const mine = { command: { guard: { template: "run the guard tests", description: "mine" } } };
    await hooks.config!(mine as never);
    expect(mine.command.guard.template).toBe("run the guard tests");
    expect(await guard(hooks, "")).toBeUndefined();
    expect(fake.prompts).toEqual([]);
  });

  it("other commands pass untouched", async () => {
    const { hooks, prompts } = await guardOver([]);
    const output = { parts: [{ type: "text", text: "x" }] };
    await hooks["command.execute.before"]!({ command: "init", sessionID: SESSION, arguments: "" }, output as never);
    expect(output.parts).toEqual([{ type: "text", text: "x" }]);
    expect(prompts).toEqual([]);
  });

  it("/guard answers with an ignored note (no turn), then ends the command by throwing", async () => {
    const messages = upToSummary(loop.messages, 2);
    const { hooks, prompts, client } = await guardOver(messages, { predict: false });
    const thrown = await guard(hooks, "");
    expect((thrown as Error).message).toBe(ANSWERED);
    expect(prompts).toHaveLength(1);
    const body = prompts[0]!.body;
    expect(body.noReply).toBe(true);
    expect(body.parts).toHaveLength(1);
    expect(body.parts[0]).toMatchObject({ type: "text", ignored: true, metadata: { compaction_guard: { command: "guard" } } });
    const text = body.parts[0]!.text!;
    expect(text.split("\n")[1]).toBe("Automatic compactions: 2, 1 with a rule that fired.");
    expect(text).toContain("compaction 2: stopped auto-continue (no-progress:");
    // The agent and model of the session's last user message, so that the note changes neither.
    expect(body.agent).toBe("build");
    expect(body.model).toEqual({ providerID: "fake", modelID: "fakemodel" });
    expect(client.tui.showToast).not.toHaveBeenCalled();
  });

  it("a note that cannot be written: a toast says why, and the command still ends (no model request)", async () => {
    const { hooks, client, toasts, logs } = await guardOver(upToSummary(loop.messages, 1));
    client.session.prompt.mockImplementation(async () => ({ error: { name: "BadRequest" } }) as never);
    expect(((await guard(hooks, "off")) as Error).message).toBe(ANSWERED);
    expect(toasts).toEqual([
      { title: "compaction-guard", message: '/guard failed: session.prompt failed ({"name":"BadRequest"})', variant: "error" },
    ]);
    expect(logs.at(-1)?.level).toBe("warn");
  });

  it("an unknown argument: one usage line", async () => {
    const { hooks, prompts } = await guardOver(upToSummary(loop.messages, 1));
    await guard(hooks, "later");
    expect(prompts[0]!.body.parts[0]!.text).toBe(
      'compaction-guard: unknown argument "later". Use /guard (what it did in this session), /guard stats (this project), /guard off, /guard on or /guard observe.',
    );
  });
});

describe("the per-session switch", () => {
  it("/guard off: one confirming line; the loop it would stop goes on, and the log says why", async () => {
    const messages = upToSummary(loop.messages, 2);
    const guarded = await guardOver([...messages], { predict: false });
    expect(await decide(guarded.hooks, messages)).toBe(false); // stopped without the switch

    const { hooks, prompts, logs } = await guardOver(messages, { predict: false });
    await guard(hooks, "off");
    expect(prompts.map((p) => p.body.parts[0]!.text)).toEqual([switchLine("off")]);
    expect(prompts[0]!.body.parts[0]!.metadata).toEqual({ compaction_guard: { switch: "off" } });
    expect(await decide(hooks, messages)).toBe(true);
    expect(logs.at(-1)?.message).toBe(
      `compaction-guard left session ${SESSION} alone: /guard off in that session; auto-continue left to opencode`,
    );
  });

  it("survives compactions and a restart: a new guard reads it from the history", async () => {
    const messages = upToSummary(loop.messages, 1);
    const first = await guardOver(messages, { predict: false });
    await guard(first.hooks, "off");
    // Two more compaction cycles of the same call after the switch.
    const more = new SessionBuilder(SESSION);
    for (let i = 0; i < 2; i++) more.step(bash("echo hi", "hi\n")).compact();
    messages.push(...more.messages);
    const restarted = await guardOver(messages, { predict: false });
    expect(await decide(restarted.hooks, messages)).toBe(true);
    // /guard on: enforced again in this session.
    await guard(restarted.hooks, "on");
    expect(await decide(restarted.hooks, messages)).toBe(false);
  });

  /** A session switched off at its start, then 210 steps and four compactions of one failing call: the switch is older than the bounded read. */
  const switchedLongAgo = async (env: Record<string, string>) => {
    const messages: Message[] = [...new SessionBuilder(SESSION).user().messages];
    await guard((await guardOver(messages, { predict: false }, env)).hooks, "off");
    const more = new SessionBuilder(SESSION);
    for (let i = 0; i < 210; i++) more.step(bash(`echo ${i}`, `${i}\n`));
    for (let i = 0; i < 4; i++) more.step(bash("npm test", "1 failing")).compact();
    messages.push(...more.messages);
    return messages;
  };
  const limitsAsked = (client: Awaited<ReturnType<typeof guardOver>>["client"]) =>
    client.session.messages.mock.calls.map((c) => (c[0] as { query?: { limit?: number } }).query?.limit);

  it("a switch further back than the bounded read is found in the switch file: the whole session is never read", async () => {
    const env = { XDG_DATA_HOME: mkdtempSync(join(tmpdir(), "switches-")) };
    const messages = await switchedLongAgo(env);
    expect(JSON.parse(readFileSync(join(env.XDG_DATA_HOME, "opencode/compaction-guard/switches.json"), "utf8"))).toEqual({
      [SESSION]: "off",
    });
    const restarted = await guardOver(messages, { predict: false }, env);
    expect(await decide(restarted.hooks, messages)).toBe(true);
    expect(limitsAsked(restarted.client)).toEqual([200]);
  });

  it("with no home in the environment there is no switch file: a switch older than the bounded read is not found, and the settings apply", async () => {
    const messages = await switchedLongAgo({});
    const restarted = await guardOver(messages, { predict: false });
    expect(await decide(restarted.hooks, messages)).toBe(false);
    expect(limitsAsked(restarted.client)).toEqual([200]);
  });

  it("at tool time, a switch older than the per-step read holds from the first step, read from the switch file", async () => {
    const env = { XDG_DATA_HOME: mkdtempSync(join(tmpdir(), "switches-")) };
    const messages: Message[] = [...new SessionBuilder(SESSION).user().messages];
    await guard((await guardOver(messages, undefined, env)).hooks, "off");
    const more = new SessionBuilder(SESSION);
    for (let i = 0; i < 210; i++) more.step(bash(`echo ${i}`, `${i}\n`));
    for (let i = 0; i < 3; i++) more.step(bash("make", "error 1"));
    messages.push(...more.messages);
    const restarted = await guardOver(messages, undefined, env);
    const output = { title: "", output: "error 1", metadata: {} };
    await restarted.hooks["tool.execute.after"]!({ tool: "bash", sessionID: SESSION, callID: "c", args: { command: "make" } }, output);
    expect(output.output).toBe("error 1");
    expect(limitsAsked(restarted.client).filter((limit) => limit === undefined)).toEqual([]);
    // The same session without the switch file: the notice is added.
    const unswitched = await guardOver(messages);
    const plain = { title: "", output: "error 1", metadata: {} };
    await unswitched.hooks["tool.execute.after"]!({ tool: "bash", sessionID: SESSION, callID: "c", args: { command: "make" } }, plain);
    expect(plain.output).toBe(`error 1${toolLoopNotice(4, false)}`);
  });

  it("/guard observe: the loop goes on, with the observe line", async () => {
    const messages = upToSummary(loop.messages, 2);
    const { hooks, logs } = await guardOver(messages, { predict: false });
    await guard(hooks, "observe");
    expect(await decide(hooks, messages)).toBe(true);
    expect(logs.at(-1)?.message).toContain("compaction-guard would have stopped auto-continue");
  });

  it("/guard off silences the tool-time notice in that session only", async () => {
    const session = new SessionBuilder(SESSION).user();
    for (let i = 0; i < 3; i++) session.step(bash("make", "error 1"));
    const { hooks } = await guardOver(session.messages);
    const call = async (sessionID: string) => {
      const output = { title: "", output: "error 1", metadata: {} };
      await hooks["tool.execute.after"]!({ tool: "bash", sessionID, callID: "c", args: { command: "make" } }, output);
      return output.output;
    };
    const notice = toolLoopNotice(4, false);
    expect(await call(SESSION)).toBe(`error 1${notice}`);
    expect(await call("ses_other")).toBe(`error 1${notice}`);
    await guard(hooks, "off");
    expect(await call(SESSION)).toBe("error 1");
    // The other session's switch was read (none) before; /guard off in this one does not change it.
    expect(await call("ses_other")).toBe(`error 1${notice}`);
  });
});

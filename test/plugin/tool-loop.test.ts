/**
 * The tool-loop hooks (plugin/opencode-v1/tool-loop.ts) through createGuard with a fake client: the
 * notice after the output, one warn line per chain, the refusal and the abort in stop mode,
 * the note once the session is idle, bounded state, and SDK failures that change nothing.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { createGuard, type GuardDeps } from "../../src/plugin/opencode-v1/guard.js";
import { MAX_TOOL_LOOP_SESSIONS, createToolLoopHooks } from "../../src/plugin/opencode-v1/tool-loop.js";
import { TOOL_LOOP_NOTICE_MARK } from "../../src/model/entry.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { bash, SessionBuilder } from "../support/session.js";
import { fakeClient, newestMessages } from "../support/client.js";
import { publish } from "./publish.js";
import { createSessionStore } from "../../src/plugin/opencode-v1/sessions.js";

const echo = bash("echo hi", "hi\n");

/** A guard on a session whose history grows by one echo step per call of `run`. */
function setup(options: Record<string, unknown> = {}, deps: Omit<GuardDeps, "env"> = {}) {
  const session = new SessionBuilder("ses_loop").user("say hi");
  const fake = fakeClient((query) => newestMessages(session.messages)(query));
  const abort = vi.fn(async () => ({ data: true }));
  (fake.client.session as Record<string, unknown>).abort = abort;
  const hooks = createGuard({ client: fake.client as never }, options, { env: {}, ...deps });
  /** One call of `echo hi`: before, then after with its output; the step is then stored (with what the hook made of the output) and its events sent. */
  const run = async (spec = echo) => {
    const callID = `call_${session.messages.length}`;
    const args = spec.input;
    await hooks["tool.execute.before"]?.({ tool: spec.tool, sessionID: "ses_loop", callID }, { args });
    const output = { title: "", output: String(spec.output), metadata: {} };
    await hooks["tool.execute.after"]!({ tool: spec.tool, sessionID: "ses_loop", callID, args }, output);
    const stored = session.messages.length;
    session.step({ ...spec, output: output.output }, 1000);
    await publish(hooks, session.messages.slice(stored));
    return output.output;
  };
  return { session, fake, abort, hooks, run };
}

const warnLines = (logs: Array<{ level: string; message: string }>) => logs.filter((l) => l.level === "warn").map((l) => l.message);

describe("warn (the default)", () => {
  it("the third identical result carries the notice after the output; one warn line for the chain", async () => {
    const { run, fake } = setup();
    expect(await run()).toBe("hi\n");
    expect(await run()).toBe("hi\n");
    const third = await run();
    expect(third.startsWith(`hi\n${TOOL_LOOP_NOTICE_MARK}`)).toBe(true);
    expect(third).toContain("the same result 3 times");
    const fourth = await run();
    expect(fourth).toContain("the same result 4 times");
    expect(warnLines(fake.logs)).toEqual([
      "compaction-guard: tool loop in session ses_loop: the same bash call (echo hi) returned the same result 3 times with nothing else done in between; the model was told to change approach or stop",
    ]);
  });

  it("different calls are untouched; no tool.execute.before hook in warn mode; off adds no tool hook", async () => {
    const { run, hooks, fake } = setup();
    expect(hooks["tool.execute.before"]).toBeUndefined();
    for (const command of ["ls", "pwd", "npm test"]) expect(await run(bash(command, `${command} ok\n`))).toBe(`${command} ok\n`);
    expect(warnLines(fake.logs)).toEqual([]);
    const off = setup({ toolLoop: "off" });
    expect(off.hooks["tool.execute.after"]).toBeUndefined();
    expect(off.hooks["tool.execute.before"]).toBeUndefined();
  });

  it("a failing session.messages backs off with one warn line, and the output stays as it was", async () => {
    const { hooks, fake } = setup();
    fake.client.session.messages.mockRejectedValueOnce(new Error("socket closed"));
    const output = { title: "", output: "hi\n", metadata: {} };
    await hooks["tool.execute.after"]!({ tool: "bash", sessionID: "ses_loop", callID: "c1", args: echo.input }, output);
    expect(output.output).toBe("hi\n");
    expect(warnLines(fake.logs)).toEqual([
      "compaction-guard backs off: opencode is slow or failing (socket closed); tool-loop checks and continue-note rewrites are skipped until it answers again (next try in 15 s); compactions are still decided",
    ]);
  });
});

describe("stop", () => {
  it("warns at 3 and 4, refuses the 5th identical call, aborts the session and leaves the note once idle", async () => {
    const { run, abort, fake, hooks } = setup({ toolLoop: "stop" });
    await run();
    await run();
    expect(await run()).toContain("the same result 3 times");
    const fourth = await run();
    expect(fourth).toContain("The next identical call will be refused");
    await expect(run()).rejects.toThrow(/compaction-guard refused this bash call: the same call already returned the same result 4 times/);
    // The model may repeat it once more before the abort lands: refused again, with no second abort or line.
    await expect(run()).rejects.toThrow(/refused/);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(abort).toHaveBeenCalledTimes(1);
    expect(abort).toHaveBeenCalledWith({ path: { id: "ses_loop" } });
    expect(warnLines(fake.logs).filter((l) => l.includes("stopped a tool loop"))).toHaveLength(1);
    await hooks.event!({ event: { type: "session.idle", properties: { sessionID: "ses_loop" } } } as never);
    expect(fake.prompts).toHaveLength(1);
    const part = fake.prompts[0]!.body.parts[0]!;
    expect(part.ignored).toBe(true);
    expect(part.metadata).toEqual({ compaction_guard: { note: "tool-loop-stopped" } });
    expect(part.text).toMatch(/^Tool loop stopped by compaction-guard: the same bash call \(echo hi\) returned the same result 4 times/);
    expect(fake.prompts[0]!.body.noReply).toBe(true);
  });

  it("under opencode run, the stop prints its one line (rule tool-loop) and writes the status file once", async () => {
    const statusFile = join(mkdtempSync(join(tmpdir(), "ocg-tool-loop-")), "status.json");
    const stderr: string[] = [];
    const { run } = setup({ toolLoop: "stop", statusFile }, { headless: true, writeErr: (line) => stderr.push(line) });
    for (let i = 0; i < 4; i++) await run();
    expect(stderr).toEqual([]);
    await expect(run()).rejects.toThrow(/refused/);
    await expect(run()).rejects.toThrow(/refused/);
    expect(stderr).toEqual(["compaction-guard: stopped ses_loop (tool-loop)"]);
    // The status is written beside the refusal, not awaited by it.
    await vi.waitFor(() => expect(existsSync(statusFile)).toBe(true));
    expect(JSON.parse(readFileSync(statusFile, "utf8"))).toMatchObject({
      session: "ses_loop",
      decision: "deny",
      rule: "tool-loop",
      compaction: null,
    });
  });

  it("a different call after the warnings is not refused", async () => {
    const { run, abort } = setup({ toolLoop: "stop" });
    for (let i = 0; i < 4; i++) await run();
    expect(await run(bash("cat README.md", "readme\n"))).toBe("readme\n");
    expect(abort).not.toHaveBeenCalled();
  });

  it("a failing abort is one warn line, never a throw out of the hook besides the refusal", async () => {
    const { run, abort, fake } = setup({ toolLoop: "stop" });
    abort.mockRejectedValueOnce(new Error("no such session"));
    for (let i = 0; i < 4; i++) await run();
    await expect(run()).rejects.toThrow(/refused/);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(warnLines(fake.logs).at(-1)).toBe("compaction-guard could not stop session ses_loop: no such session");
  });
});

describe("state", () => {
  it("is bounded and dropped when the session is deleted", async () => {
    const store = createSessionStore();
    const hooks = createToolLoopHooks({
      sessions: store,
      settings: { ...DEFAULT_SETTINGS, toolLoop: "stop" },
      directory: undefined,
      messages: async (sessionID) => {
        const s = new SessionBuilder(sessionID).user().step(echo).step(echo);
        return s.messages;
      },
      abort: async () => {},
      log: async () => {},
      noteWhenIdle: () => {},
      reason: String,
    });
    for (let i = 0; i < MAX_TOOL_LOOP_SESSIONS + 20; i++) {
      await hooks.after(
        { tool: "bash", sessionID: `ses_${i}`, callID: "c", args: echo.input },
        { title: "", output: "hi\n", metadata: {} },
      );
    }
    expect(hooks.sessions()).toBe(MAX_TOOL_LOOP_SESSIONS);
    store.forget(`ses_${MAX_TOOL_LOOP_SESSIONS + 19}`);
    expect(hooks.sessions()).toBe(MAX_TOOL_LOOP_SESSIONS - 1);
  });
});

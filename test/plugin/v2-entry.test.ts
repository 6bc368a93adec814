/**
 * The OpenCode 2.x entry (src/plugin/opencode-v2/v2-entry.ts, src/plugin/opencode-v2/v2-plugin.ts) in a fake host built from the published 2.x
 * plugin interfaces (`packages/plugin/src/promise/{plugin,event,session}.ts`): `setup(ctx)`
 * with `ctx.event.subscribe()` (an async iterable of `{ type, data }`), `ctx.session.interrupt`,
 * `synthetic`, `get` and `hook`. The host replays the durable events of two real V2 sessions of
 * opencode 1.18.33 (test/fixtures/v2/, recorded with e2e/v2-harness.ts) and, like the runner,
 * sends no more events of a session once it is interrupted.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createV2Plugin, type V2PluginContext, type V2SessionRequest } from "../../src/plugin/opencode-v2/v2-plugin.js";
import defaultExport from "../../src/plugin/opencode-v2/v2-entry.js";

const events = (name: string): Record<string, unknown>[] =>
  (JSON.parse(readFileSync(new URL(`../fixtures/v2/${name}-history.json`, import.meta.url), "utf8")) as { data: Record<string, unknown>[] })
    .data;

/** Renames `session.next.X` to `session.X`, the names later 2.x builds use. */
const renamed = (list: Record<string, unknown>[]) => list.map((e) => ({ ...e, type: String(e.type).replace("session.next.", "session.") }));

interface Host {
  ctx: V2PluginContext;
  interrupts: string[];
  notes: Array<{ sessionID: string; text: string }>;
  hooks: Map<string, (input: V2SessionRequest) => Promise<void> | void>;
  /** Compactions delivered to the plugin, per session. */
  delivered: Map<string, number>;
  /** Resolves when every event was offered. */
  done: Promise<void>;
}

function fakeHost(stream: Record<string, unknown>[], options: unknown = {}): Host {
  const interrupts: string[] = [];
  const notes: Host["notes"] = [];
  const hooks: Host["hooks"] = new Map();
  const delivered = new Map<string, number>();
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const sessionOf = (e: Record<string, unknown>) => ((e.data as { sessionID?: string } | undefined)?.sessionID ?? "") as string;
  const ctx: V2PluginContext = {
    options,
    event: {
      subscribe: () =>
        (async function* () {
          for (const event of stream) {
            // An interrupted session's run has stopped: nothing more comes from it.
            if (interrupts.includes(sessionOf(event))) continue;
            if (String(event.type).endsWith("compaction.ended"))
              delivered.set(sessionOf(event), (delivered.get(sessionOf(event)) ?? 0) + 1);
            yield event;
            await new Promise((resolve) => setImmediate(resolve));
          }
          finish();
        })(),
    },
    session: {
      interrupt: async ({ sessionID }) => {
        interrupts.push(sessionID);
      },
      synthetic: async ({ sessionID, text }) => {
        notes.push({ sessionID, text });
      },
      get: async ({ sessionID }) => ({ id: sessionID, title: "Fix the build" }),
      hook: async (name, callback) => {
        hooks.set(name, callback);
        return { dispose: async () => void hooks.delete(name) };
      },
    },
  };
  return { ctx, interrupts, notes, hooks, delivered, done };
}

async function run(stream: Record<string, unknown>[], options: unknown = {}, env: Record<string, string> = {}) {
  const lines: string[] = [];
  const host = fakeHost(stream, options);
  const cleanup = await createV2Plugin({ env, write: (line) => lines.push(line) }).setup(host.ctx);
  await host.done;
  // The decision after the last event runs on; give it its turn.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { host, lines, cleanup };
}

const LOOP = events("loop");
const HEALTHY = events("healthy");
const loopSession = String((LOOP[0]!.data as { sessionID: string }).sessionID);
const healthySession = String((HEALTHY[0]!.data as { sessionID: string }).sessionID);

describe("the OpenCode 2.x entry", () => {
  it("is the default export 2.x loads: { id, setup, tui }", () => {
    expect(defaultExport.id).toBe("compaction-guard");
    expect(typeof defaultExport.setup).toBe("function");
    expect(typeof defaultExport.tui).toBe("function");
    expect(Object.keys(defaultExport).sort()).toEqual(["id", "setup", "tui"]);
  });

  it("stops the every-step compaction loop at its second compaction, with a warn line and a note naming the session", async () => {
    const { host, lines } = await run(LOOP);
    expect(host.interrupts).toEqual([loopSession]);
    expect(host.delivered.get(loopSession)).toBe(2);
    const stop = lines.filter((l) => l.startsWith("WARN compaction-guard interrupted V2 session"));
    expect(stop).toHaveLength(1);
    expect(stop[0]).toContain(`"Fix the build" (${loopSession}) at compaction 2`);
    expect(stop[0]).toContain("repeated-tool-call: the same bash call (cat big.txt) ran 3 times with the same result");
    expect(host.notes).toHaveLength(1);
    expect(host.notes[0]!.sessionID).toBe(loopSession);
    expect(host.notes[0]!.text.split("\n")[0]).toBe(
      "Compaction loop stopped by compaction-guard at compaction 2: the session was interrupted.",
    );
  });

  it("under opencode run, a stop prints the stop line and writes the status file, as the V1 plugin does", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "ocg-v2-status-"));
    const lines: string[] = [];
    const host = fakeHost(LOOP, { statusFile: "guard-status.json" });
    await createV2Plugin({ env: {}, write: (line) => lines.push(line), cwd, headless: true }).setup(host.ctx);
    await host.done;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(host.interrupts).toEqual([loopSession]);
    expect(lines.filter((l) => l.startsWith("compaction-guard: stopped "))).toEqual([
      `compaction-guard: stopped ${loopSession} (repeated-tool-call)`,
    ]);
    const status = JSON.parse(readFileSync(join(cwd, "guard-status.json"), "utf8"));
    expect(status).toEqual({ session: loopSession, decision: "deny", rule: "repeated-tool-call", compaction: 2, time: status.time });
    expect(Number.isNaN(Date.parse(status.time))).toBe(false);
  });

  it("not under opencode run, and in observe mode: no stop line, no status file", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "ocg-v2-status-"));
    for (const [options, headless] of [
      [{ statusFile: "s.json", mode: "observe" }, true],
      [{}, false],
    ] as const) {
      const lines: string[] = [];
      const host = fakeHost(LOOP, options);
      await createV2Plugin({ env: {}, write: (line) => lines.push(line), cwd, headless }).setup(host.ctx);
      await host.done;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(lines.filter((l) => l.startsWith("compaction-guard: stopped "))).toEqual([]);
    }
    expect(() => readFileSync(join(cwd, "s.json"))).toThrow();
  });

  it("reads the later 2.x event names (session.compaction.ended, session.step.*) the same way", async () => {
    const { host } = await run(renamed(LOOP));
    expect(host.interrupts).toEqual([loopSession]);
    expect(host.delivered.get(loopSession)).toBe(2);
  });

  it("leaves the healthy V2 session alone: every compaction allowed, no interrupt, no note", async () => {
    const { host, lines } = await run(HEALTHY);
    expect(host.interrupts).toEqual([]);
    expect(host.notes).toEqual([]);
    const compactions = HEALTHY.filter((e) => String(e.type).endsWith("compaction.ended")).length;
    expect(compactions).toBeGreaterThanOrEqual(2);
    expect(lines.filter((l) => l.startsWith("INFO compaction-guard let V2 session"))).toHaveLength(compactions);
  });

  it("observe mode: a warn line where it would have interrupted, no interrupt", async () => {
    const { host, lines } = await run(LOOP, { mode: "observe" });
    expect(host.interrupts).toEqual([]);
    expect(host.notes).toEqual([]);
    const would = lines.filter((l) => l.startsWith("WARN compaction-guard would have interrupted V2 session"));
    expect(would.length).toBe(LOOP.filter((e) => String(e.type).endsWith("compaction.ended")).length - 1);
  });

  it("disabled by the environment: nothing watched, nothing hooked", async () => {
    const host = fakeHost(LOOP);
    let subscribed = false;
    const ctx = { ...host.ctx, event: { subscribe: () => ((subscribed = true), host.ctx.event!.subscribe!()) } };
    const lines: string[] = [];
    await createV2Plugin({ env: { OPENCODE_COMPACTION_GUARD_DISABLED: "1" }, write: (line) => lines.push(line) }).setup(ctx);
    expect(subscribed).toBe(false);
    expect(host.interrupts).toEqual([]);
    expect(host.hooks.size).toBe(0);
    expect(lines).toEqual([
      "INFO compaction-guard 0.4.0 is disabled by OPENCODE_COMPACTION_GUARD_DISABLED=1; opencode behaves as without it",
    ]);
  });

  it("prevention: the compaction hook gets the ledger of completed calls, the next primary request the note, once", async () => {
    const { host, cleanup } = await run(HEALTHY);
    const compaction: V2SessionRequest = { sessionID: healthySession, kind: "compaction", system: [] };
    await host.hooks.get("compaction")!(compaction);
    expect(compaction.system).toHaveLength(1);
    expect(compaction.system[0]!.text).toContain("- bash `cat part6.txt` (done)\n- bash `cat part5.txt` (done)\n");
    expect(compaction.system[0]!.text).not.toContain("automatic continuation");
    const primary: V2SessionRequest = { sessionID: healthySession, kind: "primary", system: [] };
    await host.hooks.get("context")!(primary);
    expect(primary.system).toHaveLength(1);
    expect(primary.system[0]!.text.startsWith("[compaction-guard note]")).toBe(true);
    const again: V2SessionRequest = { sessionID: healthySession, kind: "primary", system: [] };
    await host.hooks.get("context")!(again);
    expect(again.system).toEqual([]);
    await (cleanup as () => Promise<void>)();
    expect(host.hooks.size).toBe(0);
  });

  it("a deleted session is forgotten: no ledger of its calls, no note after its compaction", async () => {
    const { host } = await run([...HEALTHY, { type: "session.deleted", data: { sessionID: healthySession } }]);
    const compaction: V2SessionRequest = { sessionID: healthySession, kind: "compaction", system: [] };
    await host.hooks.get("compaction")!(compaction);
    expect(compaction.system).toEqual([]);
    const primary: V2SessionRequest = { sessionID: healthySession, kind: "primary", system: [] };
    await host.hooks.get("context")!(primary);
    expect(primary.system).toEqual([]);
  });

  it("a host whose event stream cannot be opened: setup still resolves, one warn line", async () => {
    const host = fakeHost(LOOP);
    const broken = {
      ...host.ctx,
      event: {
        subscribe: () => {
          throw new Error("no event domain");
        },
      },
    };
    const lines: string[] = [];
    const cleanup = await createV2Plugin({ env: {}, write: (line) => lines.push(line) }).setup(broken);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lines.filter((l) => l.startsWith("WARN"))).toEqual([
      "WARN compaction-guard stopped watching events; V2 sessions go unguarded: no event domain",
    ]);
    await expect((cleanup as () => Promise<void>)()).resolves.toBeUndefined();
  });

  it("a host whose interrupt fails: one warn line, and the plugin keeps running", async () => {
    const host = fakeHost(LOOP);
    const failing = { ...host.ctx, session: { ...host.ctx.session, interrupt: async () => Promise.reject(new Error("no such session")) } };
    const lines: string[] = [];
    await createV2Plugin({ env: {}, write: (line) => lines.push(line) }).setup(failing);
    await host.done;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const failed = lines.filter((l) => l.includes("could not interrupt it: no such session"));
    expect(failed.length).toBeGreaterThanOrEqual(1);
  });
});

describe("a 2.x host that lacks part of the context", () => {
  const setupWith = async (ctx: unknown, write?: (line: string) => void) => {
    const lines: string[] = [];
    const cleanup = await createV2Plugin({ env: {}, write: write ?? ((line) => lines.push(line)) }).setup(ctx as V2PluginContext);
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { lines, warnings: lines.filter((l) => l.startsWith("WARN")), cleanup };
  };
  const NOT_STOPPED = "loops in its sessions are not stopped; opencode behaves as without the guard there";
  const NO_PREVENTION = "no ledger for the summary and no note after a compaction (prevention off)";

  it("no session (the npm 2.0 preview): setup resolves, one line per feature naming what is missing, nothing else", async () => {
    const host = fakeHost(LOOP);
    const { warnings, cleanup } = await setupWith({ options: {}, event: host.ctx.event });
    await host.done;
    expect(warnings).toEqual([
      `WARN compaction-guard: this host's plugin context has no session: ${NOT_STOPPED}`,
      `WARN compaction-guard: this host's plugin context has no session: ${NO_PREVENTION}`,
    ]);
    await expect((cleanup as () => Promise<void>)()).resolves.toBeUndefined();
  });

  it("a session without interrupt nor hook: named as such", async () => {
    const host = fakeHost(LOOP);
    const { warnings } = await setupWith({ event: host.ctx.event, session: { get: host.ctx.session!.get } });
    expect(warnings).toEqual([
      `WARN compaction-guard: this host's plugin context has no session.interrupt: ${NOT_STOPPED}`,
      `WARN compaction-guard: this host's plugin context has no session.hook: ${NO_PREVENTION}`,
    ]);
  });

  it("no event: nothing watched, no hook registered, one line per feature", async () => {
    const host = fakeHost(LOOP);
    const { warnings, cleanup } = await setupWith({ options: {}, session: host.ctx.session });
    expect(warnings).toEqual([
      `WARN compaction-guard: this host's plugin context has no event.subscribe: ${NOT_STOPPED}`,
      `WARN compaction-guard: this host's plugin context has no event.subscribe: ${NO_PREVENTION}`,
    ]);
    expect(host.hooks.size).toBe(0);
    expect(host.interrupts).toEqual([]);
    expect(cleanup).toBeUndefined(); // nothing to clean up
  });

  it("no context at all: setup resolves, names both", async () => {
    const { warnings } = await setupWith(undefined);
    expect(warnings).toEqual([
      `WARN compaction-guard: this host's plugin context has no event.subscribe nor session: ${NOT_STOPPED}`,
      `WARN compaction-guard: this host's plugin context has no event.subscribe nor session: ${NO_PREVENTION}`,
    ]);
  });

  it("no log (every write throws): the loop is still stopped", async () => {
    const host = fakeHost(LOOP);
    await createV2Plugin({
      env: {},
      write: () => {
        throw new Error("stderr closed");
      },
    }).setup(host.ctx);
    await host.done;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(host.interrupts).toEqual([loopSession]);
  });

  it("observe mode without interrupt: still says where it would have interrupted", async () => {
    const host = fakeHost(LOOP, { mode: "observe" });
    const { lines } = await setupWith({ options: { mode: "observe" }, event: host.ctx.event, session: { get: host.ctx.session!.get } });
    await host.done;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(lines.some((l) => l.startsWith("WARN compaction-guard would have interrupted V2 session"))).toBe(true);
  });
});

describe("event shapes of later 2.x builds (packages/schema/src/session-event.ts)", () => {
  /** `session.compaction.ended` is `{ sessionID, reason, text, recent }` there: no messageID. */
  const unnamed = (renamed(LOOP) as Record<string, unknown>[]).map((e) =>
    String(e.type).endsWith("compaction.ended") ? { ...e, data: { ...(e.data as Record<string, unknown>), messageID: undefined } } : e,
  );

  it("a compaction.ended without messageID is named by its event id: the loop is still stopped at compaction 2", async () => {
    const { host, lines } = await run(unnamed);
    expect(host.interrupts).toEqual([loopSession]);
    expect(host.delivered.get(loopSession)).toBe(2);
    expect(lines.filter((l) => l.startsWith("WARN compaction-guard interrupted V2 session"))[0]).toMatch(/at compaction 2 /);
  });

  it("a context request without kind (earlier builds) gets the note once after a compaction", async () => {
    const { host } = await run(HEALTHY);
    const request = { sessionID: healthySession, system: [] } as unknown as V2SessionRequest;
    await host.hooks.get("context")!(request);
    expect(request.system).toHaveLength(1);
    expect(request.system[0]!.text.startsWith("[compaction-guard note]")).toBe(true);
  });
});

/**
 * V2 sessions in the real opencode 1.18.33: the built plugin (dist/index.js, listed as
 * always) watches the V2 session runner of `opencode serve` through its `event` hook and
 * interrupts the every-step compaction loop; a V2 session whose steps do new work is left
 * alone; in observe mode the loop is logged, not interrupted. Two servers (enforce and
 * observe) run at once, the enforce one with the loop and the healthy session side by side.
 * See ./v2-harness.ts.
 */
import { execFile } from "node:child_process";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardLogLines } from "./guard-log.js";
import { PLUGIN_ENTRY, replayCli } from "./replay.js";
import { HEALTHY_CALLS, startV2Model, startV2Serve, type V2Serve } from "./v2-harness.js";
import { v2InOrder } from "../src/hosts/opencode/v2.js";

const PLUGIN = pathToFileURL(PLUGIN_ENTRY).href;
/** Requests the scripted model answers before refusing (an unguarded loop compacts before every step until then). */
const CAP = 30;
/** How long one session may run, ms (the machine is shared: a request takes 1–8 s here). */
const WAIT_MS = 100_000;

type Message = { type?: string; content?: { type?: string; state?: { input?: { command?: string } } }[]; text?: string };

async function messagesOf(serve: V2Serve, sessionID: string): Promise<Message[]> {
  const body = (await serve.get(sessionID, "message", "limit=200")) as { data: Message[] };
  return v2InOrder(body.data) as Message[];
}
const count = (messages: Message[], type: string) => messages.filter((m) => m.type === type).length;

let enforceModel: Awaited<ReturnType<typeof startV2Model>>;
let observeModel: Awaited<ReturnType<typeof startV2Model>>;
let enforce: V2Serve;
let observe: V2Serve;
let loop: { sessionID: string; ms: number };
let healthy: { sessionID: string; ms: number };
let observed: { sessionID: string; ms: number };

beforeAll(async () => {
  [enforceModel, observeModel] = await Promise.all([startV2Model(CAP), startV2Model(12)]);
  [enforce, observe] = await Promise.all([
    startV2Serve({ modelURL: enforceModel.url, plugin: [[PLUGIN, { notify: "log" }]] }),
    startV2Serve({ modelURL: observeModel.url, plugin: [[PLUGIN, { mode: "observe", notify: "log" }]] }),
  ]);
  [loop, healthy, observed] = await Promise.all([
    enforce.run("run the command MODE=loop", WAIT_MS),
    enforce.run("read the parts MODE=healthy", WAIT_MS),
    observe.run("run the command MODE=loop", WAIT_MS),
  ]);
}, 240_000);
afterAll(async () => {
  await Promise.all([enforce?.stop(), observe?.stop()]);
  await Promise.all([enforceModel?.close(), observeModel?.close()]);
});

describe("V2 session runner of opencode 1.18.33 (opencode serve), guarded by the V1 plugin", () => {
  it("stops the every-step compaction loop by its third compaction; the warn line names the session", async () => {
    const messages = await messagesOf(enforce, loop.sessionID);
    const compactions = count(messages, "compaction");
    expect(compactions).toBeGreaterThanOrEqual(2);
    expect(compactions).toBeLessThanOrEqual(3);
    // The loop's model requests: an unguarded run goes on to the cap.
    expect(enforceModel.requests.filter((r) => r.mode === "loop").length).toBeLessThanOrEqual(8);
    const stops = guardLogLines(enforce.stderr()).filter((l) => l.message.startsWith("compaction-guard interrupted V2 session"));
    expect(stops).toHaveLength(1);
    expect(stops[0]!.level).toBe("WARN");
    expect(stops[0]!.message).toContain(loop.sessionID);
    expect(stops[0]!.fields.rule).toBe("repeated-tool-call");
    expect(stops[0]!.fields.compaction).toBe(2);
  });

  it("leaves alone a V2 session whose steps do new work: it compacts, goes on and reaches its answer", async () => {
    const messages = await messagesOf(enforce, healthy.sessionID);
    expect(count(messages, "compaction")).toBeGreaterThanOrEqual(1);
    const commands = messages.flatMap((m) => m.content ?? []).flatMap((c) => (c.type === "tool" ? [c.state?.input?.command] : []));
    expect(commands).toEqual(Array.from({ length: HEALTHY_CALLS }, (_, i) => `cat part${i + 1}.txt`));
    expect(messages.at(-1)!.content?.some((c) => c.type === "text")).toBe(true);
    const lines = guardLogLines(enforce.stderr()).filter((l) => l.fields.sessionID === healthy.sessionID);
    expect(lines.filter((l) => l.fields.decision === "deny")).toEqual([]);
    // Every compaction decided: one info line each (the lines are shown when it fails).
    const said = lines.map((l) => `${l.level} ${l.message}`);
    expect(lines.filter((l) => l.fields.decision === "allow").length, said.join("\n")).toBe(count(messages, "compaction"));
  });
});

describe("audit through opencode serve reads V2 sessions", () => {
  it("lists the loop and the healthy V2 session, decided as the live guard decided them", async () => {
    // Its own `opencode serve` on the same data (the sandbox's XDG dirs), as a user would run it.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [replayCli(), "audit", "--opencode", enforce.sandbox.opencodeBin, "--json"],
      { env: enforce.sandbox.env, cwd: enforce.sandbox.project, timeout: 90_000 },
    );
    const sessions = (
      JSON.parse(stdout) as { sessions: { sessionID: string; compactions: number; firstDeny: number | null; rule: string | null }[] }
    ).sessions;
    const loopRow = sessions.find((s) => s.sessionID === loop.sessionID);
    const healthyRow = sessions.find((s) => s.sessionID === healthy.sessionID);
    expect(loopRow).toMatchObject({ firstDeny: 2, rule: "repeated-tool-call" });
    expect(healthyRow).toMatchObject({ firstDeny: null });
    expect(healthyRow!.compactions).toBe(count(await messagesOf(enforce, healthy.sessionID), "compaction"));
  });
});

describe("observe mode in a V2 session", () => {
  it("logs where it would have interrupted, and the loop goes on to the server's cap", async () => {
    const messages = await messagesOf(observe, observed.sessionID);
    expect(count(messages, "compaction")).toBeGreaterThan(3);
    const lines = guardLogLines(observe.stderr());
    const would = lines.filter((l) => l.message.startsWith("compaction-guard would have interrupted V2 session"));
    expect(would.length).toBeGreaterThanOrEqual(2);
    expect(would[0]!.level).toBe("WARN");
    expect(would[0]!.message).toContain(observed.sessionID);
    expect(would[0]!.fields.mode).toBe("observe");
    expect(lines.some((l) => l.message.startsWith("compaction-guard interrupted"))).toBe(false);
  });
});

/**
 * The V1 plugin's watch over V2 sessions in opencode 1.18.x (src/plugin/opencode-v2/v2-runner.ts, wired in
 * guard.ts): `session.next.compaction.ended` on the V1 `event` hook (the bus form, `{ type,
 * properties }`) → `GET {serverUrl}/api/session/{id}/message` → decide → `POST …/interrupt`.
 * The server is a fake `fetch` answering with the V2 messages of a real 1.18.33 session
 * (test/fixtures/v2/loop-messages.json) as they stood at each compaction.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createGuard } from "../../src/plugin/opencode-v1/guard.js";
import { v2InOrder } from "../../src/hosts/opencode/v2.js";
import { fakeClient, newestMessages } from "../support/client.js";

type V2 = { id: string; type: string };
const LOOP = v2InOrder(
  (JSON.parse(readFileSync(new URL("../fixtures/v2/loop-messages.json", import.meta.url), "utf8")) as { data: V2[] }).data,
) as V2[];
const COMPACTIONS = LOOP.filter((m) => m.type === "compaction");
const SESSION = "ses_v2loop";

/** A fake opencode serve: the V2 messages up to compaction `upTo`, newest first; records every call. */
function fakeServe(upTo: () => number, fail?: "message" | "interrupt") {
  const calls: string[] = [];
  const fetch = (async (url: string | URL, init?: RequestInit) => {
    const u = new URL(String(url));
    calls.push(`${init?.method ?? "GET"} ${u.pathname}${u.search}`);
    const json = (status: number, body: unknown) => new Response(body === undefined ? null : JSON.stringify(body), { status });
    if (u.pathname.endsWith("/interrupt")) return fail === "interrupt" ? json(500, { error: "boom" }) : json(204, undefined);
    if (u.pathname.endsWith("/message")) {
      if (fail === "message") return json(404, { _tag: "SessionNotFoundError" });
      const end = LOOP.indexOf(COMPACTIONS[upTo() - 1]!) + 1;
      return json(200, { data: LOOP.slice(0, end).reverse(), cursor: {} });
    }
    return json(200, { data: { id: SESSION, title: "Fix the build" } });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const ended = (index: number) => ({
  event: {
    type: "session.next.compaction.ended",
    properties: { sessionID: SESSION, messageID: COMPACTIONS[index - 1]!.id, reason: "auto", text: "summary", recent: "" },
  },
});

function guard(options: Record<string, unknown>, serve: ReturnType<typeof fakeServe>) {
  const fake = fakeClient(newestMessages([]));
  const hooks = createGuard(
    { client: fake.client as never, directory: "/home/dev/proj", serverUrl: new URL("http://127.0.0.1:4096") },
    options,
    { env: {}, fetch: serve.fetch },
  );
  return { hooks, fake };
}

describe("V2 sessions in opencode 1.18.x, watched by the V1 plugin", () => {
  it("lets compaction 1 pass and interrupts at compaction 2: a warn line and a toast naming the session", async () => {
    let at = 1;
    const serve = fakeServe(() => at);
    const { hooks, fake } = guard({}, serve);
    await hooks.event!(ended(1) as never);
    expect(serve.calls.filter((c) => c.startsWith("POST"))).toEqual([]);
    at = 2;
    await hooks.event!(ended(2) as never);
    expect(serve.calls.filter((c) => c.startsWith("POST"))).toEqual([
      `POST /api/session/${SESSION}/interrupt?directory=%2Fhome%2Fdev%2Fproj`,
    ]);
    expect(serve.calls).toContain(`GET /api/session/${SESSION}/message?directory=%2Fhome%2Fdev%2Fproj&order=desc&limit=200`);
    const lines = fake.logs.map((l) => `${l.level} ${l.message}`);
    expect(lines[0]).toMatch(new RegExp(`^info compaction-guard let V2 session ${SESSION} go on after compaction 1 `));
    expect(lines[1]).toMatch(new RegExp(`^warn compaction-guard interrupted V2 session "Fix the build" \\(${SESSION}\\) at compaction 2 `));
    expect(fake.logs[1]!.extra).toMatchObject({
      sessionID: SESSION,
      compaction: 2,
      decision: "deny",
      rule: "repeated-tool-call",
      runner: "v2",
    });
    expect(fake.toasts).toEqual([
      {
        title: "Compaction loop stopped",
        message: `"Fix the build" stopped: the same bash call ran 3 times. Reply to go on; opencode's log says why.`,
        variant: "warning",
      },
    ]);
  });

  it("the event before the stored message: read again a little later, then decided", async () => {
    let reads = 0;
    // The first two reads do not hold compaction 2 yet.
    const serve = fakeServe(() => (++reads <= 2 ? 1 : 2));
    const { hooks, fake } = guard({}, serve);
    await hooks.event!(ended(2) as never);
    expect(reads).toBe(3);
    expect(serve.calls.filter((c) => c.startsWith("POST"))).toHaveLength(1);
    expect(fake.logs[0]!.extra).toMatchObject({ compaction: 2, decision: "deny" });
  });

  it("observe mode: the warn line says it would have interrupted; nothing is posted", async () => {
    const serve = fakeServe(() => 2);
    const { hooks, fake } = guard({ mode: "observe", notify: "log" }, serve);
    await hooks.event!(ended(2) as never);
    expect(serve.calls.filter((c) => c.startsWith("POST"))).toEqual([]);
    expect(fake.logs.map((l) => l.message)[0]).toMatch(
      /^compaction-guard would have interrupted V2 session .* \(observe mode: the session goes on\): repeated-tool-call: /,
    );
    expect(fake.toasts).toEqual([]);
  });

  it("manual compactions and other events are not read", async () => {
    const serve = fakeServe(() => 2);
    const { hooks } = guard({}, serve);
    await hooks.event!({ event: { ...ended(2).event, properties: { ...ended(2).event.properties, reason: "manual" } } } as never);
    await hooks.event!({ event: { type: "session.next.step.ended", properties: { sessionID: SESSION } } } as never);
    expect(serve.calls).toEqual([]);
  });

  it("a failed read or interrupt: one warn line, and the session goes on as opencode runs it", async () => {
    const unreadable = guard(
      {},
      fakeServe(() => 2, "message"),
    );
    await unreadable.hooks.event!(ended(2) as never);
    expect(unreadable.fake.logs.map((l) => l.message)).toEqual([
      `compaction-guard could not decide for V2 session ${SESSION}; the session goes on: GET /api/session/${SESSION}/message answered HTTP 404`,
    ]);
    const stubborn = guard(
      {},
      fakeServe(() => 2, "interrupt"),
    );
    await stubborn.hooks.event!(ended(2) as never);
    expect(stubborn.fake.logs.map((l) => l.message)).toEqual([
      `compaction-guard found a loop in V2 session ${SESSION} (repeated-tool-call) but could not interrupt it: POST /api/session/${SESSION}/interrupt answered HTTP 500`,
    ]);
  });

  it("without a serverUrl (opencode run) V2 events are ignored", async () => {
    const serve = fakeServe(() => 2);
    const fake = fakeClient(newestMessages([]));
    const hooks = createGuard({ client: fake.client as never }, {}, { env: {}, fetch: serve.fetch });
    await hooks.event!(ended(2) as never);
    expect(serve.calls).toEqual([]);
  });
});

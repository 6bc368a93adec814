#!/usr/bin/env node
/**
 * A stand-in for `opencode serve` (1.18.33's HTTP answers, only what `audit` asks): started as
 * `fake-opencode.mjs serve --hostname 127.0.0.1 --port N`, it prints opencode's listening line
 * and answers
 * - `GET /experimental/session` as opencode's `Session.listGlobal` does: newest `time.updated`
 *   first (then id), `start` keeps updated ≥ start, `cursor` keeps updated < cursor (0 is no
 *   cursor), `limit` (default 100); an `x-next-cursor` header (the last one's `time.updated`)
 *   only when there are more;
 * - `GET /session/{id}/message`: a user message and one step, or never (FAKE_HANG_MESSAGES=1);
 * - `GET /config`, `/config/providers`, `/provider`: empty.
 *
 * Environment: FAKE_SESSIONS (how many sessions, default 3); FAKE_SAME_UPDATED (how many of them,
 * around the first page boundary, share one `time.updated` ms; default 0); FAKE_PAGE_AT (the
 * boundary, default 1000); FAKE_LOG (a file that gets one line per request).
 */
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";

const args = process.argv.slice(2);
const port = Number(args[args.indexOf("--port") + 1]);
const count = Number(process.env.FAKE_SESSIONS ?? 3);
const same = Number(process.env.FAKE_SAME_UPDATED ?? 0);
const at = Number(process.env.FAKE_PAGE_AT ?? 1000);
const T0 = Date.UTC(2026, 10, 1);

/** Sessions newest first: session i updated at T0 − i s, except `same` of them around index `at` sharing one ms. */
const sessions = Array.from({ length: count }, (_, i) => {
  const shared = same > 0 && i >= at - Math.floor(same / 2) && i < at - Math.floor(same / 2) + same;
  const updated = shared ? T0 - (at - Math.floor(same / 2)) * 1000 : T0 - i * 1000;
  return { id: `ses_${String(i).padStart(6, "0")}`, title: `session ${i}`, directory: "/p", time: { created: updated - 5000, updated } };
});

const json = (res, body, headers = {}) => {
  res.writeHead(200, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

const server = createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  if (process.env.FAKE_LOG) appendFileSync(process.env.FAKE_LOG, `${req.method} ${url.pathname}${url.search}\n`);
  if (url.pathname === "/experimental/session") {
    const q = url.searchParams;
    const start = Number(q.get("start") ?? 0);
    const cursor = Number(q.get("cursor") ?? 0);
    const limit = Number(q.get("limit") ?? 100);
    const rows = sessions
      .filter((s) => (!start || s.time.updated >= start) && (!cursor || s.time.updated < cursor))
      .sort((a, b) => b.time.updated - a.time.updated || (a.id < b.id ? 1 : -1))
      .slice(0, limit + 1);
    const more = rows.length > limit;
    const list = more ? rows.slice(0, limit) : rows;
    return json(res, list, more && list.length > 0 ? { "x-next-cursor": String(list.at(-1).time.updated) } : {});
  }
  const messages = /^\/session\/([^/]+)\/message$/.exec(url.pathname);
  if (messages) {
    if (process.env.FAKE_HANG_MESSAGES === "1") return; // never answers
    const id = messages[1];
    return json(res, [
      { info: { id: "msg_1", sessionID: id, role: "user", time: { created: T0 } }, parts: [{ id: "p1", type: "text", text: "hi" }] },
      {
        info: {
          id: "msg_2",
          sessionID: id,
          role: "assistant",
          finish: "stop",
          tokens: { total: 100 },
          time: { created: T0, completed: T0 + 1 },
        },
        parts: [{ id: "p2", type: "text", text: "hello" }],
      },
    ]);
  }
  if (url.pathname === "/config") return json(res, {});
  if (url.pathname === "/config/providers") return json(res, { providers: [], default: {} });
  if (url.pathname === "/provider") return json(res, { all: [], default: {}, connected: [] });
  res.writeHead(404);
  res.end();
});
server.listen(port, "127.0.0.1", () => console.log(`opencode server listening on http://127.0.0.1:${port}`));

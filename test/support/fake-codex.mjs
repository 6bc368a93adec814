#!/usr/bin/env node
// A stand-in for `codex app-server` (Codex 0.169's JSON-RPC over stdio), as far as the guard's
// installer uses it: `initialize`, `hooks/list` (the user's $CODEX_HOME/hooks.json only, each
// handler keyed `<file>:<event>:<group>:<handler>` like Codex, hashed over event, matcher and
// handler), `config/batchWrite` of `hooks.state` (upsert a map; replace one quoted key or the
// whole table with null) and `config/read` (the user layer's hooks.state). Trust records live in
// $CODEX_HOME/fake-hooks-state.json instead of config.toml. FAKE_CODEX_EXIT=1: exits at once.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

if (process.argv[2] !== "app-server" || process.env.FAKE_CODEX_EXIT === "1") process.exit(1);
const home = process.env.CODEX_HOME || join(process.env.HOME, ".codex");
const hooksFile = join(home, "hooks.json");
const stateFile = join(home, "fake-hooks-state.json");
const readState = () => (existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, "utf8")) : undefined);
const snake = (event) => event.replace(/[A-Z]/g, (c, i) => (i === 0 ? "" : "_") + c.toLowerCase());

function list() {
  const state = readState() ?? {};
  const hooks = [];
  if (!existsSync(hooksFile)) return hooks;
  for (const [event, groups] of Object.entries(JSON.parse(readFileSync(hooksFile, "utf8")).hooks ?? {}))
    groups.forEach((group, g) =>
      group.hooks.forEach((handler, h) => {
        const key = `${hooksFile}:${snake(event)}:${g}:${h}`;
        const currentHash = `sha256:${createHash("sha256")
          .update(JSON.stringify([event, group.matcher ?? null, handler]))
          .digest("hex")}`;
        const trusted = state[key]?.trusted_hash;
        const trustStatus = trusted === undefined ? "untrusted" : trusted === currentHash ? "trusted" : "modified";
        const eventName = event.charAt(0).toLowerCase() + event.slice(1);
        hooks.push({ key, eventName, handlerType: "command", command: handler.command, sourcePath: hooksFile, currentHash, trustStatus });
      }),
    );
  return hooks;
}

function write(edits) {
  let state = readState();
  for (const { keyPath, value, mergeStrategy } of edits) {
    if (keyPath === "hooks.state" && mergeStrategy === "upsert") state = { ...state, ...value };
    else if (keyPath === "hooks.state" && value === null) state = undefined;
    else if (keyPath.startsWith("hooks.state.") && value === null) delete state?.[JSON.parse(keyPath.slice("hooks.state.".length))];
    else throw new Error(`unexpected edit ${keyPath}`);
  }
  if (state === undefined) rmSync(stateFile, { force: true });
  else writeFileSync(stateFile, JSON.stringify(state));
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) return;
  let result;
  if (method === "initialize") result = { codexHome: home };
  else if (method === "hooks/list") result = { data: [{ cwd: params.cwds[0], hooks: list(), warnings: [], errors: [] }] };
  else if (method === "config/batchWrite") result = (write(params.edits), { status: "ok" });
  else if (method === "config/read") {
    const state = readState();
    result = { config: {}, layers: [{ name: { type: "user" }, config: state === undefined ? {} : { hooks: { state } } }] };
  } else {
    process.stdout.write(`${JSON.stringify({ id, error: { code: -32601, message: `unknown method ${method}` } })}\n`);
    return;
  }
  process.stdout.write(`${JSON.stringify({ id, result })}\n`);
});

/**
 * `npm run try [-- --dir <folder>]`: watch the guard act in the real opencode TUI, your own
 * eyes on it. Leaves a scratch project (default `.cache/try/` in this clone, git-ignored)
 * wired to the scripted model server and to the plugin built from this clone, starts that
 * server in the foreground (Ctrl-C, or SIGTERM, stops it), and prints the one command that
 * opens the opencode TUI there, where the guard's log lines and a session export will be.
 *
 * The model plays the fixed-point loop (`e2e/scenarios.ts`): whatever you type, it runs the
 * same `bash` call every step and every step is over opencode's usable context, so opencode
 * compacts after every step; at compaction 1 the guard denies the synthetic continue turn,
 * shows its toast and leaves its note at the end of the conversation.
 *
 * The scratch project has its own HOME and XDG folders (nothing of your own opencode is read
 * or written) and opencode's network switches off; `opencode.sh` in it sets them and runs the
 * pinned opencode (sandbox.ts, installed into .cache/opencode/ when missing) with any arguments.
 */
import { existsSync } from "node:fs";
import { chmod, rm, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { startModelServer } from "./model-server.js";
import { PLUGIN_ENTRY } from "./replay.js";
import { createSandbox, NETWORK_OFF_ENV, OPENCODE_VERSION, PROJECT_ROOT, writeOpencodeConfig } from "./sandbox.js";
import { MODEL_LIMITS, USABLE_TOKENS } from "./scenarios.js";
import { formatInt } from "./table.js";
import { freshDist } from "./fresh-dist.js";

/** Model requests the server answers before it refuses (an unguarded session stays finite; enough for many tries). */
const MAX_REQUESTS = 500;

/** A shell word: single-quoted unless it is plain. */
const shellWord = (text: string): string => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

const { values } = parseArgs({ options: { dir: { type: "string" } } });
const root = resolve(values.dir ?? join(PROJECT_ROOT, ".cache", "try"));
freshDist();
if (!existsSync(PLUGIN_ENTRY)) throw new Error(`${PLUGIN_ENTRY} is missing: run npm run build first`);

// A fresh scratch project each time: an old session would hold the last try's loop.
await rm(root, { recursive: true, force: true });
const sandbox = await createSandbox({ root });
const server = await startModelServer({ scenario: "fixed-point", readPath: sandbox.readPath, maxRequests: MAX_REQUESTS });
await writeOpencodeConfig(sandbox, { baseURL: server.baseURL, plugin: [[pathToFileURL(PLUGIN_ENTRY).href, { notify: "toast" }]] });

// The launcher: the scratch HOME and XDG folders and the network switches, your own terminal and PATH.
const launcher = join(root, "opencode.sh");
const own = ["HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", ...Object.keys(NETWORK_OFF_ENV)];
await writeFile(
  launcher,
  [
    "#!/bin/sh",
    "# Written by npm run try: the real opencode in the scratch project, against the scripted model server.",
    ...own.map((name) => `export ${name}=${shellWord(sandbox.env[name]!)}`),
    `cd ${shellWord(sandbox.project)} || exit 1`,
    `exec ${shellWord(sandbox.opencodeBin)} "$@"`,
    "",
  ].join("\n"),
);
await chmod(launcher, 0o755);

const export_ = join(root, "session.json");
// Absolute paths: the command is typed in another terminal, maybe in another folder.
console.log(
  [
    `scratch project ready: ${sandbox.project} (opencode ${OPENCODE_VERSION}, the plugin from ${relative(PROJECT_ROOT, PLUGIN_ENTRY)} of this clone)`,
    `scripted model server on ${server.baseURL}: the fixed-point loop, model limits ${formatInt(MODEL_LIMITS.context)} context / ` +
      `${formatInt(MODEL_LIMITS.output)} output (usable ${formatInt(USABLE_TOKENS)} tokens)`,
    "",
    "In another terminal, open the opencode TUI there:",
    "",
    `  ${shellWord(launcher)}`,
    "",
    "Type anything and press Enter. The model runs the same bash call every step, opencode compacts after",
    'each one, and at the first compaction the guard stops the loop: a "Compaction loop stopped" toast, and its note',
    "at the end of the conversation. Reply to go on.",
    "",
    `The guard's log lines: ${join(sandbox.xdg.data, "opencode", "log")}/ (grep compaction-guard)`,
    `An export of the session: ${shellWord(launcher)} export <ses_…> > ${shellWord(export_)}` +
      ` (the id: ${shellWord(launcher)} session list)`,
    `Then, in this clone: node dist/cli/bin.js replay ${shellWord(export_)} --context-limit ${MODEL_LIMITS.context} --output-limit ${MODEL_LIMITS.output}`,
    "",
    "The server runs until you press Ctrl-C here. The scratch project stays (the next npm run try starts it afresh).",
  ].join("\n"),
);

let closing = false;
const stop = (signal: NodeJS.Signals) => {
  if (closing) return;
  closing = true;
  void server.close().then(() => {
    console.log(`\n${signal}: the scripted model server stopped (${server.requests.length} requests answered).`);
    process.exit(0);
  });
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

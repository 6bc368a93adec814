/**
 * The agents the guard runs inside through their own hooks, and the three commands that use
 * them: `hook <agent>` (one hook invocation: standard input in, the agent's reply out),
 * `install <agent> [--project]` and `uninstall <agent> [--project]`. Each agent's code is
 * loaded only when its command runs (`live/<agent>.ts`).
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import type { AgentLive, LiveAgent, LiveContext } from "../live/agent.js";
import { UsageError } from "./common.js";

/** Each agent's live guard, imported on first use. */
export const LIVE_AGENTS: Record<LiveAgent, () => Promise<AgentLive>> = {
  "claude-code": async () => (await import("../live/claude-code.js")).claudeCodeLive,
  codex: async () => (await import("../live/codex.js")).live,
};

/** The agent a command names. @throws UsageError for a missing or unknown agent. */
export async function liveAgent(name: string | undefined): Promise<AgentLive> {
  const known = Object.keys(LIVE_AGENTS).join(", ");
  if (name === undefined) throw new UsageError(`which agent? one of: ${known}`);
  const load = LIVE_AGENTS[name as LiveAgent];
  if (load === undefined) throw new UsageError(`no live guard for ${JSON.stringify(name)}; one of: ${known}`);
  return load();
}

/** How an installed hook runs this very executable: Node's path and the bin script's, quoted, then `hook <agent>`. */
export function hookCommand(agent: LiveAgent, script: string = process.argv[1] ?? ""): string {
  let bin = script;
  try {
    bin = realpathSync(script);
  } catch {
    // A script that cannot be resolved is written as it was given.
  }
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `${quote(process.execPath)} ${quote(bin)} hook ${agent}`;
}

/** Reads all of standard input as text. */
async function readAll(stdin: AsyncIterable<Uint8Array | string>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * `hook <agent>`: parses standard input as JSON, lets the agent answer, writes its reply.
 * @returns the reply's exit code; never throws (input that is no JSON goes to the agent as
 *   undefined, which it answers with "go on" and a warning).
 */
export async function runHook(
  name: string | undefined,
  out: (text: string) => void,
  err: (text: string) => void,
  context: LiveContext,
  stdin: AsyncIterable<Uint8Array | string> = process.stdin,
): Promise<number> {
  try {
    const agent = await liveAgent(name);
    let input: unknown;
    try {
      input = JSON.parse(await readAll(stdin));
    } catch {
      input = undefined;
    }
    const reply = await agent.handle(input, context);
    if (reply.stdout !== null) out(reply.stdout);
    if (reply.stderr !== null) err(reply.stderr);
    return reply.exitCode;
  } catch (error) {
    err(`compaction-guard: ${error instanceof Error ? error.message : String(error)}; going on without the guard\n`);
    return 0;
  }
}

/** `install <agent> [--project]` / `uninstall …`: prints the file, one line per change, then one `note:` line per thing left to the user. @throws UsageError, Error (a config that cannot be parsed). */
export async function runInstall(
  action: "install" | "uninstall",
  name: string | undefined,
  project: boolean,
  out: (text: string) => void,
  context: LiveContext,
): Promise<number> {
  const agent = await liveAgent(name);
  const scope = project ? "project" : "user";
  let report;
  try {
    report = action === "install" ? await agent.install(scope, hookCommand(agent.agent), context) : await agent.uninstall(scope, context);
  } catch (error) {
    // A settings file that cannot be read or parsed is the user's to fix: one line, exit 2.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const lines = [
    ...(report.changes.length === 0 ? [`${report.file}: nothing to change`] : [`${report.file}:`, ...report.changes.map((c) => `  ${c}`)]),
    ...(report.notes ?? []).map((note) => `note: ${note}`),
  ];
  out(`${lines.join("\n")}\n`);
  return 0;
}

/** The context a live command runs in. */
export const liveContext = (env: Readonly<Record<string, string | undefined>>, cwd: string): LiveContext => ({
  env,
  cwd,
  home: env.HOME || homedir(),
});

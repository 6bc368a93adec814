/**
 * Deliberate waits: a tool call that waits on purpose for the world outside to move before it
 * looks. An unchanged answer after such a call means only that the world has not moved yet
 * (tool-kinds.ts gives it the kind `waiting`).
 *
 * A call waits when it waits {@link MIN_WAIT_SECONDS} or more, or blocks until something
 * outside changes:
 *
 * - bash: read from its command only, as the parsed command says (shell/wait.ts
 *   `commandWaitSeconds`). The bash tool's own `timeout` parameter is a kill limit and says
 *   nothing.
 * - any other tool: its own wait parameter ({@link waitParamSeconds}).
 */
import { durationSeconds } from "../shell/command.js";
import { commandWaitSeconds } from "../shell/wait.js";
import type { ToolCall } from "../model/entry.js";

/** The shortest deliberate wait, in seconds. A shorter sleep gives a server a moment to start; it does not wait for the world. */
export const MIN_WAIT_SECONDS = 10;

/**
 * Does the call wait on purpose (see the module's comment)? A bash call is read from its
 * `command` ({@link commandWaitSeconds}), any other tool from its input ({@link waitParamSeconds}).
 */
export function isWait(call: ToolCall): boolean {
  if (call.tool === "bash") {
    const command = (call.input as { command?: unknown } | null)?.command;
    if (typeof command !== "string") return false;
    let waits = commandWaits.get(command);
    if (waits === undefined) {
      waits = commandWaitSeconds(command) >= MIN_WAIT_SECONDS;
      if (commandWaits.size < KNOWN_COMMANDS && command.length <= KNOWN_COMMAND_LENGTH) commandWaits.set(command, waits);
    }
    return waits;
  }
  return waitParamSeconds(call.tool, call.input) >= MIN_WAIT_SECONDS;
}

/** Whether each bash command waits, once read (for the first {@link KNOWN_COMMANDS} commands): a poll is the same command again and again. */
const commandWaits = new Map<string, boolean>();
/** How many commands {@link commandWaits} keeps, and how long each may be: a hostile export's millions are read each time. */
const KNOWN_COMMANDS = 1024;
const KNOWN_COMMAND_LENGTH = 1024;

/** The unit of a wait parameter's number: milliseconds, seconds, or unsaid (see {@link paramSeconds}). */
type Unit = "ms" | "s" | "unsaid";

/**
 * Parameters that say how long the call itself waits for something to happen (Codex's
 * `exec_command` and `write_stdin` `yield_time_ms`; a job tool's `wait`). They count on any
 * tool but bash.
 */
const WAIT_PARAMS: ReadonlyArray<readonly [string, Unit]> = [
  ["yield_time_ms", "ms"],
  ["yieldTimeMs", "ms"],
  ["wait_ms", "ms"],
  ["waitMs", "ms"],
  ["wait_seconds", "s"],
  ["waitSeconds", "s"],
  ["wait", "unsaid"],
];

/**
 * Parameters that limit how long a call may take. Most tools' `timeout` is a kill limit
 * (opencode's bash in ms, its webfetch in seconds): the call ends as soon as its work is
 * done. Only on a tool whose name says it waits ({@link WAITING_NAME}) does the limit say how
 * long it waits for something to happen.
 */
const LIMIT_PARAMS: ReadonlyArray<readonly [string, Unit]> = [
  ["timeout_ms", "ms"],
  ["timeoutMs", "ms"],
  ["timeout_seconds", "s"],
  ["timeoutSeconds", "s"],
  ["timeout", "unsaid"],
];

/** Boolean parameters that ask a waiting tool to block until what it watches changes. */
const BLOCK_PARAMS = ["wait", "block", "watch"];

/** A tool whose name says it waits or polls: `job_wait`, `await_job`, `ci_status`, `poll_build`, `write_stdin`. */
const WAITING_NAME = /wait|poll|watch|status|stdin/i;

/**
 * How long a tool other than bash says it waits, in seconds (0 when it does not), from its
 * own parameters:
 * - a wait parameter ({@link WAIT_PARAMS}) on any tool;
 * - on a tool whose name says it waits ({@link WAITING_NAME}) also a limit parameter
 *   ({@link LIMIT_PARAMS}), and `wait`/`block`/`watch: true`, which blocks until something
 *   changes (for at most the limit when one is given);
 * - the longest of these, each read by {@link paramSeconds}.
 * A call that types into a process (a non-empty `chars`, as Codex's `write_stdin` sends) gets
 * its answer from that input, not from time passing: 0. With `chars` empty or absent,
 * `write_stdin` is a pure poll.
 */
export function waitParamSeconds(tool: string, input: unknown): number {
  if (typeof input !== "object" || input === null) return 0;
  const params = input as Record<string, unknown>;
  const chars = Object.hasOwn(params, "chars") ? params.chars : undefined;
  if (typeof chars === "string" && chars !== "") return 0;
  let seconds = 0;
  for (const [key, unit] of WAIT_PARAMS) seconds = Math.max(seconds, paramSeconds(params, key, unit));
  if (WAITING_NAME.test(tool)) {
    let limit = 0;
    for (const [key, unit] of LIMIT_PARAMS) limit = Math.max(limit, paramSeconds(params, key, unit));
    const blocking = BLOCK_PARAMS.some((key) => Object.hasOwn(params, key) && params[key] === true);
    seconds = Math.max(seconds, blocking && limit === 0 ? Infinity : limit);
  }
  return seconds;
}

/**
 * The parameter `key` of `params` in seconds (0 when absent or not a duration). A number is in
 * `unit`; an unsaid unit reads a number of 10000 or more as milliseconds and a smaller one as
 * seconds (`timeout: 120` is two minutes, `timeout: 45000` is 45 s). A string is a number in
 * the same way, or a duration word (`"90s"`, `"2m"`, {@link durationSeconds}).
 */
function paramSeconds(params: Readonly<Record<string, unknown>>, key: string, unit: Unit): number {
  if (!Object.hasOwn(params, key)) return 0;
  const value = params[key];
  let amount: number;
  if (typeof value === "number") amount = value;
  else if (typeof value === "string" && /^\d+(?:\.\d+)?$/.test(value)) amount = Number(value);
  else if (typeof value === "string") {
    const seconds = durationSeconds(value);
    return seconds > 0 ? seconds : 0;
  } else return 0;
  if (!(amount > 0)) return 0;
  return unit === "ms" || (unit === "unsaid" && amount >= 10_000) ? amount / 1000 : amount;
}

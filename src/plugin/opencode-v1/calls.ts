/**
 * The guard's calls into opencode, made safe: a time limit on each, and a one-line reason for
 * anything thrown. Every hook calls the SDK through these, so a slow or failing opencode
 * costs at most a timeout and a warn line, never a hang or a throw into opencode's runtime.
 */
import type { PluginInput } from "@opencode-ai/plugin";

/** The SDK client opencode hands a plugin (`PluginInput.client`). */
export type Client = PluginInput["client"];

export type { Level, Log } from "../../guard/host.js";
export { reason } from "../../guard/host.js";

/** What {@link withTimeout} rejects with when the call did not answer in time. */
export class TimeoutError extends Error {}

/**
 * Resolves like `promise`, or rejects with TimeoutError (message: "`what` did not answer
 * within `ms` ms") after `ms` milliseconds. The timer never holds the process.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} did not answer within ${ms} ms`)), ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

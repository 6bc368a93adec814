/**
 * The guard's calls into opencode, made safe: a time limit on each, and a one-line reason for
 * anything thrown. Every hook calls the SDK through these, so a slow or failing opencode
 * costs at most a timeout and a warn line, never a hang or a throw into opencode's runtime.
 */
import type { PluginInput } from "@opencode-ai/plugin";
import { redactSecrets } from "../redact/secrets.js";

/** The SDK client opencode hands a plugin (`PluginInput.client`). */
export type Client = PluginInput["client"];

/** A log level of `client.app.log`. */
export type Level = "debug" | "info" | "warn" | "error";

/** Writes one log line; never rejects (plugin/guard.ts's `log`). */
export type Log = (level: Level, message: string, extra?: Record<string, unknown>) => Promise<void>;

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

/** A one-line description of anything thrown, without stack or payload, secrets masked, at most 200 characters. */
export const reason = (error: unknown): string =>
  redactSecrets((error instanceof Error ? error.message : typeof error === "string" ? error : "unknown error").split("\n")[0]!).slice(
    0,
    200,
  );

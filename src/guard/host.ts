/**
 * What the guard's response needs from the runtime it runs in (opencode 1.x's V1 hooks, the
 * 1.18 V2 runner watched from them, the OpenCode 2.x entry): a small host per runtime. Every
 * runtime builds one; ./respond.ts is the only code that says what happens at a verdict.
 */
import type { Verdict } from "../judge/verdict.js";
import { redactSecrets } from "../redact/secrets.js";
import { isRecord } from "../shared/record.js";
import type { HostWords } from "../model/host-words.js";

/** A log level of `client.app.log` (and of the 2.x entry's standard-error lines). */
export type Level = "debug" | "info" | "warn" | "error";

/** Writes one log line; never rejects. */
export type Log = (level: Level, message: string, extra?: Record<string, unknown>) => Promise<void>;

/** One TUI toast: a title, a message, and its colour. */
export interface ToastBody {
  readonly title: string;
  readonly message: string;
  readonly variant: "warning" | "info";
}

/**
 * How a runtime stops a loop at a compaction: `continue-turn` keeps the turn from going on
 * after it (opencode's synthetic continue turn denied in the V1
 * `experimental.compaction.autocontinue` hook; Codex's turn ended by its `SessionStart` hook);
 * `interrupt` interrupts the session (a V2 session has no continue turn: the runner compacts
 * and goes on in the same turn; Claude Code's hooks refuse the next tool call and stop the turn).
 */
export type StopKind = "continue-turn" | "interrupt";

/**
 * A runtime, as the response to one verdict sees it. Every function may throw or reject
 * except `log` and `toast`; ./respond.ts catches.
 */
export interface GuardHost {
  /** How this runtime stops a loop at a compaction. */
  readonly stop: StopKind;
  /** What the notices say of the host: its name, config file and settings (hosts/opencode/words.ts for opencode's runtimes). */
  readonly words: HostWords;
  /** Writes one log line (never rejects). */
  readonly log: Log;
  /** Shows one toast where a TUI listens (never rejects); absent where the host has none. */
  readonly toast?: ((body: ToastBody) => Promise<void>) | undefined;
  /** The session's title, or undefined. */
  readonly readTitle?: ((sessionID: string) => Promise<string | undefined>) | undefined;
  /** Stops the loop: denies the continue turn, or interrupts the session. */
  readonly halt: (sessionID: string) => Promise<void> | void;
  /**
   * Leaves the stop note of `verdict` in the session (now, or when it goes idle); absent where
   * the host offers no way.
   */
  readonly note?: ((sessionID: string, text: string, verdict: Verdict) => Promise<void> | void) | undefined;
  /**
   * Told of each stop that took effect (enforce mode, a loop, after `halt`), with the rule and
   * the compaction's index (null when unknown): the headless stop line and the status file.
   * Never rejects; absent where the host reports no stop.
   */
  readonly stopped?: ((sessionID: string, rule: string, index: number | null) => Promise<void>) | undefined;
}

/** A one-line description of anything thrown, without stack or payload, secrets masked, at most 200 characters. */
export const reason = (error: unknown): string =>
  redactSecrets((error instanceof Error ? error.message : typeof error === "string" ? error : "unknown error").split("\n")[0]!).slice(
    0,
    200,
  );

/** A session's title from a host's session record (`{ title }`): undefined when absent or blank. */
export function titleOf(session: unknown): string | undefined {
  const title = isRecord(session) ? session.title : undefined;
  return typeof title === "string" && title.trim() !== "" ? title : undefined;
}

/** A duration in milliseconds, rounded to 0.01 ms (how the guard's log lines give times). */
export const roundMs = (ms: number): number => Math.round(ms * 100) / 100;

/** Milliseconds since `started` (a `performance.now()` reading), to 0.01 ms. */
export const elapsedSince = (started: number): number => roundMs(performance.now() - started);

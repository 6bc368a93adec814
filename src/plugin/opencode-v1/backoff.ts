/**
 * Back-off for the guard's per-step reads of opencode (the tool-time check after each tool
 * call, the continue-note rewrite before each model request): when opencode is slow or
 * failing, a step must not wait for it over and over.
 *
 * One back-off per guard, shared by all its sessions: every read goes to the same opencode
 * server through the same client, so a server too slow for one session is too slow for the
 * others, and a back-off per session would pay the time-out again in each new session (every
 * subagent is one).
 *
 * States: guarding (each step awaits its read, bounded by the caller's time-out) and backed
 * off. The first read that fails or times out backs off, with one warn line; while backed off
 * a step reads nothing and does nothing (opencode's own behaviour). Once the wait is over, the
 * next step starts its read as a probe without awaiting it and still does nothing; a probe
 * that answers ends the back-off (one info line), one that fails doubles the wait, up to a
 * cap, quietly. So a slow opencode costs a step the time-out once, then nothing.
 *
 * Reads at a compaction do not go through it: those decisions matter most and keep their own
 * bounded time-out.
 */
import type { Log } from "./calls.js";

/** The wait after the first failure before the first probe, ms. */
export const FIRST_BACKOFF_MS = 15_000;
/** The longest wait between probes, ms. */
export const MAX_BACKOFF_MS = 300_000;

/** What the back-off takes from the guard. */
export interface BackoffDeps {
  /** Writes one log line; never rejects. */
  readonly log: Log;
  /** A one-line reason of anything thrown, secrets masked. */
  readonly reason: (error: unknown) => string;
  /** The clock, ms (default `Date.now`). */
  readonly now?: () => number;
  /** Default {@link FIRST_BACKOFF_MS}. */
  readonly firstDelayMs?: number;
  /** Default {@link MAX_BACKOFF_MS}. */
  readonly maxDelayMs?: number;
}

/** The per-step back-off of one guard: {@link createBackoff}. */
export interface Backoff {
  /**
   * Runs one step's read. Guarding: awaits `read` and resolves its value; when it rejects,
   * backs off (one warn line naming the reason) and resolves undefined. Backed off: resolves
   * undefined at once, having started `read` as a probe when the wait is over. Never rejects.
   *
   * @param sessionID named in the log lines' `extra`.
   * @param read the read; it must reject on its own after a bounded time.
   */
  readonly step: <T>(sessionID: string, read: () => Promise<T>) => Promise<T | undefined>;
  /** True while backed off. */
  readonly backedOff: () => boolean;
}

/** Seconds, for a log line: `15 s`, `2 min`. */
const duration = (ms: number): string => (ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);

/** Builds the back-off of one guard (see the module comment). */
export function createBackoff(deps: BackoffDeps): Backoff {
  const now = deps.now ?? Date.now;
  const firstDelayMs = deps.firstDelayMs ?? FIRST_BACKOFF_MS;
  const maxDelayMs = deps.maxDelayMs ?? MAX_BACKOFF_MS;
  /** Undefined while guarding. */
  let off: { delayMs: number; retryAt: number; skipped: number; probing: boolean } | undefined;

  const trip = async (sessionID: string, error: unknown): Promise<void> => {
    if (off) return; // a concurrent step already backed off
    off = { delayMs: firstDelayMs, retryAt: now() + firstDelayMs, skipped: 0, probing: false };
    await deps.log(
      "warn",
      `compaction-guard backs off: opencode is slow or failing (${deps.reason(error)}); tool-loop checks and continue-note rewrites ` +
        `are skipped until it answers again (next try in ${duration(firstDelayMs)}); compactions are still decided`,
      { sessionID },
    );
  };

  const probe = <T>(sessionID: string, state: NonNullable<typeof off>, read: () => Promise<T>): void => {
    state.probing = true;
    const started = now();
    void (async () => {
      try {
        await read();
      } catch {
        state.delayMs = Math.min(state.delayMs * 2, maxDelayMs);
        state.retryAt = now() + state.delayMs;
        state.probing = false;
        return;
      }
      if (off !== state) return;
      off = undefined;
      await deps.log(
        "info",
        `compaction-guard is guarding every step again: opencode answered in ${now() - started} ms (${state.skipped} step${state.skipped === 1 ? "" : "s"} skipped)`,
        { sessionID },
      );
    })();
  };

  const step: Backoff["step"] = async (sessionID, read) => {
    const state = off;
    if (state) {
      state.skipped++;
      if (!state.probing && now() >= state.retryAt) probe(sessionID, state, read);
      return undefined;
    }
    try {
      return await read();
    } catch (error) {
      await trip(sessionID, error);
      return undefined;
    }
  };

  return { step, backedOff: () => off !== undefined };
}

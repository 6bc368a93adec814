/**
 * The decision at one automatic compaction, the part every host shares: the verdict at the
 * compaction the host is called for, and what the guard does with it there (the response's
 * choice: stop or let pass, halt or only say, which line at which level, a toast, a note).
 * A runtime's responses are chosen before the verdict, from how it stops a loop and its
 * settings ({@link responsesOf}); the verdict picks one. Pure. opencode's live runtimes
 * (./decide-at.ts) carry the choice out through their host (./respond.ts); Claude Code's and
 * Codex's hooks (live/latest.ts) answer with it; replay (./replay.ts) records it: its first
 * stop is where the live guard would have stopped the session.
 */
import type { GuardSettings } from "../config/settings.js";
import type { Compaction } from "../model/timeline.js";
import { decideWith, type DecideOptions, type Verdict } from "../judge/verdict.js";
import type { TimelineSteps } from "../judge/view.js";
import type { StopKind } from "./host.js";

/** What the guard does with a verdict in a runtime: plain data, the executor is ./respond.ts. */
export interface Response {
  /**
   * The verdict stops the session in this runtime: a deny, but for housekeeping (severity
   * `info`) where the runtime interrupts (a V2 session has no continue turn to skip).
   */
  readonly stops: boolean;
  /** Observe mode: nothing is halted, the line and the toast say what would have been done. */
  readonly observe: boolean;
  /** The runtime halts the session (`stops`, in enforce mode); for a loop it then reports the stop. */
  readonly halt: boolean;
  /** The line written: `allow` when it does not stop, `stop` when it does; null with `notify: "off"`. */
  readonly line: "allow" | "stop" | null;
  /** The line's level: `warn` for a loop it stops, else `info`. */
  readonly level: "info" | "warn";
  /** A toast, where the runtime shows toasts: a loop it stops, with `notify: "toast"`. */
  readonly toast: boolean;
  /** The stop note, where the runtime leaves notes: a loop it halts, unless `notify` is `off`. */
  readonly note: boolean;
}

/**
 * What a runtime does with each kind of verdict: chosen from how it stops a loop and the
 * settings' `mode` and `notify` before any verdict is known; a verdict picks one
 * ({@link responseTo}).
 */
export interface Responses {
  /** An allowed compaction. */
  readonly allow: Response;
  /** A housekeeping deny (severity `info`): stops nothing where the runtime interrupts. */
  readonly housekeeping: Response;
  /** A loop (a deny of severity `warning`). */
  readonly loop: Response;
}

/** The responses of a runtime that stops a loop by `stop`, in `settings`' mode, with its notify setting: see {@link Response}'s fields. */
export function responsesOf(stop: StopKind, settings: Pick<GuardSettings, "mode" | "notify">): Responses {
  const observe = settings.mode === "observe";
  const quiet = settings.notify === "off";
  const pass: Response = { stops: false, observe, halt: false, line: quiet ? null : "allow", level: "info", toast: false, note: false };
  const stopping = { stops: true, observe, halt: !observe, line: quiet ? null : "stop" } as const;
  return {
    allow: pass,
    housekeeping: stop === "interrupt" ? pass : { ...stopping, level: "info", toast: false, note: false },
    loop: { ...stopping, level: "warn", toast: settings.notify === "toast", note: !observe && !quiet },
  };
}

/** The response of `responses` to `verdict`, by its decision and severity. */
export const responseTo = (verdict: Verdict, responses: Responses): Response =>
  verdict.decision === "allow" ? responses.allow : verdict.severity === "warning" ? responses.loop : responses.housekeeping;

/** The decision at one compaction: the verdict, and the response's choice in the runtime. */
export interface Decision {
  readonly verdict: Verdict;
  readonly response: Response;
}

/**
 * Decides at `point`, a compaction of `steps`' timeline (the host's read, its steps judged or
 * to be judged), with the settings and what the host knows of the session (`options`), and
 * picks the runtime's response to the verdict among `responses` ({@link responsesOf}). Pure;
 * never throws on a timeline from a host's reader.
 */
export function decideAt(
  steps: TimelineSteps,
  point: Compaction,
  settings: GuardSettings,
  options: DecideOptions,
  responses: Responses,
): Decision {
  const verdict = decideWith(steps, point, settings, options);
  return { verdict, response: responseTo(verdict, responses) };
}

/**
 * The decision at one automatic compaction, the part every host shares: the verdict at the
 * compaction the host is called for, and what the guard does with it there (the response's
 * choice: stop or let pass, halt or only say, which line at which level, a toast, a note).
 * Pure. The live runtimes (./decide-at.ts) carry the choice out through their host
 * (./respond.ts); replay (./replay.ts) records it: its first stop is where the live guard
 * would have stopped the session.
 */
import type { GuardMode, GuardSettings } from "../config/settings.js";
import type { Compaction } from "../model/timeline.js";
import type { RuleContext } from "../judge/rules/index.js";
import { decideWith, type Verdict } from "../judge/verdict.js";
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
 * The response's choice for `verdict` in a runtime that stops a loop by `stop`, with the
 * settings' `mode` and `notify`: see {@link Response}'s fields.
 */
export function responseTo(verdict: Verdict, stop: StopKind, settings: Pick<GuardSettings, "mode" | "notify">): Response {
  const loop = verdict.severity === "warning";
  const stops = verdict.decision === "deny" && (loop || stop !== "interrupt");
  const observe = settings.mode === "observe";
  const halt = stops && !observe;
  const quiet = settings.notify === "off";
  return {
    stops,
    observe,
    halt,
    line: quiet ? null : stops ? "stop" : "allow",
    level: stops && loop ? "warn" : "info",
    toast: stops && loop && settings.notify === "toast",
    note: halt && loop && !quiet,
  };
}

/** The decision at one compaction: the verdict, and the response's choice in the runtime. */
export interface Decision {
  readonly verdict: Verdict;
  readonly response: Response;
}

/**
 * Decides at `point`, a compaction of `steps`' timeline (the host's read, its steps judged or
 * to be judged), with the rules' `context` (the settings and what the host knows of the
 * session), and chooses the response of a runtime that stops by `stop` in `mode` (default the
 * settings'; a session's `/guard` switch overrides it). Pure; never throws on a timeline from
 * a host's reader.
 */
export function decideAt(
  steps: TimelineSteps,
  point: Compaction,
  context: RuleContext,
  stop: StopKind,
  mode: GuardMode = context.settings.mode,
): Decision {
  const verdict = decideWith(steps, point, context);
  return { verdict, response: responseTo(verdict, stop, { mode, notify: context.settings.notify }) };
}

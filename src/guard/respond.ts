/**
 * The one response to a verdict at a compaction, in every runtime: let it pass with an info
 * line, or stop the loop (deny the continue turn, or interrupt the session) and say why in a
 * log line, a toast and a note in the session; in observe mode say what would have been done.
 * What to do is ./decision.ts's choice; this file carries it out through the runtime, a
 * {@link GuardHost}, in ./notices.ts's words.
 */
import type { Verdict } from "../judge/verdict.js";
import type { Response } from "./decision.js";
import { elapsedSince, reason, type GuardHost } from "./host.js";
import { allowLogMessage, denialToast, observedToast, sessionLabel, stopLogMessage, stopRecord } from "./notices.js";

/** Where a verdict was reached, as the response names it. */
export interface VerdictContext {
  readonly sessionID: string;
  /** The compaction's index among the session's automatic compactions, or null when the read did not reach the session's start. */
  readonly index: number | null;
  /** The session's title (or a read of it under way); undefined when unknown. */
  readonly title: Promise<string | undefined> | string | undefined;
  /** The fields of the log line (`client.app.log`'s `extra`), in the order they are written. */
  readonly extra: Record<string, unknown>;
  /**
   * Where the decision's time went, ms by phase, in the order they ran. When given, the line
   * carries them as `phasesMs`, with `notice` last: what the response spent before writing the
   * line (the halt, the stop's status file, the toast; about nothing for an allow).
   */
  readonly phases?: Readonly<Record<string, number>>;
}

/** A runtime's name for the session in a line about a failure: V1 `session S`, V2 `V2 session S`. */
export const sessionWord = (host: GuardHost, sessionID: string): string =>
  `${host.stop === "interrupt" ? "V2 session" : "session"} ${sessionID}`;

/**
 * Responds to `verdict` as ./decision.ts chose (`response`, among the host's `responsesOf`):
 *
 * - it does not stop (allowed, or housekeeping where the host interrupts): the info line;
 * - it stops: in enforce mode `host.halt` first (a failure is one warn line and the end), then
 *   for a loop `host.stopped`; then the toast (`host.toast`, where it shows one), the line
 *   at its level (observe mode: what would have been done, with `mode: "observe"`) and the
 *   stop note (`host.note`, where it leaves one).
 *
 * Never rejects.
 */
export async function respond(verdict: Verdict, host: GuardHost, response: Response, context: VerdictContext): Promise<void> {
  const started = performance.now();
  const { sessionID, index, phases } = context;
  /** The line's fields: the context's, then the phases with the notice's so far. */
  const fields = (): Record<string, unknown> =>
    phases === undefined ? context.extra : { ...context.extra, phasesMs: { ...phases, notice: elapsedSince(started) } };
  const { observe } = response;
  if (!response.stops) {
    if (response.line !== null) await host.log("info", allowLogMessage(host.stop, sessionID, verdict, index), fields());
    return;
  }
  if (response.halt) {
    try {
      await host.halt(sessionID);
    } catch (error) {
      await host.log(
        "warn",
        `compaction-guard found a loop in ${sessionWord(host, sessionID)} (${verdict.rule}) but could not interrupt it: ${reason(error)}`,
        fields(),
      );
      return;
    }
    if (verdict.severity === "warning") await host.stopped?.(sessionID, verdict.rule ?? "unknown", index);
  }
  if (response.line === null) return;
  const title = await Promise.resolve(context.title).catch(() => undefined);
  const session = sessionLabel(sessionID, title);
  if (response.toast && host.toast) {
    await host.toast(
      observe ? observedToast(verdict, sessionID, title) : denialToast(verdict, sessionID, title, host.note ? "note" : "log", host.words),
    );
  }
  const extra = fields();
  await host.log(
    response.level,
    stopLogMessage(host.stop, session, verdict, index, observe, host.words),
    observe ? { ...extra, mode: "observe" } : extra,
  );
  if (!response.note || !host.note) return;
  try {
    await host.note(sessionID, stopRecord(host.stop, session, verdict, index, host.words), verdict);
  } catch (error) {
    await host.log("warn", `compaction-guard could not leave its note in ${sessionWord(host, sessionID)}: ${reason(error)}`, { sessionID });
  }
}

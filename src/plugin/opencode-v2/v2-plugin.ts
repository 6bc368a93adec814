/**
 * The OpenCode 2.x plugin `{ id, setup(ctx) }` (2.x's `define`); ./v2-entry.ts is the module
 * 2.x loads.
 *
 * Written from the published 2.x plugin interfaces (`packages/plugin/src/promise/*.ts`:
 * `plugin.ts`, `event.ts`, `session.ts`, `tool.ts`). No 2.x host that has `session` and `event`
 * could be installed here: what it does with them has run only in a fake host built from those
 * interfaces (test/plugin/v2-entry.test.ts); the npm 2.0 preview, whose context has neither,
 * loads it (e2e/preview-2x.test.ts). What it uses of the context:
 *
 * - `ctx.event.subscribe()`: every event, as `{ type, data }` (or `properties`), under the
 *   names `session.next.*` and `session.*`. It keeps, per session, the events that make up its
 *   messages (steps, text, tools, prompts, compactions; deltas left out), and rebuilds the V2
 *   messages from them (hosts/opencode/v2.ts) at each `compaction.ended` with `reason: "auto"`
 *   (named by its `messageID`, or where a build gives none, by the event's `id`); a
 *   `session.deleted` forgets the session;
 * - `ctx.session.interrupt({ sessionID })` to stop a loop, `ctx.session.synthetic({ sessionID,
 *   text })` for the note that says why, `ctx.session.get({ sessionID })` for the title;
 * - `ctx.session.hook("compaction")`: the ledger of completed calls (the V1 guard's prevention,
 *   guard/ledger.ts) pushed as a system part of the summary request;
 *   `ctx.session.hook("context")`: on the first primary request after an automatic
 *   compaction, the note that the turn goes on after a compaction and what already completed.
 *
 * Logs go to standard error, one line each, starting `compaction-guard` (the 2.x context offers
 * no log domain). Settings are the V1 plugin's (config/settings.ts): the settings files, then
 * `ctx.options`, then the `OPENCODE_COMPACTION_GUARD_*` variables. Any failure is one warn line and opencode's own
 * behaviour. Every part of the context may be missing: stopping loops needs `event.subscribe`
 * and `session.interrupt` (observe mode only the first), prevention `event.subscribe` and
 * `session.hook`; a feature whose part is missing is off, with one warn line naming it, and
 * `setup` never throws.
 */
import { loadSettingsFiles } from "../../config/file.js";
import { resolveSettings } from "../../config/settings.js";
import { historyLimit } from "../../judge/verdict.js";
import { v2Event } from "../../hosts/opencode/v2.js";
import { reason, titleOf, type Log } from "../../guard/host.js";
import { startupLines } from "../../guard/notices.js";
import { continueNoteBefore, summaryLedger } from "../../guard/prevention.js";
import { terminalSafe } from "../../redact/terminal-safe.js";
import { isRecord } from "../../shared/record.js";
import { createSessionRecords } from "../session-records.js";
import { v2MessagesOf, v2Timeline } from "../timelines.js";
import { createV2Guard } from "./v2-guard.js";
import { createOutcome } from "../../guard/outcome.js";
import { OPENCODE_V2_WORDS } from "../../hosts/opencode/words.js";

/**
 * What of the 2.x plugin context the guard uses (`packages/plugin/src/promise/plugin.ts`
 * `Context`). Every part is optional: a host may lack some (the npm 2.0 preview hands plugins
 * no `session` nor `event`), and each feature needing a missing part is left off.
 */
export interface V2PluginContext {
  readonly options?: unknown;
  readonly event?: { subscribe?(): AsyncIterable<unknown> };
  readonly session?: {
    interrupt?(input: { sessionID: string }): Promise<unknown>;
    synthetic?(input: { sessionID: string; text: string }): Promise<unknown>;
    get?(input: { sessionID: string }): Promise<unknown>;
    hook?(
      name: "compaction" | "context",
      callback: (input: V2SessionRequest) => Promise<void> | void,
    ): Promise<{ dispose(): Promise<void> }>;
  };
}

/** The part of a 2.x `SessionCompaction` / `SessionContext` the guard reads and extends. */
export interface V2SessionRequest {
  readonly sessionID: string;
  readonly kind?: string;
  system: Array<{ type: "text"; text: string }>;
}

/** The 2.x plugin module shape (`define({ id, setup })`). */
export interface V2Plugin {
  readonly id: string;
  readonly setup: (ctx: V2PluginContext) => Promise<(() => Promise<void>) | void>;
}

/** Event kinds (without their `session.next.` prefix) the message rebuild reads; the rest is not kept. */
const KEPT = new Set([
  "prompted",
  "prompt.admitted",
  "input.admitted",
  "input.promoted",
  "synthetic",
  "shell.started",
  "step.started",
  "step.ended",
  "step.failed",
  "text.ended",
  "reasoning.ended",
  "tool.input.started",
  "tool.called",
  "tool.success",
  "tool.failed",
  "compaction.ended",
]);

/**
 * Sessions kept at once (the least recently active, by the events kept, are dropped first).
 * With at most {@link EVENTS_PER_MESSAGE} × the history limit events each (a tool result is at
 * most opencode's 50 KB), memory stays bounded.
 */
const MAX_SESSIONS = 10;
/** Events kept per message of the history limit: a step is about six (start, tool input, call, result, end). */
const EVENTS_PER_MESSAGE = 6;

/** What the 2.x entry keeps of one session. */
interface V2SessionRecord {
  /** The kept events, oldest first (bounded: the messages of the history limit plus their steps' events). */
  readonly events: unknown[];
  /** The next primary request follows an automatic compaction (the context hook's note). */
  afterCompaction: boolean;
}

/**
 * Builds the 2.x plugin.
 * A stop writes what the V1 plugin writes (../../guard/outcome.ts): under `opencode run` the
 * line `compaction-guard: stopped <session> (<rule>)` on standard error, and with `statusFile`
 * the status JSON (a relative path from the working directory).
 * @param deps test seams: the environment (default `process.env`), where lines go
 *   (default standard error), the folder the project's settings file and a relative status
 *   file are found from (default the working directory), and whether this is `opencode run`
 *   (default: as the V1 plugin tells, from this process's command line).
 */
export function createV2Plugin(
  deps: { env?: Readonly<Record<string, string | undefined>>; write?: (line: string) => void; cwd?: string; headless?: boolean } = {},
): V2Plugin {
  const write = deps.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const log: Log = async (level, message, extra) => {
    try {
      write(`${level.toUpperCase()} ${terminalSafe(message)}${extra ? ` ${terminalSafe(JSON.stringify(extra))}` : ""}`);
    } catch {
      // Nowhere left to report to.
    }
  };

  const setup = async (context: V2PluginContext | undefined): Promise<(() => Promise<void>) | void> => {
    const ctx: V2PluginContext = isRecord(context) ? context : {};
    const env = deps.env ?? process.env;
    // The 2.x context names no directory: the project's settings file is found from the working directory.
    const resolved = resolveSettings(ctx.options, env, { files: loadSettingsFiles(env, deps.cwd ?? process.cwd()) });
    const { settings } = resolved;
    for (const line of startupLines(resolved, env, "OpenCode 2.x entry", 1, OPENCODE_V2_WORDS)) await log(line.level, line.message);
    if (!settings.enabled) return;
    const maxEvents = EVENTS_PER_MESSAGE * historyLimit(settings);
    const sessions = createSessionRecords<V2SessionRecord>(MAX_SESSIONS, () => ({ events: [], afterCompaction: false }));

    // What the host offers; each feature that needs a missing part is off, said once.
    const session = isRecord(ctx.session) ? ctx.session : undefined;
    const fn = <K extends string>(owner: unknown, name: K): boolean => isRecord(owner) && typeof owner[name] === "function";
    const canWatch = fn(ctx.event, "subscribe");
    const canInterrupt = fn(session, "interrupt");
    const canHook = fn(session, "hook");
    const missing = (parts: string[], what: string) =>
      log("warn", `compaction-guard: this host's plugin context has no ${parts.join(" nor ")}: ${what}`);
    if (!canWatch || !canInterrupt) {
      await missing(
        [...(canWatch ? [] : ["event.subscribe"]), ...(canInterrupt ? [] : [session ? "session.interrupt" : "session"])],
        "loops in its sessions are not stopped; opencode behaves as without the guard there",
      );
    }
    if (settings.prevent && (!canWatch || !canHook)) {
      await missing(
        [...(canWatch ? [] : ["event.subscribe"]), ...(canHook ? [] : [session ? "session.hook" : "session"])],
        "no ledger for the summary and no note after a compaction (prevention off)",
      );
    }
    if (!canWatch) return;

    const eventsOf = (sessionID: string) => sessions.find(sessionID)?.events ?? [];
    const messagesOf = (sessionID: string) => v2MessagesOf(eventsOf(sessionID));
    const outcome = createOutcome({
      settings,
      directory: deps.cwd ?? process.cwd(),
      log,
      ...(deps.headless === undefined ? {} : { headless: deps.headless }),
      writeErr: write,
    });
    const guard = createV2Guard({
      settings,
      readMessages: async (sessionID, count) => messagesOf(sessionID).slice(-count),
      host: {
        log,
        words: OPENCODE_V2_WORDS,
        halt: async (sessionID) => {
          await session!.interrupt!({ sessionID });
        },
        stopped: outcome.stopped,
        readTitle: fn(session, "get")
          ? async (sessionID) => {
              const info = await session!.get!({ sessionID });
              return titleOf(isRecord(info) && isRecord(info.data) ? info.data : info);
            }
          : undefined,
        note: fn(session, "synthetic")
          ? async (sessionID, text) => {
              await session!.synthetic!({ sessionID, text });
            }
          : undefined,
      },
    });
    /** Compactions whose `compaction.ended` names no message (later 2.x builds): numbered here. */
    let unnamed = 0;

    /** Keeps one event of the session, which is now the most recently active. */
    const keep = (sessionID: string, event: unknown): V2SessionRecord => {
      const record = sessions.use(sessionID);
      const { events } = record;
      events.push(event);
      if (events.length > maxEvents) events.splice(0, events.length - maxEvents);
      return record;
    };

    let iterator: AsyncIterator<unknown> | undefined;
    void (async () => {
      try {
        iterator = ctx.event!.subscribe!()[Symbol.asyncIterator]();
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
          let event: unknown = next.value;
          const parsed = v2Event(event);
          const sessionID = parsed?.data.sessionID;
          if (!parsed || typeof sessionID !== "string") continue;
          if (parsed.kind === "deleted") sessions.forget(sessionID);
          if (!KEPT.has(parsed.kind)) continue;
          let messageID = parsed.data.messageID;
          if (parsed.kind === "compaction.ended" && typeof messageID !== "string") {
            // 2.x's `session.compaction.ended` is `{ sessionID, reason, text, recent }`: the
            // compaction is named by its event's id (`evt_…`), else by its number here.
            const id = isRecord(event) ? event.id : undefined;
            messageID = typeof id === "string" && id !== "" ? id : `compaction-${++unnamed}`;
            event = { type: (event as { type: string }).type, data: { ...parsed.data, messageID } };
          }
          const record = keep(sessionID, event);
          if (parsed.kind === "compaction.ended" && parsed.data.reason === "auto" && typeof messageID === "string") {
            record.afterCompaction = true;
            if (canInterrupt || settings.mode === "observe") await guard.compacted(sessionID, messageID);
          }
        }
      } catch (error) {
        await log("warn", `compaction-guard stopped watching events; V2 sessions go unguarded: ${reason(error)}`);
      }
    })();

    /** The calls completed since the user last spoke, from the kept events (all of the session's, unless some were dropped). */
    const timelineOf = (sessionID: string) => {
      const timeline = v2Timeline(messagesOf(sessionID));
      return { timeline, end: timeline.entries.length, lookBack: { wholeSession: eventsOf(sessionID).length < maxEvents } };
    };
    const registrations: Array<{ dispose(): Promise<void> }> = [];
    if (settings.prevent && canHook) {
      const hook = session!.hook!.bind(session);
      try {
        registrations.push(
          await hook("compaction", (request) => {
            try {
              // No continue turn follows a V2 compaction: the ledger says only what completed.
              if (!Array.isArray(request?.system)) return;
              const { timeline, end, lookBack } = timelineOf(request.sessionID);
              const text = summaryLedger(timeline, end, false, lookBack);
              if (text !== null) request.system.push({ type: "text", text });
            } catch (error) {
              void log("warn", `compaction-guard could not write its ledger for V2 session ${request?.sessionID}: ${reason(error)}`);
            }
          }),
          await hook("context", (request) => {
            try {
              // Builds whose context request names no kind call this hook for the agent's requests only.
              const primary = request?.kind === "primary" || (isRecord(request) && request.kind === undefined);
              const record = primary ? sessions.find(request.sessionID) : undefined;
              if (!record?.afterCompaction) return;
              record.afterCompaction = false;
              const { timeline, end, lookBack } = timelineOf(request.sessionID);
              if (Array.isArray(request.system)) request.system.push({ type: "text", text: continueNoteBefore(timeline, end, lookBack) });
            } catch (error) {
              void log("warn", `compaction-guard could not add its note for V2 session ${request?.sessionID}: ${reason(error)}`);
            }
          }),
        );
      } catch (error) {
        await log("warn", `compaction-guard could not register its prevention hooks: ${reason(error)}`);
      }
    }

    return async () => {
      try {
        await iterator?.return?.();
      } catch {
        // Shutting down: nowhere left to report to.
      }
      for (const registration of registrations) {
        try {
          await (isRecord(registration) && typeof registration.dispose === "function" ? registration.dispose() : undefined);
        } catch {
          // Shutting down: nowhere left to report to.
        }
      }
    };
  };
  return { id: "compaction-guard", setup };
}

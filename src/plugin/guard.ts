/**
 * The opencode glue: wires `experimental.compaction.autocontinue` to the pure decision in
 * ../decide/verdict.ts and tells the user when it denies, and (with `prevent`) adds the
 * prevention hooks of ./prevent.ts.
 *
 * opencode calls the hook once per automatic compaction, after the summary finished and
 * just before it would add the synthetic continue turn (session/compaction.ts, 1.18.33).
 * A throw inside a hook becomes a defect in opencode's runtime, so every path is caught:
 * on any failure the guard logs one warning and leaves `output.enabled` as it was.
 */
import type { Hooks, Plugin, PluginInput } from "@opencode-ai/plugin";
import { reason, withTimeout, type Client, type Level } from "./calls.js";
import { buildTimeline } from "../decide/history.js";
import { allowLogMessage, denialLogMessage, denialRecord, denialToast, observedLogMessage, observedToast, sessionLabel } from "./notice.js";
import { terminalSafe } from "../redact/terminal-safe.js";
import { describeSettings, resolveSettings, SETTINGS } from "../decide/settings.js";
import { VERSION } from "../shared/version.js";
import { decide, findDecisionPoint, historyLimit } from "../decide/verdict.js";
import { createPrevention } from "./prevent.js";
import { createStopNotes } from "./stop-note.js";
import { createToolLoopHooks } from "./tool-loop.js";
import { createV2Runner } from "./v2-runner.js";
import { createBackoff, type BackoffDeps } from "./backoff.js";
import { createGuardCommand } from "./command.js";
import { switchedOffLogMessage } from "./guard-command.js";

/** The `service` of every log line the guard writes (`client.app.log`). */
export const SERVICE = "compaction-guard";

/** How long the hook waits for `session.messages` before falling back to opencode's behaviour, ms. */
export const MESSAGES_TIMEOUT_MS = 5_000;
/** How long the ledger hook (before a summary request) waits for `session.messages` before leaving opencode's prompt as it was, ms. */
export const PREVENT_READ_TIMEOUT_MS = 2_000;
/**
 * How long a per-step read (the tool-time check after a tool call, the continue-note rewrite
 * before a model request) waits for `session.messages`, ms; past it the guard backs off
 * (./backoff.ts).
 */
export const STEP_TIMEOUT_MS = 2_000;
/** How long the hook waits for a toast or a log call before moving on, ms. */
export const NOTIFY_TIMEOUT_MS = 1_000;

type AutocontinueHook = NonNullable<Hooks["experimental.compaction.autocontinue"]>;
type EventHook = NonNullable<Hooks["event"]>;

/** The session an event says went idle (`session.status` idle, or `session.idle`), else undefined. */
function idleSession(event: unknown): string | undefined {
  const e = event as { type?: unknown; properties?: { sessionID?: unknown; status?: { type?: unknown } } } | null | undefined;
  const idle = e?.type === "session.idle" || (e?.type === "session.status" && e.properties?.status?.type === "idle");
  const sessionID = e?.properties?.sessionID;
  return idle && typeof sessionID === "string" ? sessionID : undefined;
}
/** The session an event says was deleted (`session.deleted`), else undefined. */
function deletedSession(event: unknown): string | undefined {
  const e = event as { type?: unknown; properties?: { info?: { id?: unknown }; sessionID?: unknown } } | null | undefined;
  if (e?.type !== "session.deleted") return undefined;
  const id = e.properties?.info?.id ?? e.properties?.sessionID;
  return typeof id === "string" ? id : undefined;
}

/** Test seams: everything the guard takes from its surroundings. */
export interface GuardDeps {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Shared by every copy of the guard in one opencode process (the plugin listed twice, say
   * by npm name and as a file): the compactions already decided, so that each is decided and
   * announced once. `server` passes one registry for the whole process; a guard made without
   * one decides alone.
   */
  readonly registry?: DecisionRegistry;
  /**
   * Which copy of the guard runs each per-step hook (see {@link HookOwners}); default the
   * registry's. A guard made with neither acts alone.
   */
  readonly owners?: HookOwners;
  readonly messagesTimeoutMs?: number;
  readonly notifyTimeoutMs?: number;
  /** How long the ledger hook waits for `session.messages`, ms (default {@link PREVENT_READ_TIMEOUT_MS}). */
  readonly preventTimeoutMs?: number;
  /** How long a per-step read waits, ms (default {@link STEP_TIMEOUT_MS}). */
  readonly stepTimeoutMs?: number;
  /** The back-off's clock and waits (./backoff.ts). */
  readonly backoff?: Pick<BackoffDeps, "now" | "firstDelayMs" | "maxDelayMs">;
  /** The `fetch` the V2 runner reaches opencode's V2 API with (default: the global one). */
  readonly fetch?: typeof fetch;
}

/**
 * Which copy of the guard runs each kind of per-step hook, when the plugin is loaded more than
 * once in one process (`opencode.json` naming both the clone folder and `dist/index.js`, or a
 * global and a project config). opencode calls every copy's hooks in turn on the same
 * `output`: without this, each copy appends its tool-loop notice and writes its lines. The
 * first copy to join a kind owns it; the others defer to it, and one takes over when the owner
 * leaves (its `dispose`). Kinds: `tool-loop` (both tool hooks: the refusal needs the state the
 * notice hook keeps), `prevention` (the ledger and the continue-note rewrite).
 */
export class HookOwners {
  private readonly owners = new Map<string, object>();

  /** `copy` joins `kind`: it owns it unless another copy does. */
  join(kind: string, copy: object): void {
    if (!this.owners.has(kind)) this.owners.set(kind, copy);
  }

  /** True when `copy` owns `kind`; a kind without an owner (its owner left) is taken by `copy`. */
  owns(kind: string, copy: object): boolean {
    const owner = this.owners.get(kind);
    if (owner === undefined) this.owners.set(kind, copy);
    return owner === undefined || owner === copy;
  }

  /** `copy` leaves every kind it owns. */
  leave(copy: object): void {
    for (const [kind, owner] of [...this.owners]) if (owner === copy) this.owners.delete(kind);
  }
}

/** Compactions already claimed by a copy of the guard, by session and message id; bounded. */
export class DecisionRegistry {
  private readonly claimed = new Set<string>();
  /** How many copies of the guard were made with this registry. */
  copies = 0;
  /** The per-step hooks' owners among the copies made with this registry. */
  readonly owners = new HookOwners();

  /** True the first time a compaction is claimed, false after. Keeps the newest 1,000. */
  claim(sessionID: string, messageID: string): boolean {
    const key = `${sessionID}\u0000${messageID}`;
    if (this.claimed.has(key)) return false;
    this.claimed.add(key);
    if (this.claimed.size > 1_000) this.claimed.delete(this.claimed.values().next().value!);
    return true;
  }
}

/** The registry of this process, shared by every copy `server` makes (a global, so two bundles share it too). */
const PROCESS_REGISTRY: DecisionRegistry = ((globalThis as Record<symbol, unknown>)[Symbol.for("opencode-compaction-guard.registry")] ??=
  new DecisionRegistry()) as DecisionRegistry;
/**
 * The hook owners of this process, under their own global key: a registry made by an older
 * bundle, which had none, still shares its claims while the owners are shared here.
 */
const PROCESS_OWNERS: HookOwners = (() => {
  const globals = globalThis as Record<symbol, unknown>;
  const key = Symbol.for("opencode-compaction-guard.hook-owners");
  const found = globals[key] as Partial<HookOwners> | undefined;
  if (typeof found?.join === "function" && typeof found.owns === "function" && typeof found.leave === "function") {
    return found as HookOwners;
  }
  return (globals[key] = new HookOwners()) as HookOwners;
})();

/** Milliseconds since `started` (a `performance.now()` reading), to 0.01 ms. */
const elapsedSince = (started: number): number => Math.round((performance.now() - started) * 100) / 100;

/**
 * Builds the hooks for one opencode instance. Settings are resolved once; each ignored
 * setting is logged once as a warning. Per-session state: the stop notes waiting for their
 * session to go idle, and the tool-loop check's (plugin/tool-loop.ts), both bounded.
 *
 * @param input opencode's PluginInput (`client`, and `directory` for previews of file paths).
 * @param options the object of the plugin's `opencode.json` tuple entry, or undefined.
 * @param deps test seams: the environment (default `process.env`) and the timeouts (ms).
 * @returns the hooks: `experimental.compaction.autocontinue`, `event`, `dispose`, and with
 *   `prevent` the two of ./prevent.ts; none when disabled. Never throws.
 */
export function createGuard(
  input: Pick<PluginInput, "client"> & Partial<Pick<PluginInput, "directory" | "serverUrl">>,
  options: unknown,
  deps: GuardDeps = {},
): Hooks {
  const client: Client = input.client;
  /** The project directory opencode runs in: previews show file paths relative to it. */
  const directory = typeof input.directory === "string" ? input.directory : undefined;
  const resolved = resolveSettings(options, deps.env ?? process.env);
  const { settings, problems } = resolved;
  const registry = deps.registry;
  const copy = registry ? ++registry.copies : 1;
  const owners = deps.owners ?? registry?.owners;
  /** This copy, as {@link HookOwners} knows it. */
  const self = {};
  const notifyTimeoutMs = deps.notifyTimeoutMs ?? NOTIFY_TIMEOUT_MS;
  const messagesTimeoutMs = deps.messagesTimeoutMs ?? MESSAGES_TIMEOUT_MS;

  /**
   * Runs one call to the TUI or the log: never throws (not even when `client.tui` or
   * `client.app` is missing, or the call throws before returning a promise) and never waits
   * longer than notifyTimeoutMs.
   */
  const quietly = async (what: string, call: () => unknown): Promise<void> => {
    try {
      await withTimeout(Promise.resolve(call()), notifyTimeoutMs, what);
    } catch {
      // Nowhere left to report to.
    }
  };
  /**
   * Writes one log line. What it names from the session (its id and title, tool names, path
   * previews, message ids in `extra`) is made terminal-safe here: the log is read in a terminal.
   */
  const log = (level: Level, message: string, extra?: Record<string, unknown>): Promise<void> => {
    const safeExtra = extra && Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, typeof v === "string" ? terminalSafe(v) : v]));
    return quietly("client.app.log", () =>
      client.app.log({ body: { service: SERVICE, level, message: terminalSafe(message), ...(safeExtra ? { extra: safeExtra } : {}) } }),
    );
  };
  /** Shows one toast, its title and message made terminal-safe (they name the session, its title, tools and paths). */
  const toast = (body: { title: string; message: string; variant: "warning" | "info" }): Promise<void> =>
    quietly("tui.showToast", () =>
      client.tui.showToast({ body: { ...body, title: terminalSafe(body.title), message: terminalSafe(body.message) } }),
    );

  for (const problem of problems) void log("warn", `compaction-guard: setting ignored: ${problem}`);
  if (!settings.enabled) {
    const by =
      resolved.sources.enabled === "env"
        ? `${SETTINGS.enabled.env}=${(deps.env ?? process.env)[SETTINGS.enabled.env]}`
        : "the plugin option enabled: false";
    void log("info", `compaction-guard ${VERSION} is disabled by ${by}; opencode behaves as without it`);
    return {};
  }
  void log(
    "info",
    `compaction-guard ${VERSION} loaded: ${describeSettings(resolved)}` +
      (copy > 1 ? ` (copy ${copy} in this opencode: each compaction is decided once, each notice written once)` : ""),
  );

  const limit = historyLimit(settings);

  /** The last `compaction.reserved` read (tokens; undefined = unset), kept for when a read fails. */
  let lastReserved: number | undefined;
  /**
   * opencode's `compaction.reserved` (tokens), read through the client's `config.get` at each
   * decision, in parallel with the messages, waiting at most notifyTimeoutMs; when the read
   * fails or is slow, the last value read (else opencode's default) applies. Never rejects.
   */
  const readReserved = async (): Promise<number | undefined> => {
    try {
      if (typeof client.config?.get !== "function") return lastReserved;
      const response = await withTimeout(Promise.resolve(client.config.get()), notifyTimeoutMs, "config.get");
      const data = (response as { data?: { compaction?: { reserved?: unknown } } } | undefined)?.data;
      if (data === undefined || data === null) return lastReserved;
      const value = data.compaction?.reserved;
      lastReserved = typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
      return lastReserved;
    } catch {
      return lastReserved;
    }
  };

  /**
   * The session's title and whether it is a subagent's (it has a parent), read with
   * `session.get` in notifyTimeoutMs; both unknown (undefined, false) when it cannot be read.
   * Never rejects.
   */
  const readSession = async (sessionID: string): Promise<{ title: string | undefined; subagent: boolean }> => {
    try {
      if (typeof client.session?.get !== "function") return { title: undefined, subagent: false };
      const response = await withTimeout(Promise.resolve(client.session.get({ path: { id: sessionID } })), notifyTimeoutMs, "session.get");
      const data = (response as { data?: { title?: unknown; parentID?: unknown } } | undefined)?.data;
      const title = typeof data?.title === "string" && data.title.trim() !== "" ? data.title : undefined;
      return { title, subagent: typeof data?.parentID === "string" && data.parentID !== "" };
    } catch {
      return { title: undefined, subagent: false };
    }
  };

  const notes = createStopNotes(client, log, notifyTimeoutMs);

  /** V2 sessions (opencode serve's V2 session runner), watched through their `session.next.*` events. */
  const v2 = createV2Runner({
    settings,
    serverUrl: input.serverUrl,
    directory,
    timeoutMs: messagesTimeoutMs,
    log,
    toast,
    claim: registry ? (sessionID, messageID) => registry.claim(sessionID, messageID) : undefined,
    reason,
    fetch: deps.fetch,
  });

  /**
   * When a session with a note waiting goes idle, writes the note (once); a deleted session's
   * state is dropped; an automatic V2 compaction is decided (./v2-runner.ts). Never rejects.
   */
  const event: EventHook = async (input) => {
    // Both start at once: the V1 part registers a note being written before it first waits.
    await Promise.all([v2.event(input?.event), v1Event(input)]);
  };
  const v1Event: EventHook = async (input) => {
    const deleted = deletedSession(input?.event);
    if (deleted !== undefined) toolLoop.sessionDeleted(deleted);
    const sessionID = idleSession(input?.event);
    if (sessionID === undefined) return;
    toolLoop.sessionIdle(sessionID);
    await notes.sessionIdle(sessionID);
  };

  /**
   * The newest `count` messages of a session, oldest first (`client.session.messages` with
   * `query.limit`), within `timeoutMs`. Throws one line when the call fails, times out or
   * returns no message list; every caller turns that into a warn line and opencode's behaviour.
   */
  const readMessages = async (sessionID: string, count: number, timeoutMs: number): Promise<unknown[]> => {
    const response = await withTimeout(
      Promise.resolve(client.session.messages({ path: { id: sessionID }, query: { limit: count } })),
      timeoutMs,
      "session.messages",
    );
    const data: unknown = (response as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(data)) {
      const error = (response as { error?: unknown } | undefined)?.error;
      throw new Error(`session.messages returned no message list${error ? ` (${reason(JSON.stringify(error))})` : ""}`);
    }
    return data;
  };

  const stepTimeoutMs = deps.stepTimeoutMs ?? STEP_TIMEOUT_MS;
  /** The back-off of the per-step reads (./backoff.ts), shared by every session of this guard. */
  const backoff = createBackoff({ log, reason, ...deps.backoff });
  /** A per-step read: the newest `count` messages, or undefined when this step reads nothing (backed off). Never rejects. */
  const readForStep = (sessionID: string, count: number): Promise<unknown[] | undefined> =>
    backoff.step(sessionID, () => readMessages(sessionID, count, stepTimeoutMs));
  /** `/guard` and the per-session switch (./command.ts). */
  const command = createGuardCommand({
    client,
    resolved,
    directory,
    log,
    limit,
    timeoutMs: messagesTimeoutMs,
    reserved: readReserved,
    backoff,
    stepTimeoutMs,
  });

  /** The tool-loop check's hooks (plugin/tool-loop.ts): they share this guard's log, timeouts and notes. */
  const toolLoop = createToolLoopHooks({
    settings,
    directory,
    messages: readForStep,
    abort: async (sessionID) => {
      const result = await withTimeout(
        Promise.resolve(client.session.abort({ path: { id: sessionID } })),
        notifyTimeoutMs,
        "session.abort",
      );
      const error = (result as { error?: unknown } | undefined)?.error;
      if (error !== undefined && error !== null) throw new Error(`session.abort failed (${JSON.stringify(error)})`);
    },
    log,
    noteWhenIdle: (sessionID, text) =>
      notes.leaveWhenIdle(sessionID, {
        kind: "tool-loop",
        text,
        compactionID: "",
        rule: null,
        agent: undefined,
        model: undefined,
        variant: undefined,
      }),
    reason,
  });

  const autocontinue: AutocontinueHook = async (hookInput, output) => {
    const started = performance.now();
    const sessionID = typeof hookInput?.sessionID === "string" ? hookInput.sessionID : "unknown";
    try {
      if (output?.enabled === false) return; // another plugin already denied it
      // Another copy of the guard decides this compaction (it runs first, on the same output).
      if (registry && !registry.claim(sessionID, String(hookInput?.message?.id ?? ""))) return;
      const reserved = readReserved();
      const sessionInfo = readSession(sessionID);
      const data = await readMessages(sessionID, limit, messagesTimeoutMs);
      const switched = await command.modeOf(sessionID, data, data.length < limit);
      if (switched === "off") return void (await log("info", switchedOffLogMessage(sessionID), { sessionID }));
      const timeline = buildTimeline(data);
      const point = findDecisionPoint(timeline, hookInput?.message?.id);
      if (!point) throw new Error(`no automatic compaction among the ${data.length} newest messages`);

      const { title, subagent } = await sessionInfo;
      const verdict = decide(timeline, point, settings, {
        limits: hookInput?.model?.limit,
        reserved: await reserved,
        directory,
        subagent,
        // Fewer messages than asked for: the whole session, from its first message (cannot-make-room).
        wholeSession: data.length < limit,
      });
      // With fewer messages than asked for, the view starts at the session's beginning and
      // the compaction's index among the session's automatic compactions is known.
      const index = data.length < limit ? verdict.compaction.index : null;
      const extra = {
        sessionID,
        compaction: index,
        messageID: verdict.compaction.messageID,
        decision: verdict.decision,
        rule: verdict.rule,
        elapsedMs: elapsedSince(started),
      };
      if (verdict.decision === "allow") {
        if (settings.notify !== "off") await log("info", allowLogMessage(sessionID, verdict, index), extra);
        return;
      }
      const observe = switched ? switched === "observe" : settings.mode === "observe";
      if (!observe) output.enabled = false;
      if (settings.notify === "off") return;
      const session = sessionLabel(sessionID, title);
      if (observe) {
        if (settings.notify === "toast" && verdict.severity === "warning") {
          await toast(observedToast(verdict, sessionID, title));
        }
        await log(verdict.severity === "info" ? "info" : "warn", observedLogMessage(session, verdict, index), {
          ...extra,
          mode: "observe",
        });
        return;
      }
      if (verdict.severity === "info") {
        // Housekeeping (the turn had finished): an info line, never a "loop stopped" alarm.
        await log("info", denialLogMessage(session, verdict, index), extra);
        return;
      }
      if (settings.notify === "toast") await toast(denialToast(verdict, sessionID, title));
      await log("warn", denialLogMessage(session, verdict, index), extra);
      // The toast is gone in seconds: leave the reason in the session too. Not now: right
      // after this hook opencode reads the history again, and answers a user message added
      // now as a new turn (checked in 1.18.33: the loop goes on). The note is written when
      // the session goes idle (the `event` hook).
      const message = hookInput?.message as
        | { agent?: unknown; model?: { providerID?: unknown; modelID?: unknown; variant?: unknown } }
        | undefined;
      const model = message?.model;
      notes.leaveWhenIdle(sessionID, {
        kind: "compaction",
        text: denialRecord(session, verdict, index),
        compactionID: verdict.compaction.messageID,
        rule: verdict.rule,
        agent: typeof message?.agent === "string" ? message.agent : undefined,
        model:
          typeof model?.providerID === "string" && typeof model.modelID === "string"
            ? { providerID: model.providerID, modelID: model.modelID }
            : undefined,
        variant: typeof model?.variant === "string" ? model.variant : undefined,
      });
    } catch (error) {
      await log("warn", `compaction-guard could not decide for session ${sessionID}; auto-continue left to opencode: ${reason(error)}`, {
        sessionID,
        elapsedMs: elapsedSince(started),
      });
    }
  };

  const preventTimeoutMs = deps.preventTimeoutMs ?? PREVENT_READ_TIMEOUT_MS;
  const prevention = settings.prevent
    ? createPrevention({
        limit,
        directory,
        readMessages: (sessionID) => readMessages(sessionID, limit, preventTimeoutMs),
        readForStep: (sessionID) => readForStep(sessionID, limit),
        warn: (message, error, sessionID) => log("warn", `${message}: ${reason(error)}`, { sessionID }),
      })
    : {};

  /**
   * `hook`, run only while this copy owns `kind` (see {@link HookOwners}); another copy's
   * turn is a no-op. Joins `kind` now, so that the first copy made owns it.
   */
  const owned = <A extends unknown[]>(kind: string, hook: (...args: A) => Promise<void>): ((...args: A) => Promise<void>) => {
    if (!owners) return hook;
    owners.join(kind, self);
    return async (...args: A) => {
      if (owners.owns(kind, self)) await hook(...args);
    };
  };
  const dispose = async (): Promise<void> => {
    owners?.leave(self);
    await notes.dispose();
  };

  const hooks: Hooks = { "experimental.compaction.autocontinue": autocontinue, event, dispose, config: command.config };
  hooks["command.execute.before"] = command.before;
  if (settings.prevent) {
    const compacting = prevention["experimental.session.compacting"];
    const transform = prevention["experimental.chat.messages.transform"];
    if (compacting) hooks["experimental.session.compacting"] = owned("prevention", compacting);
    if (transform) hooks["experimental.chat.messages.transform"] = owned("prevention", transform);
  }
  if (settings.toolLoop !== "off") {
    hooks["tool.execute.after"] = owned("tool-loop", command.unlessOff(toolLoop.after));
    if (settings.toolLoop === "stop") hooks["tool.execute.before"] = owned("tool-loop", command.unlessOff(toolLoop.before));
  }
  return hooks;
}

/** The plugin function opencode calls at start-up: `(input, options) => hooks`. */
export const server: Plugin = async (input, options) => createGuard(input, options, { registry: PROCESS_REGISTRY, owners: PROCESS_OWNERS });

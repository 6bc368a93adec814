/**
 * The V1 plugin (opencode 1.x): a table of hooks, each built from the guard's V1 host
 * (./v1-host.ts) and its settings. The hooks: `experimental.compaction.autocontinue`
 * (./autocontinue.ts), `event` (./events.ts, which also watches V2 sessions: ../opencode-v2/v2-runner.ts),
 * `dispose`, and with their settings prevention (./prevent.ts) and the tool-loop check
 * (./tool-loop.ts). Every hook catches everything: a throw inside a hook becomes a defect in
 * opencode's runtime.
 */
import type { Hooks, Plugin, PluginInput } from "@opencode-ai/plugin";
import { loadSettingsFiles } from "../../config/file.js";
import { resolveSettings } from "../../config/settings.js";
import { historyLimit } from "../../judge/verdict.js";
import { TimelineSteps } from "../../judge/view.js";
import { reason } from "../../guard/host.js";
import { startupLines } from "../../guard/notices.js";
import { createAutocontinueHandler } from "./autocontinue.js";
import { createBackoff, type BackoffDeps } from "./backoff.js";
import { createEventHandler } from "./events.js";
import { createLookups } from "./lookups.js";
import { createMirror, type DecisionRead } from "./mirror.js";
import { createSessionStore } from "./sessions.js";
import { v1Timeline } from "../timelines.js";
import { createOutcome } from "../../guard/outcome.js";
import { createPrevention } from "./prevent.js";
import { owned, PROCESS_OWNERS, PROCESS_REGISTRY, type DecisionRegistry, type HookOwners } from "./registry.js";
import { createStopNotes } from "./stop-note.js";
import { createToolLoopHooks } from "./tool-loop.js";
import { createV1Host } from "./v1-host.js";
import { createV2Runner } from "../opencode-v2/v2-runner.js";
import { createGuardCommand } from "./command.js";
import { createSwitchFile, switchFilePath } from "./switches.js";
import { OPENCODE_WORDS } from "../../hosts/opencode/words.js";

export { SERVICE } from "./v1-host.js";
export { DecisionRegistry, HookOwners } from "./registry.js";

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
/**
 * How long a per-step hook waits for the guard's first read of a session, ms. Past it the
 * step goes on without the read (the read goes on and is kept for the next step): a long
 * session is read once, at its first event, never inside a model request.
 */
export const FIRST_READ_BUDGET_MS = 10;
/** How long the hook waits for a toast or a log call before moving on, ms. */
export const NOTIFY_TIMEOUT_MS = 1_000;

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
  /** How long a per-step hook waits for the first read of a session, ms (default {@link FIRST_READ_BUDGET_MS}). */
  readonly firstReadBudgetMs?: number;
  /** The back-off's clock and waits (./backoff.ts). */
  readonly backoff?: Pick<BackoffDeps, "now" | "firstDelayMs" | "maxDelayMs">;
  /** The `fetch` the V2 runner reaches opencode's V2 API with (default: the global one). */
  readonly fetch?: typeof fetch;
  /** Is this `opencode run`? (default: from this process's pid and command line, ../../guard/outcome.ts `isHeadlessRun`). */
  readonly headless?: boolean;
  /** Where the headless stop line goes (default standard error). */
  readonly writeErr?: (line: string) => void;
}

/**
 * Builds the hooks for one opencode instance. Settings are resolved once (the settings files
 * of config/file.ts: the global one, and the project's found from `input.directory`); each ignored
 * setting is logged once as a warning. Per-session state lives in one store (./sessions.ts),
 * of this copy of the guard: bounded, and forgotten when the session is deleted.
 *
 * @param input opencode's PluginInput (`client`, `directory` for previews of file paths, and
 *   `serverUrl` for the watch over V2 sessions).
 * @param options the object of the plugin's `opencode.json` tuple entry, or undefined.
 * @param deps test seams: the environment (default `process.env`) and the timeouts (ms).
 * @returns the hooks: `experimental.compaction.autocontinue`, `event`, `dispose`, with
 *   `prevent` the two of ./prevent.ts, with `toolLoop` those of ./tool-loop.ts; none when
 *   disabled. Never throws.
 */
export function createGuard(
  input: Pick<PluginInput, "client"> & Partial<Pick<PluginInput, "directory" | "serverUrl">>,
  options: unknown,
  deps: GuardDeps = {},
): Hooks {
  /** The project directory opencode runs in: previews show file paths relative to it. */
  const directory = typeof input.directory === "string" ? input.directory : undefined;
  const env = deps.env ?? process.env;
  const resolved = resolveSettings(options, env, { files: loadSettingsFiles(env, directory) });
  const { settings } = resolved;
  const registry = deps.registry;
  const copy = registry ? ++registry.copies : 1;
  const owners = deps.owners ?? registry?.owners;
  /** This copy, as {@link HookOwners} knows it. */
  const self = {};
  const notifyTimeoutMs = deps.notifyTimeoutMs ?? NOTIFY_TIMEOUT_MS;
  const messagesTimeoutMs = deps.messagesTimeoutMs ?? MESSAGES_TIMEOUT_MS;
  const host = createV1Host(input.client, notifyTimeoutMs);
  const { log } = host;

  for (const line of startupLines(resolved, env, undefined, copy, OPENCODE_WORDS)) void log(line.level, line.message);
  if (!settings.enabled) return {};

  const limit = historyLimit(settings);
  const stepTimeoutMs = deps.stepTimeoutMs ?? STEP_TIMEOUT_MS;
  /** The back-off of the per-step reads (./backoff.ts), shared by every session of this guard. */
  const backoff = createBackoff({ log, reason, ...deps.backoff });
  /** Everything this guard keeps per session, one record each (./sessions.ts). */
  const sessions = createSessionStore();
  /** What this guard has read of each session, kept up to date from the `event` hook (./mirror.ts). */
  const mirror = createMirror(sessions);
  const firstReadBudgetMs = deps.firstReadBudgetMs ?? FIRST_READ_BUDGET_MS;
  /**
   * The first read of a session (its newest `count` messages, `limit` at least, kept by the
   * mirror), one at a time: a read under way is shared.
   */
  const firstRead = (sessionID: string, count = limit): Promise<unknown[] | undefined> => {
    const size = Math.max(limit, count);
    return (
      mirror.seeding(sessionID) ??
      mirror.seed(sessionID, size, () => backoff.step(sessionID, () => host.readMessages(sessionID, size, stepTimeoutMs)))
    );
  };
  /**
   * A per-step read: the newest `count` messages (at most `limit`), from the mirror when it
   * holds them, else from the session's first read when that ends within
   * {@link FIRST_READ_BUDGET_MS}; undefined when this step reads nothing (backed off, or the
   * first read is still under way: one info line per session). Never rejects.
   */
  const readForStep = async (sessionID: string, count: number): Promise<unknown[] | undefined> => {
    const kept = mirror.newest(sessionID, count);
    if (kept) return kept;
    const reading = firstRead(sessionID, count);
    const budget = new Promise<"late">((resolve) => setTimeout(resolve, firstReadBudgetMs, "late").unref?.());
    const data = await Promise.race([reading, budget]);
    if (data !== "late") return data === undefined ? undefined : (mirror.newest(sessionID, count) ?? data.slice(-count));
    // Said once per session, until the first read is done.
    const record = sessions.use(sessionID);
    if (!record.firstReadLate) {
      record.firstReadLate = true;
      const done = () => void (record.firstReadLate = undefined);
      reading.then(done, done);
      void log(
        "info",
        `compaction-guard: the first read of session ${sessionID} takes over ${firstReadBudgetMs} ms; steps go unchecked until it is done`,
        {
          sessionID,
        },
      );
    }
    return undefined;
  };
  /**
   * The newest `limit` messages for a decision at a compaction, and their timeline: the
   * mirror's when `current` finds in their timeline what the decision is about (events can
   * lag behind the store), else read (and kept). Rejects when the read fails.
   */
  const readForDecision = async (sessionID: string, current: Parameters<DecisionRead>[1], timeoutMs: number): ReturnType<DecisionRead> => {
    await mirror.seeding(sessionID)?.catch(() => undefined);
    const kept = mirror.newest(sessionID, limit);
    let timelineMs = 0;
    if (kept) {
      const building = performance.now();
      const timeline = v1Timeline(kept);
      timelineMs = performance.now() - building;
      if (current(timeline)) return { data: kept, timeline, from: "mirror", timelineMs };
    }
    const data = (await mirror.seed(sessionID, limit, () => host.readMessages(sessionID, limit, timeoutMs)))!;
    const building = performance.now();
    const timeline = v1Timeline(data);
    return { data, timeline, from: "opencode", timelineMs: timelineMs + performance.now() - building };
  };
  /**
   * The decision at the compaction whose message is `messageID`, judged ahead: the messages it
   * will read but the summary (the decision reads the newest `limit`, up to the summary that
   * opencode writes right after that message), with their newest steps judged.
   */
  const judgeAhead = (sessionID: string, messageID: string): TimelineSteps | undefined => {
    const kept = mirror.newest(sessionID, limit);
    const at = kept?.findIndex((message) => (message as { info?: { id?: unknown } }).info?.id === messageID) ?? -1;
    if (!kept || at === -1) return undefined;
    const steps = new TimelineSteps(v1Timeline(kept.slice(Math.max(0, at + 2 - limit), at + 1)));
    steps.judgeNewest(settings);
    return steps;
  };
  /** The decisions' look-ups, started when a compaction starts (./lookups.ts). */
  const lookups = createLookups(sessions, host, judgeAhead);
  const notes = createStopNotes(sessions, input.client, log, notifyTimeoutMs);
  /** What a script sees of a stop: the line under `opencode run`, the status file (../../guard/outcome.ts). */
  const outcome = createOutcome({ settings, directory, log, headless: deps.headless, writeErr: deps.writeErr });
  /** `/guard` and the per-session switch (./command.ts). */
  const command = createGuardCommand({
    client: input.client,
    sessions,
    switches: createSwitchFile(switchFilePath(env)),
    readMessages: host.readMessages,
    resolved,
    directory,
    log,
    timeoutMs: messagesTimeoutMs,
    reserved: host.readReserved,
    backoff,
    stepTimeoutMs,
    readRecent: (sessionID) => readForStep(sessionID, limit),
    firstRead: (sessionID) => firstRead(sessionID),
  });
  const toolLoop = createToolLoopHooks({
    settings,
    sessions,
    directory,
    messages: readForStep,
    abort: host.abort,
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
    stopped: outcome.stopped,
  });
  const preventTimeoutMs = deps.preventTimeoutMs ?? PREVENT_READ_TIMEOUT_MS;
  const prevention = createPrevention({
    sessions,
    limit,
    directory,
    readMessages: (sessionID, current) => readForDecision(sessionID, current, preventTimeoutMs),
    readForStep: (sessionID) => readForStep(sessionID, limit),
    warn: (message, error, sessionID) => log("warn", `${message}: ${reason(error)}`, { sessionID }),
  });
  /** V2 sessions (opencode serve's V2 session runner), watched through their `session.next.*` events. */
  const v2 = createV2Runner({
    settings,
    serverUrl: input.serverUrl,
    directory,
    timeoutMs: messagesTimeoutMs,
    log,
    toast: host.toast,
    claim: registry ? (sessionID, messageID) => registry.claim(sessionID, messageID) : undefined,
    fetch: deps.fetch,
    stopped: outcome.stopped,
  });

  // One copy of the guard reads a session at first sight; the others read only when they decide.
  owners?.join("first-read", self);
  const firstSight = (sessionID: string): void => {
    if (!owners || owners.owns("first-read", self)) command.firstSight(sessionID);
  };

  const hooks: Hooks = {
    "experimental.compaction.autocontinue": createAutocontinueHandler({
      settings,
      host,
      notes,
      directory,
      read: (sessionID, current) => readForDecision(sessionID, current, messagesTimeoutMs),
      lookups,
      registry,
      modeOf: command.modeOf,
      outcome,
    }),
    event: createEventHandler({ notes, toolLoop, sessions, v2, mirror, firstSight, compactionStarted: lookups.start }),
    dispose: async () => {
      owners?.leave(self);
      await notes.dispose();
    },
    config: command.config,
    "command.execute.before": command.before,
  };
  if (settings.prevent) {
    hooks["experimental.session.compacting"] = owned(owners, self, "prevention", prevention.compacting);
    hooks["experimental.chat.messages.transform"] = owned(owners, self, "prevention", prevention.transform);
  }
  if (settings.toolLoop !== "off") {
    hooks["tool.execute.after"] = owned(owners, self, "tool-loop", command.unlessOff(toolLoop.after));
    if (settings.toolLoop === "stop") hooks["tool.execute.before"] = owned(owners, self, "tool-loop", command.unlessOff(toolLoop.before));
  }
  return hooks;
}

/** The plugin function opencode calls at start-up: `(input, options) => hooks`. */
export const server: Plugin = async (input, options) => createGuard(input, options, { registry: PROCESS_REGISTRY, owners: PROCESS_OWNERS });

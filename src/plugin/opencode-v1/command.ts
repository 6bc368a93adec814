/**
 * The `/guard` command, opencode glue (the text and the switch are ./guard-command.ts).
 *
 * opencode 1.x (checked in 1.14.34 and 1.18.33, session/prompt.ts `command`): the `config`
 * hook adds `guard` to `config.command`, which lists it in the TUI; running it calls
 * `command.execute.before` before the command's prompt is created. The guard answers there:
 * it writes its answer as a user message added with `noReply` holding one `ignored: true`
 * text part (the TUI shows it; opencode never sends it to a model; no turn starts), then
 * throws, which ends the command before opencode creates the prompt: no model request, no
 * message the model reads. opencode logs the throw as one ERROR line; `opencode run
 * --command guard` prints it and exits 1.
 *
 * `/guard stats` answers the same way, with the figures of every session of the project
 * (./stats.ts), read only then: one request for the session list, one per session for its
 * messages, one for the providers' limits.
 *
 * The switch (`/guard off|on|observe`) is written into the session's history and into the
 * switch file (./switches.ts), and kept in the session's record (./sessions.ts: a switch
 * outlives the record's eviction); the autocontinue and tool-time hooks ask
 * {@link GuardCommand.modeOf} before acting.
 */
import type { Hooks } from "@opencode-ai/plugin";
import { opencodeInputs } from "../../hosts/opencode/facts.js";
import { buildTimeline } from "../../hosts/opencode/v1.js";
import { replayTimeline } from "../../guard/replay.js";
import type { ResolvedSettings } from "../../config/settings.js";
import type { Backoff } from "./backoff.js";
import { reason, withTimeout, type Client, type Log } from "./calls.js";
import {
  findSwitch,
  GUARD_COMMAND,
  GUARD_COMMAND_DESCRIPTION,
  guardReport,
  parseGuardArguments,
  reportMetadata,
  switchLine,
  switchMetadata,
  usageLine,
  type SessionMode,
} from "./guard-command.js";
import { isRecord } from "../../shared/record.js";
import type { SwitchFile } from "./switches.js";
import { limitsTable, type LimitsTable } from "../../hosts/opencode/limits.js";
import { projectStats, statsText, statsUnreadableLine, type StatsStore } from "./stats.js";
import type { SessionRecord, SessionStore } from "./sessions.js";

/** What the thrown error says: opencode logs it, and `opencode run --command guard` prints it. */
export const ANSWERED = "compaction-guard answered /guard in the session itself (no model request)";

/** The most sessions `/guard stats` asks opencode to list (the newest first). */
export const STATS_MAX_LISTED = 10_000;

/** What the command takes from the guard (plugin/opencode-v1/guard.ts). */
export interface CommandDeps {
  readonly client: Client;
  /** The guard's per-session store: each session's switch is kept in its slot `mode` (./sessions.ts). */
  readonly sessions: SessionStore;
  /** Where each session's switch is kept, so that it is found without reading the whole session (./switches.ts). */
  readonly switches: SwitchFile;
  /** The guard's read of a session's messages (./v1-host.ts `readMessages`): the newest `count`, or all when undefined. */
  readonly readMessages: (sessionID: string, count: number | undefined, timeoutMs: number) => Promise<unknown[]>;
  readonly resolved: Pick<ResolvedSettings, "settings" | "sources">;
  readonly directory: string | undefined;
  readonly log: Log;
  /** How long each SDK call may take, ms. */
  readonly timeoutMs: number;
  /** opencode's `compaction.reserved` (tokens), as the guard reads it; never rejects. */
  readonly reserved: () => Promise<number | undefined>;
  /** The per-step back-off (./backoff.ts): the tool-time hooks read the switch through it, and not at all while backed off. */
  readonly backoff: Pick<Backoff, "step" | "backedOff">;
  /** How long a read for a tool-time hook may take, ms. */
  readonly stepTimeoutMs: number;
  /** The newest `limit` messages for a tool-time hook (the guard's per-step read: kept, else read through the back-off); undefined while backed off. */
  readonly readRecent: (sessionID: string) => Promise<unknown[] | undefined>;
  /** The guard's first read of a session (its newest `limit` messages, kept), awaited whole; undefined while backed off. Never rejects. */
  readonly firstRead: (sessionID: string) => Promise<unknown[] | undefined>;
}

/** The command's hooks and the switch the other hooks consult. */
export interface GuardCommand {
  readonly config: NonNullable<Hooks["config"]>;
  readonly before: NonNullable<Hooks["command.execute.before"]>;
  /**
   * The session's switch, or undefined when none was set (the settings apply). Read from
   * `newest` (the caller's bounded read, oldest first) when it holds one, else from the switch
   * file, once per session; kept (./sessions.ts: a switch outlives the record's eviction, a
   * look-up that found none is made again after it). Never rejects: a file that cannot be read
   * counts as no switch (kept too), with one warn line.
   */
  readonly modeOf: (sessionID: string, newest: readonly unknown[]) => Promise<SessionMode | undefined>;
  /**
   * `hook`, skipped in a session switched off. The switch is read as {@link modeOf} reads it,
   * through the per-step back-off: while backed off the hook runs (and reads nothing itself).
   */
  readonly unlessOff: <I extends { sessionID: string }, O>(
    hook: (input: I, output: O) => Promise<void>,
  ) => (input: I, output: O) => Promise<void>;
  /**
   * At a session's first event: its first read, and its switch (from that read or the switch
   * file), in the background. Returns at once; never rejects.
   */
  readonly firstSight: (sessionID: string) => void;
}

/** The agent, model and variant of the newest user message, so that the answer changes none of them for the session. */
function lastUserChoice(messages: readonly unknown[]): Record<string, unknown> {
  for (let i = messages.length - 1; i >= 0; i--) {
    const info = isRecord(messages[i]) ? (messages[i] as { info?: unknown }).info : undefined;
    if (!isRecord(info) || info.role !== "user") continue;
    const model = isRecord(info.model) ? info.model : undefined;
    return {
      ...(typeof info.agent === "string" ? { agent: info.agent } : {}),
      ...(typeof model?.providerID === "string" && typeof model.modelID === "string"
        ? { model: { providerID: model.providerID, modelID: model.modelID } }
        : {}),
      ...(typeof model?.variant === "string" ? { variant: model.variant } : {}),
    };
  }
  return {};
}

/** The limits (tokens) of the model of the newest assistant message, from opencode's provider list; undefined when unknown. */
async function modelLimits(client: Client, messages: readonly unknown[], timeoutMs: number) {
  const last = [...messages]
    .reverse()
    .find((m) => isRecord(m) && isRecord(m.info) && m.info.role === "assistant" && m.info.summary !== true);
  const info = (last as { info?: { providerID?: unknown; modelID?: unknown } } | undefined)?.info;
  if (typeof info?.providerID !== "string" || typeof info.modelID !== "string") return undefined;
  try {
    const response = await withTimeout(Promise.resolve(client.config.providers()), timeoutMs, "config.providers");
    const providers = (response as { data?: { providers?: unknown } } | undefined)?.data?.providers;
    const provider = Array.isArray(providers) ? providers.find((p) => isRecord(p) && p.id === info.providerID) : undefined;
    const limit = (provider as { models?: Record<string, { limit?: unknown }> } | undefined)?.models?.[info.modelID]?.limit;
    return isRecord(limit) && typeof limit.context === "number"
      ? (limit as { context: number; output: number; input?: number })
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Builds the command. Never throws into opencode but on purpose: `before` throws {@link ANSWERED}
 * after answering `/guard` (also when writing the answer failed: then a toast says why), so
 * that opencode sends nothing to the model; every other command passes untouched.
 */
export function createGuardCommand(deps: CommandDeps): GuardCommand {
  const { client, log, timeoutMs, sessions } = deps;
  /** The session's switch as known (null: none found), else undefined. */
  const known = (sessionID: string): SessionMode | null | undefined => sessions.find(sessionID)?.mode;
  const remember = (sessionID: string, mode: SessionMode | null): void => {
    sessions.use(sessionID).mode = mode;
  };

  const read = (sessionID: string, limit?: number, ms = timeoutMs): Promise<unknown[]> => deps.readMessages(sessionID, limit, ms);

  /** A second caller waits for the look-up under way (the record's `lookingUp`). */
  const modeOf: GuardCommand["modeOf"] = (sessionID, newest) => {
    const cached = known(sessionID);
    if (cached !== undefined) return Promise.resolve(cached ?? undefined);
    const running = sessions.find(sessionID)?.lookingUp;
    if (running) return running;
    let record: SessionRecord | undefined;
    const started = sessions.hold(sessionID, async (held) => lookUpOnce((record = held), sessionID, newest));
    record!.lookingUp = started;
    const done = () => void (record!.lookingUp === started && (record!.lookingUp = undefined));
    started.then(done, done);
    return started;
  };
  const lookUpOnce = async (record: SessionRecord, sessionID: string, newest: readonly unknown[]): Promise<SessionMode | undefined> => {
    let mode: SessionMode | null;
    try {
      mode = findSwitch(newest)?.mode ?? (await deps.switches.read(sessionID));
    } catch (error) {
      mode = null;
      await log("warn", `compaction-guard could not read the /guard switch of session ${sessionID}; the settings apply: ${reason(error)}`, {
        sessionID,
      });
    }
    // A `/guard` switch set meanwhile is newer than what the look-up found.
    if (record.mode !== undefined) return record.mode ?? undefined;
    if (sessions.current(sessionID, record)) remember(sessionID, mode);
    return mode ?? undefined;
  };

  /** Writes `text` into the session as an ignored user message (no turn). Rejects on failure. */
  const answer = async (sessionID: string, messages: readonly unknown[], text: string, metadata: Record<string, unknown>) => {
    const now = Date.now();
    const result = await withTimeout(
      Promise.resolve(
        client.session.prompt({
          path: { id: sessionID },
          body: {
            noReply: true,
            ...lastUserChoice(messages),
            parts: [{ type: "text", text, ignored: true, time: { start: now, end: now }, metadata }],
          } as Parameters<Client["session"]["prompt"]>[0]["body"],
        }),
      ),
      timeoutMs,
      "session.prompt",
    );
    const error = (result as { error?: unknown } | undefined)?.error;
    if (error !== undefined && error !== null) throw new Error(`session.prompt failed (${JSON.stringify(error)})`);
  };

  /** The project's sessions through the SDK, for `/guard stats`: the list, each session's messages, the connected providers' limits (read once). */
  const store = (): StatsStore => {
    let table: Promise<LimitsTable> | undefined;
    return {
      list: async () => {
        // opencode 1.18.33 lists the newest 100 sessions unless asked for more (`limit`, a query the V1 SDK's types omit).
        const query = { limit: STATS_MAX_LISTED } as unknown as { directory?: string };
        const response = await withTimeout(Promise.resolve(client.session.list({ query })), timeoutMs, "session.list");
        const data: unknown = (response as { data?: unknown } | undefined)?.data;
        if (!Array.isArray(data)) {
          const error = (response as { error?: unknown } | undefined)?.error;
          throw new Error(`session.list returned no session list${error ? ` (${reason(JSON.stringify(error))})` : ""}`);
        }
        return data;
      },
      messages: (id) => read(id),
      limits: async (key) => {
        table ??= withTimeout(Promise.resolve(client.config.providers()), timeoutMs, "config.providers").then(
          (response) => limitsTable((response as { data?: unknown } | undefined)?.data),
          () => new Map() as LimitsTable,
        );
        return (await table).get(key) ?? null;
      },
      reserved: () => deps.reserved(),
    };
  };

  /** The text of `/guard stats`, or its one line when the sessions cannot be listed. Never rejects. */
  const stats = async (): Promise<string> => {
    try {
      return statsText(await projectStats(store(), deps.resolved.settings));
    } catch (error) {
      await log("warn", `compaction-guard could not read this project's sessions for /guard stats: ${reason(error)}`);
      return statsUnreadableLine(error);
    }
  };

  const before: GuardCommand["before"] = async (input, _output) => {
    if (input?.command !== GUARD_COMMAND || !ours) return;
    const sessionID = String(input.sessionID);
    try {
      const messages = await read(sessionID);
      const request = parseGuardArguments(String(input.arguments ?? ""));
      if (request.kind === "switch") {
        await answer(sessionID, messages, switchLine(request.mode), switchMetadata(request.mode));
        remember(sessionID, request.mode);
        await deps.switches.write(sessionID, request.mode).catch((error: unknown) =>
          log(
            "warn",
            `compaction-guard could not keep the /guard switch of session ${sessionID} beside opencode's data: ${reason(error)}`,
            {
              sessionID,
            },
          ),
        );
        await log("info", `compaction-guard: /guard ${request.mode} in session ${sessionID}`, { sessionID, mode: request.mode });
      } else if (request.kind === "stats") {
        await answer(sessionID, messages, await stats(), reportMetadata());
      } else if (request.kind === "usage") {
        await answer(sessionID, messages, usageLine(request.problem), reportMetadata());
      } else {
        const timeline = buildTimeline(messages);
        const [limits, reserved] = await Promise.all([modelLimits(client, messages, timeoutMs), deps.reserved()]);
        const rows = replayTimeline(timeline, deps.resolved.settings, { ...opencodeInputs(limits, reserved), directory: deps.directory });
        const text = guardReport({
          sessionID,
          timeline,
          messages,
          rows,
          resolved: deps.resolved,
          switched: findSwitch(messages),
          directory: deps.directory,
        });
        await answer(sessionID, messages, text, reportMetadata());
      }
    } catch (error) {
      await log("warn", `compaction-guard could not answer /guard in session ${sessionID}: ${reason(error)}`, { sessionID });
      try {
        await withTimeout(
          Promise.resolve(
            client.tui.showToast({ body: { title: "compaction-guard", message: `/guard failed: ${reason(error)}`, variant: "error" } }),
          ),
          timeoutMs,
          "tui.showToast",
        );
      } catch {
        // Nowhere left to report to.
      }
    }
    // Ends the command here: opencode creates no prompt and sends nothing to the model.
    throw new Error(ANSWERED);
  };

  /** The `guard` command is this plugin's (not one the user defined under that name). */
  let ours = false;
  const config: GuardCommand["config"] = async (cfg) => {
    try {
      const commands = ((cfg as { command?: Record<string, { template?: string; description?: unknown }> }).command ??= {});
      const entry = (commands[GUARD_COMMAND] ??= { template: "", description: GUARD_COMMAND_DESCRIPTION });
      ours = entry.description === GUARD_COMMAND_DESCRIPTION;
      if (!ours) await log("warn", "compaction-guard: opencode.json defines a /guard command already; the guard's /guard is not added");
    } catch (error) {
      await log("warn", `compaction-guard could not add the /guard command: ${reason(error)}`);
    }
  };

  /** The switch for a tool-time hook: cached, else read as {@link modeOf} reads it (undefined while backed off). */
  const stepMode = async (sessionID: string): Promise<SessionMode | null | undefined> => {
    const cached = known(sessionID);
    if (cached !== undefined || deps.backoff.backedOff()) return cached;
    const recent = await deps.readRecent(sessionID);
    return recent === undefined ? undefined : modeOf(sessionID, recent);
  };
  const firstSight: GuardCommand["firstSight"] = (sessionID) => {
    void deps.firstRead(sessionID).then(
      (recent) => (recent === undefined ? undefined : modeOf(sessionID, recent)),
      () => undefined,
    );
  };

  const unlessOff: GuardCommand["unlessOff"] = (hook) => async (input, output) => {
    if ((await stepMode(String(input?.sessionID))) !== "off") await hook(input, output);
  };

  return { config, before, modeOf, unlessOff, firstSight };
}

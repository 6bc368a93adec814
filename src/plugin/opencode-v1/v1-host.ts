/**
 * opencode 1.x as the guard's host: the V1 SDK client a plugin gets (`PluginInput.client`),
 * made safe. Every call is bounded by a time-out; toasts and log lines never throw and never
 * wait long; what they name from the session is made terminal-safe (the log is read in a
 * terminal).
 */
import { terminalSafe } from "../../redact/terminal-safe.js";
import { titleOf, type Level, type ToastBody } from "../../guard/host.js";
import { reason, withTimeout, type Client } from "./calls.js";

/** The `service` of every log line the guard writes (`client.app.log`). */
export const SERVICE = "compaction-guard";

/** What the V1 hooks take from opencode: {@link createV1Host}. */
export interface V1Host {
  /** Writes one log line; never rejects. */
  readonly log: (level: Level, message: string, extra?: Record<string, unknown>) => Promise<void>;
  /** Shows one toast; never rejects. */
  readonly toast: (body: ToastBody) => Promise<void>;
  /**
   * The session's title and whether it is a subagent's (it has a parent), read with
   * `session.get` within the notify time-out; both unknown (undefined, false) when it cannot be
   * read. Never rejects.
   */
  readonly readSession: (sessionID: string) => Promise<{ title: string | undefined; subagent: boolean }>;
  /**
   * opencode's `compaction.reserved` (tokens; undefined = unset), read with `config.get` within
   * the notify time-out; when the read fails or is slow, the last value read (else undefined).
   * Never rejects.
   */
  readonly readReserved: () => Promise<number | undefined>;
  /**
   * The newest `count` messages of a session (all of them when `count` is undefined), oldest
   * first (`client.session.messages` with `query.limit`), within `timeoutMs`. Throws one line
   * when the call fails, times out or returns no message list.
   */
  readonly readMessages: (sessionID: string, count: number | undefined, timeoutMs: number) => Promise<unknown[]>;
  /** `client.session.abort`; rejects on failure or after the notify time-out. */
  readonly abort: (sessionID: string) => Promise<void>;
}

/**
 * Wraps opencode's V1 client.
 * @param notifyTimeoutMs how long a toast, a log line, `session.get`, `config.get` or `session.abort` may take, ms.
 */
export function createV1Host(client: Client, notifyTimeoutMs: number): V1Host {
  /** Runs one call to the TUI or the log: never throws (not even when `client.tui` or `client.app` is missing). */
  const quietly = async (what: string, call: () => unknown): Promise<void> => {
    try {
      await withTimeout(Promise.resolve(call()), notifyTimeoutMs, what);
    } catch {
      // Nowhere left to report to.
    }
  };
  const log: V1Host["log"] = (level, message, extra) => {
    const safeExtra = extra && Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, typeof v === "string" ? terminalSafe(v) : v]));
    return quietly("client.app.log", () =>
      client.app.log({ body: { service: SERVICE, level, message: terminalSafe(message), ...(safeExtra ? { extra: safeExtra } : {}) } }),
    );
  };
  const toast: V1Host["toast"] = (body) =>
    quietly("tui.showToast", () =>
      client.tui.showToast({ body: { ...body, title: terminalSafe(body.title), message: terminalSafe(body.message) } }),
    );

  let lastReserved: number | undefined;
  const readReserved: V1Host["readReserved"] = async () => {
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

  const readSession: V1Host["readSession"] = async (sessionID) => {
    try {
      if (typeof client.session?.get !== "function") return { title: undefined, subagent: false };
      const response = await withTimeout(Promise.resolve(client.session.get({ path: { id: sessionID } })), notifyTimeoutMs, "session.get");
      const data = (response as { data?: { parentID?: unknown } } | undefined)?.data;
      return { title: titleOf(data), subagent: typeof data?.parentID === "string" && data.parentID !== "" };
    } catch {
      return { title: undefined, subagent: false };
    }
  };

  const readMessages: V1Host["readMessages"] = async (sessionID, count, timeoutMs) => {
    const response = await withTimeout(
      Promise.resolve(client.session.messages({ path: { id: sessionID }, ...(count === undefined ? {} : { query: { limit: count } }) })),
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

  const abort: V1Host["abort"] = async (sessionID) => {
    const result = await withTimeout(Promise.resolve(client.session.abort({ path: { id: sessionID } })), notifyTimeoutMs, "session.abort");
    const error = (result as { error?: unknown } | undefined)?.error;
    if (error !== undefined && error !== null) throw new Error(`session.abort failed (${JSON.stringify(error)})`);
  };

  return { log, toast, readSession, readReserved, readMessages, abort };
}

/**
 * V2 sessions inside opencode 1.18.x: the V1 plugin watches them through its `event` hook.
 *
 * opencode 1.18.33 carries the V2 session runner behind `opencode serve`'s `/api/session/*`
 * API. None of the V1 session hooks run for such a session, but the V1 `event` hook receives
 * every `session.next.*` event, and the plugin's `serverUrl` reaches the V2 API. So at each
 * `session.next.compaction.ended` (`session.compaction.ended` in later builds) with `reason:
 * "auto"`, this reads `GET {serverUrl}/api/session/{id}/message?order=desc&limit=N` (the
 * newest N V2 messages) and hands them to ./v2-guard.ts, which interrupts with `POST
 * {serverUrl}/api/session/{id}/interrupt` (answered 204) when a loop shows. The session's
 * title comes from `GET /api/session/{id}`. 1.18.33's V2 API offers no way to add a message
 * without a model turn, so no note is left in the session: the log line and the toast say why.
 */
import type { GuardSettings } from "../../config/settings.js";
import { v2Event, v2InOrder } from "../../hosts/opencode/v2.js";
import { createV2Guard } from "./v2-guard.js";
import { titleOf, type Log, type ToastBody } from "../../guard/host.js";
import { isRecord } from "../../shared/record.js";
import { OPENCODE_V2_WORDS } from "../../hosts/opencode/words.js";

/** What the V2 runner takes from the V1 plugin (test seams included). */
export interface V2RunnerDeps {
  readonly settings: GuardSettings;
  /** `PluginInput.serverUrl`: where this opencode serves its API; undefined = no V2 guarding. */
  readonly serverUrl: URL | string | undefined;
  /** `PluginInput.directory`: sent as `?directory=` (opencode routes by it) and used for previews. */
  readonly directory: string | undefined;
  /** How long one HTTP call may take, ms. */
  readonly timeoutMs: number;
  readonly log: Log;
  readonly toast: (body: ToastBody) => Promise<void>;
  readonly claim?: ((sessionID: string, messageID: string) => boolean) | undefined;
  /** Default: the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Told of each session stopped: the status file (../../guard/outcome.ts); never rejects. */
  readonly stopped?: (sessionID: string, rule: string, index: number | null) => Promise<void>;
}

/**
 * Builds the V2 watcher of a V1 plugin.
 * @returns `event(event)`: pass every event of the V1 `event` hook; it acts on automatic
 *   V2 compactions only, and resolves once the decision (and any interrupt) is done. Never rejects.
 */
export function createV2Runner(deps: V2RunnerDeps): { event(event: unknown): Promise<void> } {
  const base = deps.serverUrl === undefined ? undefined : String(deps.serverUrl).replace(/\/+$/, "");
  const doFetch = deps.fetch ?? fetch;
  const query = deps.directory === undefined ? "" : `directory=${encodeURIComponent(deps.directory)}`;
  const url = (path: string, params = "") => `${base}/api/session/${path}?${[query, params].filter(Boolean).join("&")}`;

  /** One call to the V2 API within timeoutMs; throws one line naming the call on a failure or an HTTP error. */
  const call = async (method: "GET" | "POST", path: string, params = ""): Promise<unknown> => {
    const response = await doFetch(url(path, params), { method, signal: AbortSignal.timeout(deps.timeoutMs) });
    if (!response.ok) throw new Error(`${method} /api/session/${path} answered HTTP ${response.status}`);
    return response.status === 204 ? undefined : response.json();
  };

  const guard = createV2Guard({
    settings: deps.settings,
    directory: deps.directory,
    readMessages: async (sessionID, limit) => {
      const body = await call("GET", `${encodeURIComponent(sessionID)}/message`, `order=desc&limit=${limit}`);
      const data = isRecord(body) ? body.data : undefined;
      if (!Array.isArray(data)) throw new Error("GET /api/session/{id}/message returned no message list");
      return v2InOrder(data);
    },
    host: {
      log: deps.log,
      words: OPENCODE_V2_WORDS,
      toast: deps.toast,
      halt: async (sessionID) => {
        await call("POST", `${encodeURIComponent(sessionID)}/interrupt`);
      },
      stopped: deps.stopped,
      readTitle: async (sessionID) => {
        const body = await call("GET", encodeURIComponent(sessionID));
        return titleOf(isRecord(body) ? body.data : undefined);
      },
    },
    claim: deps.claim,
  });

  const event = async (input: unknown): Promise<void> => {
    const parsed = v2Event(input);
    if (base === undefined || parsed?.kind !== "compaction.ended" || parsed.data.reason !== "auto") return;
    const { sessionID, messageID } = parsed.data;
    if (typeof sessionID !== "string" || typeof messageID !== "string") return;
    await guard.compacted(sessionID, messageID);
  };
  return { event };
}

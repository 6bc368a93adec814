/**
 * `audit` with no path: the sessions of the user's own opencode, read through opencode
 * itself. Starts `<bin> serve` on 127.0.0.1 (a free port, a one-off password) with the
 * user's environment, so opencode reads its usual XDG directories, lists every session of
 * every project (`GET /experimental/session`, archived ones and subagents' included, paged)
 * and reads each session's messages (`GET /session/{id}/message`) one at a time, each request
 * given {@link REQUEST_TIMEOUT_MS}. The server is always stopped (on error and on Ctrl-C too,
 * when its temporary working folder is removed as well).
 *
 * Unless the command line gives them, it also reads what opencode knows to decide a session:
 * `compaction.reserved` from `GET /config`, and the limits of the model that set off each
 * session's compactions (see hosts/opencode/limits.ts) from `GET /config/providers` (the connected
 * providers, a few KB), then, only for a model not found there, once from `GET /provider`
 * (`all`: the whole models.dev catalogue as well, about 6 MB, 1–2 s). The server runs in a
 * temporary directory, so both come from the user's global config (`~/.config/opencode`,
 * `OPENCODE_CONFIG` …), not from a session's project: a provider, model limit or
 * `compaction.reserved` set only in a project's `opencode.json` is not seen (asking per
 * project would make opencode load each project, its plugins and MCP servers, to read
 * stored data).
 *
 * `@opencode-ai/sdk` is imported lazily, here only: the plugin entry never loads it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { compactionModel, configReserved, limitsTable, modelKey, type KnownLimits, type LimitsTable } from "../hosts/opencode/limits.js";
import { v1SessionData, v2SessionData, type SessionInfo } from "../hosts/opencode/session.js";
import type { SessionData } from "../model/session.js";
import type { ModelLimits } from "../hosts/opencode/facts.js";
import { endBySignal } from "../shared/signals.js";

/** opencode could not be started or read; `message` is one line for the user. */
export class OpencodeError extends Error {
  override readonly name = "OpencodeError";
}

/** How long opencode may take to print its listening line, ms. */
export const SERVE_START_TIMEOUT_MS = 60_000;
/** How long opencode may take to answer one request for a session's messages, ms. */
export const REQUEST_TIMEOUT_MS = 60_000;
/** Sessions asked for per page of the session list. */
const PAGE = 1000;
/** The most sessions asked for in one page, when more than a page share one `time.updated` ms. */
const MAX_PAGE = 64_000;

/** One session as opencode lists it (the fields read here; `GlobalSession` in the SDK's v2 types). */
export interface ListedSession {
  readonly id: string;
  readonly parentID?: string;
  readonly directory?: string;
  readonly title?: string;
  readonly time?: { readonly created?: number; readonly updated?: number };
}

/** A session read through opencode, or one that could not be read (one line why). */
export type OpencodeItem =
  | {
      readonly kind: "session";
      readonly session: SessionData;
      /** What opencode knows to decide it (limits null when not looked up, see {@link OpenOptions}). */
      readonly known: KnownLimits;
    }
  | { readonly kind: "skipped"; readonly line: string };

/** An open connection to the user's opencode: its sessions (newest activity first), then `close()`. */
export interface OpencodeSessions {
  /** Sessions listed (after `since`). */
  readonly total: number;
  /**
   * Reads each listed session's messages, one session at a time. A session whose messages
   * opencode refuses is yielded as skipped (one line).
   * @throws OpencodeError when opencode stops answering, or does not answer one session's
   *   messages within `requestTimeoutMs` (default {@link REQUEST_TIMEOUT_MS}, 60 s); the caller
   *   then closes it (the server is stopped).
   */
  items(): AsyncGenerator<OpencodeItem>;
  /**
   * `warning: …` lines (no newline) for what opencode could not say, e.g. its model limits;
   * filled while the sessions are read. The sessions concerned are decided without it.
   */
  readonly warnings: readonly string[];
  /** Stops the server (idempotent). */
  close(): Promise<void>;
}

/** What {@link openOpencode} reads besides the sessions. */
export interface OpenOptions {
  /** Keep sessions whose last activity (`time.updated`) is at or after this (ms since the epoch). */
  readonly since?: number | null;
  /** Look up each session's model limits (false: the command line gives them for every session). Default true. */
  readonly limits?: boolean;
  /** Read `compaction.reserved` from opencode's config (false: `--reserved` gives it). Default true. */
  readonly reserved?: boolean;
  /** How long one request for a session's messages may take, ms (default {@link REQUEST_TIMEOUT_MS}). */
  readonly requestTimeoutMs?: number;
  /**
   * Called first on Ctrl-C (SIGINT) or SIGTERM while opencode is open, before the server is
   * stopped, its working folder removed and the process ends by the signal (the shell's 130 / 143): e.g. to stop a
   * progress bar. Must be synchronous.
   */
  readonly beforeExit?: () => void;
}

/** One page of `GET /experimental/session` as the SDK returns it. */
export interface SessionPage {
  readonly data?: unknown;
  readonly response?: Response | undefined;
  readonly error?: unknown;
}

/** Asks for one page of the session list (`client.experimental.session.list`). */
export type ListPage = (query: { archived: true; limit: number; start?: number; cursor?: number }) => Promise<SessionPage>;

/**
 * Every session of opencode's session list (`GET /experimental/session`), page by page.
 *
 * opencode 1.18.33 returns at most `limit` sessions, newest `time.updated` first, and, when
 * there are more, an `x-next-cursor` header: the last one's `time.updated` (ms). Its `cursor`
 * query keeps sessions updated strictly *before* the cursor (and a cursor of 0 is no cursor),
 * so the next page is asked with `cursor + 1` (updated at or before the last one: sessions
 * that share that ms are not lost), and sessions seen already are dropped by id. The list
 * ends when the header is missing or empty (the last page), or a page adds no new session;
 * when the boundary does not move (more than a page share one ms), the page is asked again
 * twice as long (up to {@link MAX_PAGE}).
 * @param since keep sessions whose `time.updated` (else `time.created`) is at or after it (ms), or null.
 * @throws OpencodeError when a page is not a list.
 */
export async function listAllSessions(list: ListPage, since: number | null, page = PAGE): Promise<ListedSession[]> {
  const listed: ListedSession[] = [];
  const seen = new Set<string>();
  let cursor: number | undefined;
  let limit = page;
  for (;;) {
    const result = await list({
      archived: true,
      limit,
      ...(since !== null ? { start: since } : {}),
      ...(cursor !== undefined ? { cursor } : {}),
    });
    if (!Array.isArray(result.data)) {
      throw new OpencodeError(`opencode's session list could not be read (${answer(result)})`);
    }
    let added = 0;
    for (const session of result.data as ListedSession[]) {
      if (typeof session?.id !== "string" || seen.has(session.id)) continue;
      seen.add(session.id);
      added += 1;
      const updated = session.time?.updated ?? session.time?.created;
      if (since !== null && !(typeof updated === "number" && updated >= since)) continue;
      listed.push(session);
    }
    const header = result.response?.headers.get("x-next-cursor")?.trim();
    const next = header ? Number(header) : Number.NaN;
    if (!Number.isFinite(next) || next <= 0 || result.data.length === 0) break;
    if (next + 1 === cursor) {
      // The boundary did not move: more than a page share its ms. Ask again, twice as long.
      if (added === 0 && limit >= MAX_PAGE) break;
      limit = Math.min(MAX_PAGE, limit * 2);
      continue;
    }
    if (added === 0) break;
    cursor = next + 1;
  }
  return listed;
}

/** A free TCP port on 127.0.0.1, from the OS (closed again before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The last non-empty line of opencode's output, cut to 200 characters, for an error line. */
const lastLine = (text: string): string =>
  (
    text
      .replace(/\u001b\[[0-9;]*m/g, "")
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? ""
  ).slice(0, 200);

/** Stops opencode's process group: SIGTERM, then SIGKILL after 3 s. */
function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  const pid = child.pid;
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        child.kill(signal);
      } catch {
        // Already gone.
      }
    }
  };
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      kill("SIGKILL");
      resolve();
    }, 3_000);
    child.once("exit", () => {
      clearTimeout(timer);
      kill("SIGKILL"); // stragglers in the group
      resolve();
    });
    kill("SIGTERM");
  });
}

/** `bin` as spawn must get it from another working directory: a path with a `/` made absolute, a bare name as is (PATH). */
export const executablePath = (bin: string): string => (bin.includes("/") && !isAbsolute(bin) ? resolve(bin) : bin);

/**
 * Starts `<bin> serve` and lists the user's sessions.
 * @param bin the opencode executable: a name looked up on PATH, or a path (a relative one is
 *   taken from the current directory, not from the server's temporary working directory).
 * @param env the environment opencode runs with (the user's: XDG_DATA_HOME etc.).
 * @param options `since`, and which of the model limits and `compaction.reserved` to read.
 * @throws OpencodeError one line: the binary is missing, opencode exited or did not start
 *   within {@link SERVE_START_TIMEOUT_MS}, or its session list could not be read. The server
 *   is stopped before the error is thrown. opencode failing to give its config or model
 *   limits is not an error: a warning, and the sessions are decided without them.
 */
export async function openOpencode(
  bin: string,
  env: Readonly<Record<string, string | undefined>>,
  options: OpenOptions = {},
): Promise<OpencodeSessions> {
  const port = await freePort();
  const password = randomBytes(18).toString("base64url");
  const username = "opencode";
  const cwd = await mkdtemp(join(tmpdir(), "ocg-audit-"));
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) childEnv[key] = value;
  Object.assign(childEnv, {
    OPENCODE_SERVER_PASSWORD: password,
    OPENCODE_SERVER_USERNAME: username,
    // Reading only: no update check, no models.dev fetch, no downloads.
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
  });
  let child: ChildProcess;
  try {
    child = spawn(executablePath(bin), ["serve", "--hostname", "127.0.0.1", "--port", String(port)], {
      cwd,
      env: childEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
  } catch (error) {
    await rm(cwd, { recursive: true, force: true });
    throw new OpencodeError(`cannot start opencode (${bin}): ${(error as Error).message}`);
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await stopGroup(child);
    await rm(cwd, { recursive: true, force: true }).catch(() => undefined);
  };
  // Ctrl-C: the server runs in its own process group, so stop it ourselves, remove its working
  // folder, then end by the signal (synchronously: nothing after it runs).
  const onSignal = (signal: "SIGINT" | "SIGTERM") => {
    try {
      options.beforeExit?.();
    } catch {
      // The terminal is the caller's; the server must still be stopped.
    }
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    try {
      rmSync(cwd, { recursive: true, force: true });
    } catch {
      // Left for the OS to clean.
    }
    endBySignal(signal);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = "";
      const timer = setTimeout(
        () => reject(new OpencodeError(`opencode (${bin}) did not start its server within ${SERVE_START_TIMEOUT_MS / 1000} s`)),
        SERVE_START_TIMEOUT_MS,
      );
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8");
        if (output.length > 100_000) output = output.slice(-20_000);
        const match = /opencode server listening on (https?:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      child.stdout!.on("data", onData);
      child.stderr!.on("data", onData);
      child.once("error", (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          new OpencodeError(
            error.code === "ENOENT"
              ? `opencode not found: ${bin} (install opencode, or name its binary with --opencode <bin>)`
              : `cannot start opencode (${bin}): ${error.code ?? error.message}`,
          ),
        );
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        const said = lastLine(output);
        reject(new OpencodeError(`opencode serve (${bin}) exited with ${code ?? signal} before listening${said ? `: ${said}` : ""}`));
      });
    });
    // Nothing more is read from its output; keep the pipes drained.
    child.stdout!.resume();
    child.stderr!.resume();

    const { createOpencodeClient } = await import("@opencode-ai/sdk/v2/client");
    const client = createOpencodeClient({
      baseUrl: url,
      headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}` },
    });

    const since = options.since ?? null;
    const listed = await listAllSessions((query) => client.experimental.session.list(query), since);

    // opencode loads its providers (the models.dev catalogue among them) on the first request
    // about them, 1–3 s: ask now, while the sessions are read. Nothing listed: nothing to decide.
    const warnings: string[] = [];
    const lookUp = options.limits !== false && listed.length > 0 ? modelLimits(client, warnings) : null;
    const config =
      options.reserved !== false && listed.length > 0
        ? await client.config
            .get()
            .catch((error: unknown) => ({ response: undefined, data: undefined, error: { message: oneLine(error) } }))
        : null;
    let reserved: number | undefined;
    if (config) {
      if (!result200(config))
        warnings.push(`warning: opencode's config could not be read (${answer(config)}); compaction.reserved unknown`);
      else reserved = configReserved(config.data);
    }

    async function* items(): AsyncGenerator<OpencodeItem> {
      for (const session of listed) {
        // No `directory`: opencode finds a session by its id alone, and a directory would make the
        // server load that project (its plugins, MCP servers) just to read stored messages.
        const timeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
        const timedOut = () =>
          new OpencodeError(`opencode did not answer within ${timeout / 1000} s while the messages of ${session.id} were read`);
        const result = await client.session
          .messages({ sessionID: session.id }, { signal: AbortSignal.timeout(timeout) })
          .catch((error: unknown) => {
            throw (error as Error)?.name === "TimeoutError" ? timedOut() : error;
          });
        if (!result.response && (result.error as Error | undefined)?.name === "TimeoutError") throw timedOut();
        if (!result.response) throw new OpencodeError(`opencode stopped answering while ${session.id} was read (${answer(result)})`);
        if (!Array.isArray(result.data)) {
          yield { kind: "skipped", line: `opencode ${session.id}: messages could not be read (${answer(result)})` };
          continue;
        }
        if (result.data.length === 0) {
          // A session of the V2 session runner keeps no V1 messages: read its V2 ones.
          const v2 = await v2Messages(client, session.id, timeout);
          if (v2 === null) {
            yield { kind: "skipped", line: `opencode ${session.id}: the session has no messages` };
            continue;
          }
          // V2 draws its compaction line otherwise than V1 (the request's estimated size against
          // `context − max(output, buffer)`): no model limits, so no usable context.
          yield {
            kind: "session",
            session: v2SessionData(session as unknown as SessionInfo, { messages: v2 }),
            known: { model: null, limits: null, reserved: undefined },
          };
          continue;
        }
        const model = lookUp ? compactionModel(result.data) : null;
        const limits = model && lookUp ? await lookUp(modelKey(model)) : null;
        yield {
          kind: "session",
          session: v1SessionData(session as unknown as SessionInfo, result.data),
          known: { model, limits, reserved },
        };
      }
    }
    return { total: listed.length, items, warnings, close };
  } catch (error) {
    await close();
    if (error instanceof OpencodeError) throw error;
    throw new OpencodeError(`cannot read opencode's sessions: ${oneLine(error)}`);
  }
}

type Client = ReturnType<(typeof import("@opencode-ai/sdk/v2/client"))["createOpencodeClient"]>;

/** Pages of V2 messages read at most for one session (200 messages a page). */
const V2_MAX_PAGES = 50;

/**
 * A V2 session's messages (`GET /api/session/{id}/message`, oldest first, page by page); null
 * when it has none or they cannot be read.
 */
async function v2Messages(client: Client, sessionID: string, timeout: number): Promise<unknown[] | null> {
  const found: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < V2_MAX_PAGES; page++) {
    const result = await client.v2.session
      .messages(cursor ? { sessionID, cursor, limit: 200 } : { sessionID, limit: 200, order: "asc" }, {
        signal: AbortSignal.timeout(timeout),
      })
      .catch(() => undefined);
    const data = result?.data;
    if (!data || !Array.isArray(data.data)) break;
    found.push(...data.data);
    cursor = data.cursor?.next;
    if (!cursor || data.data.length === 0) break;
  }
  return found.length > 0 ? found : null;
}

/** An answer with a 200 and a JSON body. */
const result200 = (result: { response?: Response | undefined; data?: unknown }): boolean =>
  result.response?.status === 200 && typeof result.data === "object" && result.data !== null;

/**
 * Looks models up in opencode's providers: the connected ones first (`GET /config/providers`,
 * asked at once), then, on the first model not found there, every provider opencode knows
 * (`GET /provider`, read once). A failed request adds one warning and counts as an empty
 * table (never throws).
 * @returns the lookup: `"<providerID>/<modelID>"` → limits (tokens), or null when unknown.
 */
function modelLimits(client: Client, warnings: string[]): (key: string) => Promise<ModelLimits | null> {
  let all: Promise<LimitsTable> | undefined;
  const read = async (what: string, request: () => Promise<{ response?: Response | undefined; data?: unknown; error?: unknown }>) => {
    try {
      const result = await request();
      if (result200(result)) return limitsTable(result.data);
      warnings.push(`warning: opencode's ${what} could not be read (${answer(result)}); their model limits unknown`);
    } catch (error) {
      warnings.push(`warning: opencode's ${what} could not be read (${oneLine(error)}); their model limits unknown`);
    }
    return new Map() as LimitsTable;
  };
  const connected = read("connected providers (GET /config/providers)", () => client.config.providers());
  return async (key) => {
    const found = (await connected).get(key);
    if (found) return found;
    all ??= read("providers (GET /provider)", () => client.provider.list());
    return (await all).get(key) ?? null;
  };
}

/** What opencode answered instead of data, for an error line: `HTTP 500: <message>`, or `no answer: <why>`. */
function answer(result: { response?: Response | undefined; error?: unknown }): string {
  const error = result.error as { data?: { message?: unknown }; message?: unknown } | undefined;
  const message = error?.data?.message ?? error?.message;
  const said = typeof message === "string" && message ? `: ${message.replace(/\s+/g, " ").slice(0, 200)}` : "";
  return result.response ? `HTTP ${result.response.status}${said}` : `no answer${said}`;
}

const oneLine = (error: unknown): string =>
  String((error as Error)?.message ?? error)
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 300);

/**
 * Codex's hook trust for the guard's own hooks. Codex 0.169 runs a user's or project's
 * command hook only once its trust is recorded: `[hooks.state."<hooks.json path>:<event>:<group
 * index>:<handler index>"] trusted_hash = "sha256:…"` in the user's `config.toml`, where the
 * hash is Codex's own over the hook's event, matcher and handler. Until then `codex exec` skips
 * the hook without a word. Codex's TUI records it when the user trusts a hook in `/hooks`: it
 * asks its app server for `hooks/list` (each hook's `key`, `currentHash`, `trustStatus`) and
 * writes `hooks.state` with `config/batchWrite` (upsert). The installer does the same, through
 * the same `codex app-server` (JSON-RPC over stdio), for exactly the hooks it wrote (the file
 * it wrote, the command it wrote): the hash is Codex's, and Codex edits its own `config.toml`
 * (its comments and other keys stay). Uninstall removes those records, and the `hooks.state`
 * table when nothing else is left in it. No `codex` on PATH, or an app server that does not
 * answer: the hooks are written untrusted and a note says what the user must do once.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { isRecord } from "../shared/record.js";
import type { InstallReport, LiveContext } from "./agent.js";
import { isGuardHandler } from "./codex-hooks.js";

/** How long the whole conversation with `codex app-server` may take, ms (it answered in about 200 ms here). */
export const APP_SERVER_TIMEOUT_MS = 15_000;

/** What the user must do once when the installer cannot record trust. */
export const TRUST_BY_HAND =
  "run codex, type /hooks, and trust the two compaction-guard hooks (codex exec skips an untrusted hook silently)";

/** One hook as Codex's `hooks/list` describes it (the fields the installer reads). */
export interface CodexListedHook {
  readonly key: string;
  readonly eventName: string;
  readonly command: string | null;
  readonly sourcePath: string;
  readonly currentHash: string;
  /** `managed`, `untrusted`, `trusted` or `modified` (trusted once, changed since). */
  readonly trustStatus: string;
}

/** The `codex` executable on `env.PATH` (only there: a test's or a user's PATH decides), or null. */
export function findCodex(env: Readonly<Record<string, string | undefined>>): string | null {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "codex");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here: the next folder.
    }
  }
  return null;
}

/** A running `codex app-server`, spoken to one request at a time. */
class AppServer {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private ended: Error | null = null;

  private constructor(private readonly child: ReturnType<typeof spawn>) {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      // Notifications (no id) and the server's own requests (with a method) are not answers.
      if (!isRecord(message) || typeof message.id !== "number" || "method" in message) return;
      const waiting = this.pending.get(message.id);
      if (waiting === undefined) return;
      this.pending.delete(message.id);
      if (isRecord(message.error)) waiting.reject(new Error(String(message.error.message ?? "error")));
      else waiting.resolve(message.result);
    });
    const end = (error: Error) => {
      this.ended ??= error;
      for (const waiting of this.pending.values()) waiting.reject(this.ended);
      this.pending.clear();
    };
    child.on("error", end);
    child.on("close", () => end(new Error("codex app-server exited")));
  }

  /** Starts `codex app-server` and completes its `initialize` handshake. @throws Error when it does not start or answer. */
  static async open(bin: string, context: LiveContext): Promise<AppServer> {
    const child = spawn(bin, ["app-server"], { env: { ...context.env }, cwd: context.cwd, stdio: ["pipe", "pipe", "ignore"] });
    const server = new AppServer(child);
    await server.call("initialize", {
      clientInfo: { name: "opencode-compaction-guard", title: null, version: "install" },
      capabilities: null,
    });
    server.notify("initialized");
    return server;
  }

  private notify(method: string): void {
    this.child.stdin!.write(`${JSON.stringify({ method })}\n`);
  }

  call(method: string, params: unknown): Promise<unknown> {
    if (this.ended !== null) return Promise.reject(this.ended);
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin!.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  }

  /** The hooks Codex finds for `cwd` (its user layer, and the project's when Codex trusts the project). */
  async list(cwd: string): Promise<{ hooks: CodexListedHook[]; warnings: string[] }> {
    const result = await this.call("hooks/list", { cwds: [cwd] });
    const entry = isRecord(result) && Array.isArray(result.data) ? (result.data[0] as unknown) : undefined;
    if (!isRecord(entry) || !Array.isArray(entry.hooks)) throw new Error("hooks/list gave no list");
    const hooks = entry.hooks.filter(isRecord).map((h) => ({
      key: String(h.key),
      eventName: String(h.eventName),
      command: typeof h.command === "string" ? h.command : null,
      sourcePath: String(h.sourcePath),
      currentHash: String(h.currentHash),
      trustStatus: String(h.trustStatus),
    }));
    const warnings = Array.isArray(entry.warnings) ? entry.warnings.map(String) : [];
    return { hooks, warnings };
  }

  /** Writes to the user's `config.toml` through Codex (`config/batchWrite`). */
  async write(edits: ReadonlyArray<{ keyPath: string; value: unknown; mergeStrategy: "upsert" | "replace" }>): Promise<void> {
    await this.call("config/batchWrite", { edits, filePath: null, expectedVersion: null, reloadUserConfig: false });
  }

  /** The user layer's `hooks.state` table as Codex reads it, or undefined when there is none. */
  async userHookStates(cwd: string): Promise<Record<string, unknown> | undefined> {
    const result = await this.call("config/read", { includeLayers: true, cwd });
    const layers = isRecord(result) && Array.isArray(result.layers) ? result.layers : [];
    const user = layers.find((l: unknown) => isRecord(l) && isRecord(l.name) && l.name.type === "user") as
      | Record<string, unknown>
      | undefined;
    const hooks = isRecord(user?.config) ? user.config.hooks : undefined;
    return isRecord(hooks) && isRecord(hooks.state) ? hooks.state : undefined;
  }

  close(): void {
    this.child.stdin!.end();
    this.child.kill();
  }
}

/** The same file, whichever way its path is spelled (a symlinked temp folder, say). */
function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  return a === b || real(a) === real(b);
}

const ours = (hook: CodexListedHook, file: string) =>
  samePath(hook.sourcePath, file) && isGuardHandler({ type: "command", command: hook.command });
const eventLabel = (hook: CodexListedHook) => hook.eventName.charAt(0).toUpperCase() + hook.eventName.slice(1);

/** The user's own hooks in `file` that Codex trusted before an edit and does not after it (their position moved). */
function trustLost(before: readonly CodexListedHook[], after: readonly CodexListedHook[], file: string): string[] {
  const trustedAfter = new Set(after.filter((h) => h.trustStatus === "trusted").map((h) => `${h.currentHash}\u0000${h.key}`));
  return before
    .filter((h) => samePath(h.sourcePath, file) && !ours(h, file) && h.trustStatus === "trusted")
    .filter((h) => !trustedAfter.has(`${h.currentHash}\u0000${h.key}`))
    .map(
      (h) => `your ${eventLabel(h)} hook ${JSON.stringify(h.command)} moved in ${file}: Codex skips it until you trust it again in /hooks`,
    );
}

/** What {@link withCodexTrust} adds to the hooks file's report. */
export interface TrustedReport extends InstallReport {
  /** One line each: what the user must still do, or what could not be done. */
  readonly notes: readonly string[];
}

/**
 * Runs `edit` (the hooks file's install or uninstall) and brings Codex's trust records in line
 * with it: after an install, records trust for the guard's hooks in `file` that run `command`
 * and are untrusted or modified; after an uninstall, removes the records of the guard's hooks
 * that are gone (and `hooks.state` when it is left empty). A user's hook whose trust the edit
 * lost (its position moved) is named in a note, never trusted by the installer.
 * @param command the command install wrote; undefined for an uninstall.
 * @returns `edit`'s report with the trust lines added to its changes, and the notes. Never
 *   throws for Codex's part: a `codex` missing or failing is a note; `edit`'s own errors pass.
 */
export async function withCodexTrust(
  file: string,
  command: string | undefined,
  context: LiveContext,
  edit: () => Promise<InstallReport>,
): Promise<TrustedReport> {
  const bin = findCodex(context.env);
  if (bin === null) {
    const report = await edit();
    const notes =
      command !== undefined
        ? [`codex is not on PATH, so the hooks are not trusted yet: ${TRUST_BY_HAND}; or run this install again with codex on PATH`]
        : report.changes.length > 0
          ? [
              "codex is not on PATH, so any trust records of the removed hooks stay in Codex's config.toml (hooks.state): harmless, since no hook is at those places now; run this uninstall with codex on PATH to remove them",
            ]
          : [];
    return { ...report, notes };
  }
  let server: AppServer | undefined;
  const timer = setTimeout(() => server?.close(), APP_SERVER_TIMEOUT_MS);
  const failed = (error: unknown) =>
    `codex app-server (${bin}) could not record the trust (${error instanceof Error ? error.message.split("\n")[0] : String(error)}): ${command === undefined ? "remove the stale entries in /hooks" : TRUST_BY_HAND}`;
  try {
    let before: CodexListedHook[] = [];
    try {
      server = await AppServer.open(bin, context);
      before = (await server.list(context.cwd)).hooks;
    } catch (error) {
      server?.close();
      server = undefined;
      const report = await edit();
      return { ...report, notes: report.changes.length > 0 || command !== undefined ? [failed(error)] : [] };
    }
    const report = await edit();
    try {
      const listed = await server.list(context.cwd);
      const after = listed.hooks;
      const changes = [...report.changes];
      const notes = trustLost(before, after, file);
      if (command !== undefined) {
        const mine = after.filter((h) => ours(h, file) && h.command === command);
        if (mine.length === 0) {
          const why =
            listed.warnings.length > 0 ? listed.warnings[0] : "for a project's hooks, Codex reads them only once it trusts the project";
          notes.push(`Codex does not list the hooks in ${file} (${why}): once it does, ${TRUST_BY_HAND}`);
        }
        const untrusted = mine.filter((h) => h.trustStatus === "untrusted" || h.trustStatus === "modified");
        if (untrusted.length > 0) {
          await server.write([
            {
              keyPath: "hooks.state",
              value: Object.fromEntries(untrusted.map((h) => [h.key, { trusted_hash: h.currentHash }])),
              mergeStrategy: "upsert",
            },
          ]);
          const now = new Map((await server.list(context.cwd)).hooks.map((h) => [h.key, h.trustStatus]));
          for (const h of untrusted)
            if (now.get(h.key) === "trusted")
              changes.push(`trusted the ${eventLabel(h)} hook in Codex's config.toml (hooks.state "${h.key}")`);
            else notes.push(`Codex still counts the ${eventLabel(h)} hook as ${now.get(h.key) ?? "missing"}: ${TRUST_BY_HAND}`);
        }
      } else {
        const remaining = new Set(after.filter((h) => ours(h, file)).map((h) => h.key));
        const gone = before.filter((h) => ours(h, file) && h.trustStatus !== "untrusted" && !remaining.has(h.key));
        if (gone.length > 0) {
          await server.write(
            gone.map((h) => ({ keyPath: `hooks.state.${JSON.stringify(h.key)}`, value: null, mergeStrategy: "replace" as const })),
          );
          for (const h of gone) changes.push(`removed Codex's trust record of the ${eventLabel(h)} hook (hooks.state "${h.key}")`);
          const states = await server.userHookStates(context.cwd);
          if (states !== undefined && Object.keys(states).length === 0)
            await server.write([{ keyPath: "hooks.state", value: null, mergeStrategy: "replace" }]);
        }
      }
      return { ...report, changes, notes };
    } catch (error) {
      return { ...report, notes: [failed(error)] };
    }
  } finally {
    clearTimeout(timer);
    server?.close();
  }
}

/**
 * The `/guard` switches, kept beside opencode's own data so that a session's switch is found
 * without reading its whole history: `$XDG_DATA_HOME/opencode/compaction-guard/switches.json`,
 * else `$HOME/.local/share/opencode/…` (opencode's data folder, xdg-basedir on every platform).
 * One JSON object, session ID → `"off" | "on" | "observe"`, the newest {@link MAX_KEPT} kept.
 * The session's history still holds each switch (the answer the command writes); this file
 * only spares reading all of it.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { SessionMode } from "./guard-command.js";

/** Sessions whose switch the file keeps (the newest). */
const MAX_KEPT = 1_000;

const MODES: ReadonlySet<unknown> = new Set<SessionMode>(["off", "on", "observe"]);

/**
 * The switch file for `env`, read from `env` only (a caller that passes no home keeps no file);
 * undefined when it names neither `XDG_DATA_HOME` nor a home.
 */
export function switchFilePath(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const home = env.HOME || env.USERPROFILE || undefined;
  const base = env.XDG_DATA_HOME ? env.XDG_DATA_HOME : home ? join(home, ".local", "share") : undefined;
  return base === undefined ? undefined : join(resolve(base), "opencode", "compaction-guard", "switches.json");
}

/** The switches kept in one file. */
export interface SwitchFile {
  /** The session's switch in the file, or null when it has none. Rejects when the file exists but cannot be read or parsed. */
  read(sessionID: string): Promise<SessionMode | null>;
  /** Records the session's switch (read, merged, written whole through a rename). Rejects when it cannot be written. */
  write(sessionID: string, mode: SessionMode): Promise<void>;
}

/** The switches in `file` (none when it does not exist); rejects when it cannot be read or is no JSON object. */
async function load(file: string): Promise<Record<string, SessionMode>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`${file}: not a JSON object`);
  return Object.fromEntries(Object.entries(parsed).filter(([, mode]) => MODES.has(mode))) as Record<string, SessionMode>;
}

/** The switch file at `file`; with no file (undefined), switches are kept for this process only. */
export function createSwitchFile(file: string | undefined): SwitchFile {
  if (file === undefined) return { read: async () => null, write: async () => {} };
  // Writes in this process run one after another, so that none is lost.
  let writing: Promise<void> = Promise.resolve();
  return {
    read: async (sessionID) => (await load(file))[sessionID] ?? null,
    write: (sessionID, mode) => {
      const next = writing.then(async () => {
        const kept = await load(file).catch(() => ({}));
        delete (kept as Record<string, SessionMode>)[sessionID];
        const entries = [...Object.entries(kept), [sessionID, mode] as const].slice(-MAX_KEPT);
        await mkdir(dirname(file), { recursive: true });
        const temporary = `${file}.${process.pid}.tmp`;
        await writeFile(temporary, `${JSON.stringify(Object.fromEntries(entries))}\n`);
        await rename(temporary, file);
      });
      writing = next.catch(() => undefined);
      return next;
    },
  };
}

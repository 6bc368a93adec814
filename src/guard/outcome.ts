/**
 * What a script sees when the guard stops a session: under `opencode run` (no TUI, no toast
 * anyone reads) one fixed line on standard error, `compaction-guard: stopped <sessionID>
 * (<rule>)`; and with the `statusFile` setting a small JSON status written to that file at each
 * stop, atomically (a temporary file beside it, then a rename), so a reader never sees half of
 * one. A failing write is one warn line; nothing here throws.
 */
import { randomBytes } from "node:crypto";
import { rename, unlink, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { GuardSettings } from "../config/settings.js";
import { reason, type Log } from "./host.js";

/**
 * Is this process `opencode run`? Two facts say so (both checked in opencode 1.18.33): opencode
 * sets `OPENCODE_PID` to its own pid at start-up (its children inherit it with another pid, so
 * it names the opencode process itself, not a test runner or a tool it started), and it runs
 * plugins in the process that parsed its command line, where `run` is the first word that is no
 * flag (`["bun", <its bundled src/index.js>, "run", "--print-logs", …]`; the TUI runs them in
 * a worker whose command line is `["bun", <its bundled src/cli/tui/worker.js>]`, `serve` has
 * its own word). Other signals fail: `opencode run` answers `tui.showToast` with `data:
 * true` as the TUI does, and standard error is a terminal, or not, in both. (`run --attach`
 * sends the prompt to another opencode's server: its plugins run there, under that process's
 * command line, and write nothing to the run's standard error.)
 */
export function isHeadlessRun(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, pid: number): boolean {
  return env.OPENCODE_PID === String(pid) && argv.slice(2).find((word) => !word.startsWith("-")) === "run";
}

/** The stop line on standard error (no newline). */
export const stoppedLine = (sessionID: string, rule: string): string => `compaction-guard: stopped ${sessionID} (${rule})`;

/** The JSON the status file holds after a stop. */
export interface StopStatus {
  readonly session: string;
  readonly decision: "deny";
  /** The rule that stopped it (`tool-loop` for the tool-loop check's stop). */
  readonly rule: string;
  /** The compaction's index among the session's automatic compactions; null when not known (or no compaction: a tool loop). */
  readonly compaction: number | null;
  /** When, ISO 8601. */
  readonly time: string;
}

/**
 * Writes `text` to `path` atomically: a temporary file in the same folder, then a rename over
 * `path`. Rejects when either fails (the temporary file is removed then).
 */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(temporary, text, { mode: 0o644 });
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** What the outcome takes from the guard. */
export interface OutcomeDeps {
  readonly settings: Pick<GuardSettings, "statusFile" | "notify">;
  /** The folder a relative `statusFile` is read from (opencode's project directory); default the working directory. */
  readonly directory: string | undefined;
  readonly log: Log;
  /** Is this `opencode run` ({@link isHeadlessRun} of this process by default)? */
  readonly headless?: boolean;
  /** Writes one line to standard error (default `process.stderr`). */
  readonly writeErr?: (line: string) => void;
  /** The clock (default `new Date()`). */
  readonly now?: () => Date;
}

/** Reports stops. */
export interface Outcome {
  /**
   * One stop that took effect (enforce mode, a loop): under `opencode run` the stop line on
   * standard error (none with `notify: "off"`), and with a `statusFile` the status written there.
   * Never rejects; a failed write is one warn line.
   */
  readonly stopped: (sessionID: string, rule: string, compaction: number | null) => Promise<void>;
}

/** Builds the outcome of one guard. */
export function createOutcome(deps: OutcomeDeps): Outcome {
  const headless = deps.headless ?? isHeadlessRun(process.argv, process.env, process.pid);
  const writeErr = deps.writeErr ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const file = deps.settings.statusFile === "" ? undefined : resolve(deps.directory ?? process.cwd(), deps.settings.statusFile);
  const stopped: Outcome["stopped"] = async (sessionID, rule, compaction) => {
    try {
      if (headless && deps.settings.notify !== "off") writeErr(stoppedLine(sessionID, rule));
    } catch {
      // Standard error is gone: nowhere left to say it.
    }
    if (file === undefined) return;
    const status: StopStatus = {
      session: sessionID,
      decision: "deny",
      rule,
      compaction,
      time: (deps.now ?? (() => new Date()))().toISOString(),
    };
    try {
      await writeAtomically(file, `${JSON.stringify(status)}\n`);
    } catch (error) {
      await deps.log("warn", `compaction-guard could not write its status file ${file}: ${reason(error)}`, { sessionID });
    }
  };
  return { stopped };
}

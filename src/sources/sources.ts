/**
 * Every way sessions come in for `audit`, as one sequence: the export files among paths, or
 * the sessions of the user's own opencode read through `opencode serve`.
 */
import { setImmediate } from "node:timers/promises";
import type { SessionData } from "../model/session.js";
import type { SessionInputs } from "../judge/verdict.js";
import type { GuardSettings } from "../config/settings.js";
import { ExportError, readExport, unexpectedReadError } from "./export.js";
import { findExports } from "./files.js";
import { opencodeInputs, type ModelLimits } from "../hosts/opencode/facts.js";
import type { KnownLimits } from "../hosts/opencode/limits.js";

/** What a session's decisions depend on besides its history, as the command line gives it: settings, and opencode's limits and `compaction.reserved`. */
export interface SessionDecisionOptions {
  readonly settings: GuardSettings;
  /** The model's limits (tokens), when known. */
  readonly limits?: Partial<ModelLimits> | undefined;
  /** opencode's `compaction.reserved` (tokens), when set. */
  readonly reserved?: number | undefined;
}

/**
 * The judge's inputs for one session: the usable context of the flags' limits, else the
 * context size (tokens) at which its agent compacts when its transcript tells, else of
 * `options`' limits; opencode's facts (what opencode sends after a compaction).
 */
export function sessionInputs(session: SessionData, options: SessionDecisionOptions): SessionInputs<GuardSettings> {
  const flagged = options.limits?.context !== undefined || options.limits?.input !== undefined;
  if (flagged || typeof session.usable !== "number")
    return { settings: options.settings, ...opencodeInputs(options.limits, options.reserved) };
  // The transcript's line, as an input limit with nothing reserved.
  return { settings: options.settings, ...opencodeInputs({ context: session.usable, input: session.usable }, 0) };
}

/**
 * A session to audit, or an input that was skipped (one line why; `counted`: it is one of the
 * source's `total`). `known`: what opencode knows to decide the session (read through opencode
 * only; the flags still win, see {@link sessionDecision}).
 */
export type SessionItem =
  | { readonly kind: "session"; readonly session: SessionData; readonly source: string; readonly known?: KnownLimits }
  | { readonly kind: "skipped"; readonly line: string; readonly counted: boolean };

/** A sequence of sessions to audit, with how many there are (for the progress bar). */
export interface SessionSource {
  readonly total: number;
  /** What `total` counts, for the progress bar: "files" or "sessions". */
  readonly unit: string;
  items(): AsyncGenerator<SessionItem>;
  /** `warning: …` lines (no newline) about what the source could not read, once its items are read. */
  warnings(): readonly string[];
  /** Lines (no newline) to say before anything is read, e.g. `no export files found in <folder>`. */
  readonly notes: readonly string[];
  close(): Promise<void>;
}

/**
 * The export files among `paths` (folders listed first, so the total is known); `-` is
 * standard input. A folder's files that are not `*.json` are counted in one note, not read.
 * @param agentFolder `paths` is that agent's own folder (`audit --agent`): an empty folder gets
 *   no note, the caller says it in the agent's words.
 */
export async function exportFiles(paths: readonly string[], recursive: boolean, agentFolder = false): Promise<SessionSource> {
  const files: string[] = [];
  const skipped: string[] = [];
  const notes: string[] = [];
  const warnings: string[] = [];
  let passed = 0;
  for await (const found of findExports(paths, { recursive })) {
    if (found.kind === "file") files.push(found.path);
    else if (found.kind === "passed") passed += 1;
    else if (found.kind === "empty") {
      if (!agentFolder) notes.push(`no export files found in ${found.folder}`);
    } else skipped.push(found.line);
  }
  if (passed > 0)
    notes.push(
      `passed over ${passed === 1 ? "1 file" : `${passed} files`} in the folders given: only *.json and *.jsonl files are read there`,
    );
  async function* items(): AsyncGenerator<SessionItem> {
    for (const line of skipped) yield { kind: "skipped", line, counted: false };
    for (const path of files) {
      // readExport reads a file with synchronous calls: a turn of the event loop before each
      // lets a signal's handler (Ctrl-C) and the progress bar's redraw run between files.
      await setImmediate();
      let session: SessionData;
      try {
        session = await readExport(path);
      } catch (error) {
        // Whatever goes wrong with one file passes that file over, named; the others are read.
        const problem = error instanceof ExportError ? error : unexpectedReadError(path === "-" ? "<stdin>" : path, error);
        yield { kind: "skipped", line: problem.message, counted: true };
        continue;
      }
      if (session.passedOver !== undefined) warnings.push(`warning: ${path === "-" ? "<stdin>" : path}: ${session.passedOver}`);
      yield { kind: "session", session, source: path };
    }
  }
  return { total: files.length, unit: "files", items, warnings: () => warnings, notes, close: async () => undefined };
}

/**
 * The sessions of the user's opencode, read through `<bin> serve` (./opencode.ts, loaded
 * only here), each with what opencode knows to decide it: its model's limits unless the
 * command line gives limits, `compaction.reserved` unless it gives `--reserved`.
 */
export async function opencodeSessions(
  bin: string,
  env: Readonly<Record<string, string | undefined>>,
  since: number | null,
  flags: SessionDecisionOptions,
  beforeExit: () => void,
): Promise<SessionSource> {
  const { openOpencode } = await import("./opencode.js");
  const opened = await openOpencode(bin, env, {
    since,
    limits: flags.limits?.context === undefined,
    reserved: flags.reserved === undefined,
    beforeExit,
  });
  async function* items(): AsyncGenerator<SessionItem> {
    for await (const item of opened.items()) {
      yield item.kind === "session"
        ? { kind: "session", session: item.session, source: "opencode", known: item.known }
        : { ...item, counted: true };
    }
  }
  return {
    total: opened.total,
    unit: "sessions",
    items,
    warnings: () => opened.warnings,
    notes: [],
    close: () => opened.close(),
  };
}

/**
 * The decision inputs of one session read through opencode. The command line's flags win,
 * and apply to every session: `--context-limit`/`--output-limit`/`--input-limit` replace the
 * model's limits as a whole (also for a model opencode does not know), `--reserved` replaces
 * the config's `compaction.reserved`; each of the two independently. Without a flag, the
 * session's model's limits as opencode lists them, and the config's `compaction.reserved`.
 * @param flags the decision inputs from the command line (limits `{}` when no limit flag is given).
 * @param known what opencode knows for this session.
 */
export function sessionDecision(flags: SessionDecisionOptions, known: KnownLimits): SessionDecisionOptions {
  const flagLimits = flags.limits?.context !== undefined;
  return {
    settings: flags.settings,
    limits: flagLimits ? flags.limits : (known.limits ?? {}),
    reserved: flags.reserved ?? known.reserved,
  };
}

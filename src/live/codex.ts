/**
 * The guard inside Codex (the `codex` CLI, 0.169), through Codex's own command hooks. Codex
 * runs `opencode-compaction-guard hook codex` with one JSON object on standard input per
 * event; the two events the guard listens to:
 *
 * - `SessionStart` with `source: "compact"`: Codex fires it right after each compaction,
 *   before the next model request. The guard decides the compaction just made from the
 *   rollout on disk (./latest.ts: the verdict `replay` gives it). Allowed: the reply's
 *   `hookSpecificOutput.additionalContext` is added to the model's context, the guard's note
 *   of what the session already completed (guard/ledger.ts). Denied: `continue: false` with
 *   `stopReason` and `systemMessage`: Codex stops the turn there.
 * - `PreToolUse`: before each tool call. When the decision at the latest automatic compaction
 *   stops the session and the user has not spoken since, the call is blocked (`permissionDecision: "deny"`, the
 *   reason goes to the model as the call's result). Codex 0.169 rejects `continue: false`
 *   from this hook, so it cannot stop the turn itself.
 *
 * The rollout is found by the hook's `transcript_path`, else by `session_id` under
 * `$CODEX_HOME/sessions`. Every failure answers "go on" with one line on standard error.
 * Installing: ./codex-hooks.ts (hooks.json) and ./codex-trust.ts (Codex's trust records).
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadSettingsFiles } from "../config/file.js";
import { continueNoteBefore } from "../guard/prevention.js";
import { describeEvidence, nextSteps } from "../judge/explain.js";
import type { Verdict } from "../judge/verdict.js";
import { resolveSettings, type GuardSettings } from "../config/settings.js";
import type { SessionData } from "../model/session.js";
import { terminalSafe } from "../redact/terminal-safe.js";
import { isRecord } from "../shared/record.js";
import { readExport } from "../sources/export.js";
import { sessionInputs } from "../sources/sources.js";
import type { AgentLive, HookReply, LiveContext } from "./agent.js";
import { codexHome, hooksFile, installHooks, uninstallHooks } from "./codex-hooks.js";
import { withCodexTrust } from "./codex-trust.js";
import { decideLatest } from "./latest.js";
import { CODEX_WORDS } from "../hosts/codex/words.js";

/** The hook events the guard answers, as Codex names them in `hook_event_name`. */
export const CODEX_EVENTS = ["SessionStart", "PreToolUse"] as const;

/** One hook invocation's input, as far as the guard reads it. */
export interface CodexHookInput {
  readonly event: string;
  readonly sessionID: string;
  /** The rollout's path, when Codex gave one (it is null for an ephemeral session). */
  readonly transcriptPath: string | null;
  /** The session's working directory (where the project's settings file is looked for). */
  readonly cwd: string | null;
  /** `SessionStart` only: `startup`, `resume`, `clear`, `compact` or `fork`. */
  readonly source: string | null;
}

/** A hook input the guard cannot read: its message is one line. */
export class CodexHookInputError extends Error {}

/**
 * The fields the guard reads from a Codex hook input (pre-tool-use.command.input and
 * session-start.command.input of Codex's hook schemas).
 * @throws CodexHookInputError when `input` is not an object with `hook_event_name` and `session_id` strings.
 */
export function codexHookInput(input: unknown): CodexHookInput {
  if (!isRecord(input)) throw new CodexHookInputError("the hook input is not a JSON object");
  const event = input.hook_event_name;
  const sessionID = input.session_id;
  if (typeof event !== "string") throw new CodexHookInputError("the hook input has no hook_event_name");
  if (typeof sessionID !== "string" || sessionID === "") throw new CodexHookInputError("the hook input has no session_id");
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : null);
  return { event, sessionID, transcriptPath: text(input.transcript_path), cwd: text(input.cwd), source: text(input.source) };
}

/** How many day folders (`sessions/YYYY/MM/DD`) are searched for a rollout by id, newest first. */
const DAYS_SEARCHED = 62;

/** Folder names in `dir`, newest (largest) first; none when it cannot be read. */
function foldersNewestFirst(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
      .reverse();
  } catch {
    return [];
  }
}

/**
 * The rollout file of session `id` under `sessions` (`YYYY/MM/DD/rollout-<time>-<id>.jsonl`),
 * searching the newest {@link DAYS_SEARCHED} day folders; null when none is found.
 */
export function findRollout(sessions: string, id: string): string | null {
  let days = 0;
  for (const year of foldersNewestFirst(sessions))
    for (const month of foldersNewestFirst(join(sessions, year)))
      for (const day of foldersNewestFirst(join(sessions, year, month))) {
        if (++days > DAYS_SEARCHED) return null;
        const dir = join(sessions, year, month, day);
        let names: string[];
        try {
          names = readdirSync(dir);
        } catch {
          continue;
        }
        const found = names.find((name) => name.startsWith("rollout-") && name.endsWith(`${id}.jsonl`));
        if (found !== undefined) return join(dir, found);
      }
  return null;
}

/** The settings as the opencode plugin reads them: defaults < global file < project file (from `cwd`) < `OPENCODE_COMPACTION_GUARD_*`. */
function settingsOf(context: LiveContext, cwd: string, warn: (line: string) => void): GuardSettings {
  const resolved = resolveSettings(undefined, context.env, { files: loadSettingsFiles(context.env, cwd) });
  for (const problem of resolved.problems) warn(`warning: ${problem}`);
  return resolved.settings;
}

/** The stop's reason in words: the rule, its evidence and what to do next, in Codex's words (hosts/codex/words.ts). */
export function stopReason(verdict: Verdict): string {
  return terminalSafe(
    `Compaction loop stopped by compaction-guard at compaction ${verdict.compaction.index}: ${verdict.rule}: ${describeEvidence(verdict, CODEX_WORDS)}. ${nextSteps(verdict, CODEX_WORDS)}`.trim(),
  );
}

const GO_ON: HookReply = { stdout: null, stderr: null, exitCode: 0 };

/** "Go on" with one line on standard error (Codex shows a hook's stderr in its log). */
const goOnWith = (line: string): HookReply => ({ stdout: null, stderr: `${terminalSafe(line)}\n`, exitCode: 0 });

/** The reply to `SessionStart` after a compaction: the note of what already completed. */
function noteReply(session: SessionData): HookReply {
  const { timeline } = session;
  const last = timeline.compactions.at(-1);
  if (last === undefined) return GO_ON;
  const note = continueNoteBefore(timeline, last.position, { directory: session.record.directory, wholeSession: true });
  return {
    stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: note } }),
    stderr: null,
    exitCode: 0,
  };
}

/** The reply at a stop: at `PreToolUse` the call blocked with the reason, at `SessionStart` the turn stopped. */
function denyReply(verdict: Verdict, event: string): HookReply {
  const reason = stopReason(verdict);
  const body =
    event === "PreToolUse"
      ? { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } }
      : { continue: false, stopReason: reason, systemMessage: reason };
  return {
    stdout: JSON.stringify(body),
    stderr: null,
    exitCode: 0,
  };
}

async function handle(input: unknown, context: LiveContext): Promise<HookReply> {
  const warnings: string[] = [];
  const withWarnings = (reply: HookReply): HookReply =>
    warnings.length === 0 ? reply : { ...reply, stderr: `${warnings.map((w) => terminalSafe(w)).join("\n")}\n${reply.stderr ?? ""}` };
  try {
    const hook = codexHookInput(input);
    const afterCompaction = hook.event === "SessionStart" && hook.source === "compact";
    if (!afterCompaction && hook.event !== "PreToolUse") return GO_ON;
    const settings = settingsOf(context, hook.cwd ?? context.cwd, (line) => warnings.push(line));
    if (!settings.enabled) return withWarnings(GO_ON);
    const path = hook.transcriptPath ?? findRollout(join(codexHome(context), "sessions"), hook.sessionID);
    if (path === null || !existsSync(path))
      return withWarnings(goOnWith(`compaction-guard: no rollout for Codex session ${hook.sessionID}; Codex goes on unguarded`));
    const session = await readExport(path);
    if (session.timeline.compactions.length === 0) return withWarnings(GO_ON);
    const latest = decideLatest(session, sessionInputs(session, { settings }));
    if (!latest?.stops) return withWarnings(afterCompaction && settings.prevent ? noteReply(session) : GO_ON);
    if (latest.response.observe)
      return withWarnings(
        goOnWith(`compaction-guard would have stopped Codex session ${hook.sessionID} (observe mode): ${stopReason(latest.verdict)}`),
      );
    return withWarnings(denyReply(latest.verdict, hook.event));
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
    return withWarnings(goOnWith(`compaction-guard: ${message}; Codex goes on unguarded`));
  }
}

/** Codex's live guard: its hook handler and the installer of its hooks. */
export const live: AgentLive = {
  agent: "codex",
  handle,
  // Codex's own trust records follow each edit of hooks.json (./codex-trust.ts).
  install: (scope, command, context) =>
    withCodexTrust(hooksFile(scope, context), command, context, () => installHooks(scope, command, context)),
  uninstall: (scope, context) => withCodexTrust(hooksFile(scope, context), undefined, context, () => uninstallHooks(scope, context)),
};

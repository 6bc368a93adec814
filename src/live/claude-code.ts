/**
 * The guard inside Claude Code, through its `settings.json` hooks (measured with Claude Code
 * 2.1.328, docs/other-agents.md):
 *
 * - `SessionStart` with source `compact` (after every compaction): the continue note
 *   (guard/ledger.ts, the one opencode's continue turn gets) as `additionalContext`, which
 *   Claude Code hands the model as a system reminder. 2.1.328 runs this hook before it writes
 *   the compaction to the transcript (measured: the transcript at that moment ends with the
 *   last tool result before it), so the note covers the whole transcript on disk, and the
 *   compaction just made cannot be judged here. Its `continue: false` is ignored by 2.1.328,
 *   so this hook never stops anything.
 * - `PreToolUse` (every tool): when the decision at the session's latest automatic compaction
 *   (./latest.ts: the verdict `replay` gives it) stops the session, and no person spoke since,
 *   the call is refused (`permissionDecision: deny`, the reason for the model) and the turn
 *   stopped (`continue: false`, `stopReason`; `systemMessage` for the user).
 *
 * Stateless: each invocation reads the transcript at `transcript_path`. Never throws: bad
 * input or an unreadable transcript answers "go on" with one warning line on stderr.
 */
import { readFile, mkdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type * as Jsonc from "jsonc-parser";
import { loadSettingsFiles } from "../config/file.js";
import { continueNoteBefore } from "../guard/prevention.js";
import { describeEvidence, nextSteps } from "../judge/explain.js";
import type { Verdict } from "../judge/verdict.js";
import { resolveSettings, type GuardSettings } from "../config/settings.js";
import type { SessionData } from "../model/session.js";
import { redactSecrets } from "../redact/secrets.js";
import { isRecord } from "../shared/record.js";
import type { AgentLive, HookReply, InstallReport, InstallScope, LiveContext } from "./agent.js";
import { edited, handlerPositions, withoutHandlers } from "./hook-groups.js";
import { decideLatest, type LatestDecision } from "./latest.js";
import { transcriptRecord } from "../hosts/transcript.js";
import { readClaudeCode } from "../hosts/claude-code/index.js";
import { CLAUDE_CODE_WORDS } from "../hosts/claude-code/words.js";

/** How the judge reads a Claude Code session's host facts (the same as `replay`'s: no continue text). */
const FACTS = { source: "claude-code 2.1.328", afterCompaction: [] as const };

/** Ends every hook command the installer writes: a shell comment that marks the entry as the guard's. */
export const HOOK_MARK = "# opencode-compaction-guard";

/** Seconds Claude Code waits for one hook before it goes on without it. */
const HOOK_TIMEOUT_S = 30;

/** The hook events installed, with their matcher: SessionStart only after a compaction, PreToolUse for every tool. */
const EVENTS = [
  { event: "SessionStart", matcher: "compact" },
  { event: "PreToolUse", matcher: "*" },
] as const;

const GO_ON: HookReply = { stdout: null, stderr: null, exitCode: 0 };

const warn = (line: string): HookReply => ({
  stdout: null,
  stderr: `compaction-guard: ${redactSecrets(line).split("\n")[0]!.slice(0, 300)}\n`,
  exitCode: 0,
});

const json = (value: unknown): HookReply => ({ stdout: `${JSON.stringify(value)}\n`, stderr: null, exitCode: 0 });

/** The hook input's fields the guard reads (Claude Code 2.1.x: `hook_event_name`, `transcript_path`, `cwd`, `source`). */
interface HookInput {
  readonly event: string;
  readonly transcript: string;
  readonly cwd: string;
  readonly source: string | undefined;
}

function hookInput(input: unknown): HookInput | string {
  if (!isRecord(input)) return "hook input is not a JSON object";
  const { hook_event_name: event, transcript_path: transcript, cwd, source } = input;
  if (typeof event !== "string") return "hook input has no hook_event_name";
  if (typeof transcript !== "string" || transcript === "") return `${event} hook input has no transcript_path`;
  return { event, transcript, cwd: typeof cwd === "string" ? cwd : "", source: typeof source === "string" ? source : undefined };
}

/** The session as `replay` reads it, from the transcript's text. */
function sessionOf(text: string, fallbackID: string): SessionData {
  const read = readClaudeCode(text, fallbackID);
  return { record: transcriptRecord(read), timeline: read.timeline, unphysicalTokens: 0, agent: read.agent, usable: read.usable };
}

/** The decision at the session's latest automatic compaction (undefined: none), with Claude Code's facts and stop. */
const decideNow = (session: SessionData, settings: GuardSettings): LatestDecision | undefined =>
  decideLatest(session, { settings, usable: session.usable ?? null, facts: FACTS });

/** The one line the user reads at a stop, in Claude Code's words (hosts/claude-code/words.ts). */
function stopLine(verdict: Verdict): string {
  return (
    `Compaction loop stopped by compaction-guard after compaction ${verdict.compaction.index}: ${verdict.rule}: ${describeEvidence(verdict, CLAUDE_CODE_WORDS)}. ` +
    `Next: ${nextSteps(verdict, CLAUDE_CODE_WORDS)}`
  );
}

/**
 * The reply to `SessionStart` (source `compact`): the continue note of what the whole
 * transcript on disk already completed, and, when a compaction on disk is already denied
 * (a Claude Code that writes the compaction before this hook runs), the warning that the next
 * tool call will be refused. Nothing when there is nothing to say.
 */
function sessionStartReply(session: SessionData, compacted: boolean, settings: GuardSettings): HookReply {
  const { timeline, record } = session;
  const note = settings.prevent
    ? continueNoteBefore(timeline, timeline.entries.length, { directory: record.directory, wholeSession: true })
    : null;
  const latest = compacted ? decideNow(session, settings) : undefined;
  const warning =
    latest?.stops && latest.response.halt
      ? `[compaction-guard] This session loops (${latest.verdict.rule}): its next tool call will be refused and the turn stopped. Tell the user what was already done and stop.`
      : null;
  const context = [note, warning].filter((t): t is string => t !== null).join("\n");
  if (context === "") return GO_ON;
  return json({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: context } });
}

/** Answers one hook invocation (see the file's head). */
async function handle(input: unknown, context: LiveContext): Promise<HookReply> {
  try {
    const hook = hookInput(input);
    if (typeof hook === "string") return warn(`${hook}; going on without the guard`);
    const compactStart = hook.event === "SessionStart" && hook.source === "compact";
    if (!compactStart && hook.event !== "PreToolUse") return GO_ON;
    const cwd = hook.cwd || context.cwd;
    const resolved = resolveSettings(undefined, context.env, { files: loadSettingsFiles(context.env, cwd) });
    const { settings } = resolved;
    if (!settings.enabled) return GO_ON;
    let text: string;
    try {
      text = await readFile(hook.transcript, "utf8");
    } catch (error) {
      return warn(`cannot read the transcript ${hook.transcript} (${(error as NodeJS.ErrnoException).code ?? "error"}); going on`);
    }
    const compacted = text.includes("compact_boundary") || text.includes("isCompactSummary");
    if (compactStart) return sessionStartReply(sessionOf(text, "claude-code"), compacted, settings);
    // Most tool calls come before any compaction: nothing to judge then.
    if (!compacted) return GO_ON;
    const latest = decideNow(sessionOf(text, "claude-code"), settings);
    if (!latest?.stops) return GO_ON;
    const line = stopLine(latest.verdict);
    if (latest.response.observe) return json({ systemMessage: `(observe mode: it goes on) ${line}` });
    return json({
      continue: false,
      stopReason: line,
      systemMessage: line,
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: `${line} Do not retry this call; stop and tell the user.`,
      },
    });
  } catch (error) {
    return warn(`internal error: ${error instanceof Error ? error.message : String(error)}; going on without the guard`);
  }
}

/** jsonc-parser, required on first use (src/config/file.ts does the same). */
let parser: typeof Jsonc | undefined;
const jsonc = (): typeof Jsonc => (parser ??= createRequire(import.meta.url)("jsonc-parser") as typeof Jsonc);

/** The settings file of a scope: `$CLAUDE_CONFIG_DIR/settings.json` (default `~/.claude`), or the project's `.claude/settings.json`. */
export function settingsFile(scope: InstallScope, context: LiveContext): string {
  if (scope === "project") return join(context.cwd, ".claude", "settings.json");
  return join(context.env.CLAUDE_CONFIG_DIR || join(context.home, ".claude"), "settings.json");
}

/** Is this hook entry (`{ type, command }`) one the installer wrote? */
const isOurs = (hook: unknown): boolean => isRecord(hook) && typeof hook.command === "string" && hook.command.endsWith(HOOK_MARK);

/** Reads a settings file: its text ("{}" when missing), parsed object, and whether it exists. @throws Error one line when it is no JSON object. */
async function readSettings(file: string): Promise<{ text: string; value: Record<string, unknown>; exists: boolean }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { text: "{}\n", value: {}, exists: false };
    throw new Error(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  const value = parseSettings(text);
  if (value === undefined) throw new Error(`${file}: not a JSON object; fix it or move it away, then run this again`);
  if (value.hooks !== undefined && !isRecord(value.hooks)) throw new Error(`${file}: "hooks" is not an object`);
  return { text: text.trim() === "" ? "{}\n" : text, value, exists: true };
}

/** A settings text's object (comments and trailing commas allowed, as Claude Code reads it), or undefined. */
function parseSettings(text: string): Record<string, unknown> | undefined {
  const errors: Jsonc.ParseError[] = [];
  const value: unknown = jsonc().parse(text, errors, { allowTrailingComma: true });
  return errors.length > 0 || !isRecord(value) ? undefined : value;
}

/** The matcher groups of `hooks.<event>` in a settings text ([] when none). */
function groupsOf(text: string, event: string): unknown[] {
  const hooks = parseSettings(text)?.hooks;
  const groups = isRecord(hooks) ? hooks[event] : undefined;
  return Array.isArray(groups) ? groups : [];
}

/**
 * Merges the guard's hooks into the scope's settings file: one group per event, appended after
 * the user's own (./hook-groups.ts: only that element of the text is written); idempotent. A new
 * file is written whole, two spaces a level.
 * @throws Error one line for a file that is no JSON object.
 */
async function install(scope: InstallScope, command: string, context: LiveContext): Promise<InstallReport> {
  const file = settingsFile(scope, context);
  const { text, exists } = await readSettings(file);
  const marked = `${command} ${HOOK_MARK}`;
  let next = text;
  const changes: string[] = [];
  for (const { event, matcher } of EVENTS) {
    const groups = groupsOf(next, event);
    const ours = handlerPositions(groups, isOurs);
    const entry = { matcher, hooks: [{ type: "command", command: marked, timeout: HOOK_TIMEOUT_S }] };
    const same = ours.length === 1 && JSON.stringify(groups[ours[0]!.group]) === JSON.stringify(entry);
    if (same) continue;
    next = withoutHandlers(next, event, groups, isOurs);
    next = edited(next, ["hooks", event, groupsOf(next, event).length], entry);
    changes.push(`${ours.length > 0 ? "replaced" : "added"} hooks.${event} (matcher ${JSON.stringify(matcher)}): ${marked}`);
  }
  if (changes.length > 0) {
    await mkdir(dirname(file), { recursive: true });
    const written = exists ? next : `${JSON.stringify(parseSettings(next), null, 2)}\n`;
    await writeFile(file, written.endsWith("\n") ? written : `${written}\n`);
  }
  return { file, changes };
}

/**
 * Removes exactly the entries {@link install} wrote (marked with {@link HOOK_MARK}), the groups
 * and keys they leave empty; the rest stays. A file left holding nothing (`{}`: it held only the
 * guard's hooks) is removed, as the Codex installer does.
 */
async function uninstall(scope: InstallScope, context: LiveContext): Promise<InstallReport> {
  const file = settingsFile(scope, context);
  const { text, value } = await readSettings(file);
  if (!isRecord(value.hooks)) return { file, changes: [] };
  let next = text;
  const changes: string[] = [];
  for (const event of Object.keys(value.hooks)) {
    const groups = groupsOf(next, event);
    if (handlerPositions(groups, isOurs).length === 0) continue;
    next = withoutHandlers(next, event, groups, isOurs);
    changes.push(`removed the guard's hook from hooks.${event}`);
  }
  if (changes.length === 0) return { file, changes };
  const after = parseSettings(next);
  if (isRecord(after?.hooks) && Object.keys(after.hooks).length === 0) next = edited(next, ["hooks"], undefined);
  const left = parseSettings(next);
  if (left !== undefined && Object.keys(left).length === 0) await rm(file, { force: true });
  else await writeFile(file, next.endsWith("\n") ? next : `${next}\n`);
  return { file, changes };
}

/** Claude Code's live guard. */
export const claudeCodeLive: AgentLive = { agent: "claude-code", handle, install, uninstall };
export default claudeCodeLive;

/**
 * The `/guard` command, pure part: what its arguments ask for, the per-session switch read
 * back from the session's own history, and the text of its answers. History in, text out;
 * the opencode glue is ./command.ts.
 *
 * The switch lives in the session: `/guard off|on|observe` leaves a user message holding one
 * text part with `ignored: true` (shown in the TUI, never sent to the model) whose
 * `metadata.compaction_guard.switch` names the mode. The newest such part wins, so the switch
 * survives compactions (opencode keeps every message) and restarts (it is stored with them).
 */
import { GUARD_NOTE_KEY } from "../../hosts/opencode/guard-note.js";
import { TOOL_LOOP_NOTICE_MARK } from "../../model/entry.js";
import type { Timeline } from "../../model/timeline.js";
import { decisionLines } from "../decisions.js";
import { completedCallsBefore, ledgerText } from "../../guard/ledger.js";
import { describeSettings, type ResolvedSettings } from "../../config/settings.js";
import { refusedRuns } from "../../judge/tool-loop.js";
import type { ReplayRow } from "../../guard/replay.js";
import { terminalSafe } from "../../redact/terminal-safe.js";
import { isRecord } from "../../shared/record.js";

/** The command's name: `/guard` in the TUI. */
export const GUARD_COMMAND = "guard";

/** What opencode lists next to the command in the TUI's autocomplete. */
export const GUARD_COMMAND_DESCRIPTION =
  "compaction-guard: what it did in this session; /guard stats for this project; /guard off|on|observe for this session only";

/**
 * The guard's mode in one session, set by `/guard …`: `off` (it neither denies nor warns
 * there), `on` (it stops loops there, whatever `mode` says), `observe` (as `mode: observe`).
 */
export type SessionMode = "off" | "on" | "observe";

const MODES: ReadonlySet<string> = new Set<SessionMode>(["off", "on", "observe"]);

/** What `/guard <arguments>` asks for. */
export type GuardRequest =
  | { readonly kind: "report" }
  | { readonly kind: "stats" }
  | { readonly kind: "switch"; readonly mode: SessionMode }
  | { readonly kind: "usage"; readonly problem: string };

/**
 * Reads the command's arguments (opencode's `arguments`: what follows `/guard`): nothing →
 * the report; `stats` → the project's figures (./stats.ts); `off`, `on`, `observe` (any case) →
 * the switch; anything else → a usage line.
 */
export function parseGuardArguments(text: string): GuardRequest {
  const words = text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return { kind: "report" };
  if (words.length === 1 && words[0] === "stats") return { kind: "stats" };
  if (words.length === 1 && MODES.has(words[0]!)) return { kind: "switch", mode: words[0] as SessionMode };
  return { kind: "usage", problem: `unknown argument ${JSON.stringify(terminalSafe(text.trim()).slice(0, 40))}` };
}

/** The switch found in a history: the mode and the message that set it. */
export interface FoundSwitch {
  readonly mode: SessionMode;
  readonly messageID: string;
}

/** The `metadata` of the text part a switch is written as. */
export function switchMetadata(mode: SessionMode): Record<string, unknown> {
  return { [GUARD_NOTE_KEY]: { switch: mode } };
}

/** The `metadata` of the text part a report is written as (nothing reads it back but a person). */
export function reportMetadata(): Record<string, unknown> {
  return { [GUARD_NOTE_KEY]: { command: GUARD_COMMAND } };
}

/** The switch a message sets (a user message with an ignored text part whose metadata names a mode), else undefined. */
function switchOf(message: unknown): FoundSwitch | undefined {
  if (!isRecord(message) || !isRecord(message.info) || message.info.role !== "user" || !Array.isArray(message.parts)) return undefined;
  const id = typeof message.info.id === "string" ? message.info.id : "";
  for (let i = message.parts.length - 1; i >= 0; i--) {
    const part: unknown = message.parts[i];
    if (!isRecord(part) || part.type !== "text" || part.ignored !== true || !isRecord(part.metadata)) continue;
    const mark = part.metadata[GUARD_NOTE_KEY];
    if (isRecord(mark) && typeof mark.switch === "string" && MODES.has(mark.switch))
      return { mode: mark.switch as SessionMode, messageID: id };
  }
  return undefined;
}

/**
 * The newest switch in `messages` (opencode's `{ info, parts }` list, oldest first), or
 * undefined when none of them holds one. Never throws.
 */
export function findSwitch(messages: readonly unknown[]): FoundSwitch | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const found = switchOf(messages[i]);
    if (found) return found;
  }
  return undefined;
}

/** The one line confirming a switch, as the session shows it. */
export function switchLine(mode: SessionMode): string {
  const what =
    mode === "off"
      ? "off in this session: it will not stop a loop or warn about one here; /guard on to undo"
      : mode === "on"
        ? "on in this session: it stops compaction loops here (mode enforce)"
        : "in observe mode in this session: it says where it would stop a loop, and lets it go on";
  return `compaction-guard is ${what}. (A note from the plugin: not sent to the model.)`;
}

/** The line answering arguments it does not know. */
export function usageLine(problem: string): string {
  return `compaction-guard: ${problem}. Use /guard (what it did in this session), /guard stats (this project), /guard off, /guard on or /guard observe.`;
}

/** The log line of a compaction left alone because the session is switched off. */
export function switchedOffLogMessage(sessionID: string): string {
  return `compaction-guard left session ${sessionID} alone: /guard off in that session; auto-continue left to opencode`;
}

/** What the report of one session is made of (./command.ts gathers it). */
export interface ReportInput {
  readonly sessionID: string;
  /** The whole session's timeline (`buildTimeline` of every message). */
  readonly timeline: Timeline;
  /** The same messages, raw: the tool outputs that carry the guard's notice. */
  readonly messages: readonly unknown[];
  /** The verdict at every automatic compaction (`replayTimeline` of the timeline). */
  readonly rows: readonly ReplayRow[];
  readonly resolved: Pick<ResolvedSettings, "settings" | "sources">;
  /** The session's switch, if one was set. */
  readonly switched: FoundSwitch | undefined;
  /** The project directory (previews show paths relative to it). */
  readonly directory?: string | undefined;
}

/** The tool-time notices the session carries: tool results with the guard's notice, and calls it refused. */
function toolTimeLines(input: ReportInput): string[] {
  const notices = new Map<string, number>();
  for (const message of input.messages) {
    if (!isRecord(message) || !Array.isArray(message.parts)) continue;
    for (const part of message.parts) {
      if (!isRecord(part) || part.type !== "tool" || !isRecord(part.state)) continue;
      const output = part.state.output;
      if (typeof output === "string" && output.includes(TOOL_LOOP_NOTICE_MARK)) {
        const tool = typeof part.tool === "string" ? part.tool : "a tool";
        notices.set(tool, (notices.get(tool) ?? 0) + 1);
      }
    }
  }
  const refused = new Map<string, number>();
  for (const entry of input.timeline.entries) {
    if (entry.kind !== "assistant") continue;
    for (const call of entry.toolCalls) if (refusedRuns(call) !== null) refused.set(call.tool, (refused.get(call.tool) ?? 0) + 1);
  }
  const list = (counts: Map<string, number>) => [...counts].map(([tool, n]) => `${tool} ×${n}`).join(", ");
  if (notices.size === 0 && refused.size === 0) return ["Tool-time notices: none."];
  return [
    `Tool-time notices: ${notices.size === 0 ? "none" : list(notices)} (the model was told a call repeated with the same result)` +
      (refused.size === 0 ? "." : `; calls refused: ${list(refused)}.`),
  ];
}

/** What prevention changed: summaries sent the ledger, continue turns sent as the note. */
function preventionLine(input: ReportInput): string {
  const { settings, sources } = input.resolved;
  if (!settings.prevent) return `Prevention: off (${sources.prevent}).`;
  const { timeline } = input;
  let ledgers = 0;
  for (const c of timeline.compactions) {
    const { calls } = completedCallsBefore(timeline, c.position, { directory: input.directory, wholeSession: true });
    if (ledgerText(calls, c.auto && !c.overflow) !== null) ledgers++;
  }
  const turns = timeline.entries.filter((e) => e.kind === "user" && e.role === "continue").length;
  if (ledgers === 0 && turns === 0) return `Prevention: on (${sources.prevent}); nothing to change yet.`;
  return (
    `Prevention: on (${sources.prevent}); ${ledgers} of ${timeline.compactions.length} summary requests were sent the list of calls already done, ` +
    `${turns} continue turn${turns === 1 ? " was" : "s were"} sent as the guard's note instead of opencode's text (in what the model read; the history is unchanged).`
  );
}

/** The session's mode, as the report's first line names it. */
function modeLine(input: ReportInput): string {
  const configured = input.resolved.settings.mode;
  if (input.switched === undefined)
    return `compaction-guard in this session: as configured (mode ${configured}); /guard off|on|observe changes it here.`;
  const mode = input.switched.mode;
  const now = mode === "off" ? "off" : mode === "on" ? "on (enforce)" : "observe";
  return `compaction-guard in this session: ${now}, set by /guard ${mode} (the settings say mode ${configured}).`;
}

/**
 * The text `/guard` shows: the session's mode, one line per automatic compaction (what the
 * guard decided and why, in the words of its note), the tool-time notices, the settings in
 * force with where each came from, and what prevention changed. Every line terminal-safe;
 * nothing raw from the session but redacted previews.
 */
export function guardReport(input: ReportInput): string {
  const rows = input.rows;
  const lines = [
    modeLine(input),
    rows.length === 0
      ? "Automatic compactions: none yet."
      : `Automatic compactions: ${rows.length}, ${rows.filter((r) => r.decision === "deny").length} with a rule that fired.`,
    ...decisionLines(input.timeline, rows).map((line) => `  ${line}`),
    ...toolTimeLines(input),
    `Settings: ${describeSettings(input.resolved)}.`,
    preventionLine(input),
    "(A note from the compaction-guard plugin: not sent to the model.)",
  ];
  return lines.map(terminalSafe).join("\n");
}

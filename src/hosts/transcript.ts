/**
 * What the Claude Code and Codex hosts share: the shape of a session read from an agent's
 * JSONL transcript, and reading its lines without ever throwing. Pure.
 */
import type { AssistantEntry, Entry, ToolCall, UserEntry } from "../model/entry.js";
import type { SessionRecord } from "../model/session.js";
import { timelineOf, type Timeline } from "../model/timeline.js";
import { redactedStart } from "../redact/secrets.js";
import { finiteOrNull } from "../shared/numbers.js";
import { isRecord } from "../shared/record.js";

/** The agents whose transcripts `replay` and `audit` read besides opencode's exports. */
export type TranscriptAgent = "claude-code" | "codex";

/** A session read from one agent's transcript file. */
export interface TranscriptSession {
  /**
   * `id`: the agent's session id; `title`: the first thing a person asked (at most 80
   * characters, "" when none); `directory`: the working directory the agent recorded;
   * `version`: the agent's version as the file records it; `parentID`: the main session's id
   * for a subagent's (sidechain) session; `time.created` / `time.updated`: ms since the epoch.
   */
  readonly info: {
    readonly id: string;
    readonly title: string;
    readonly directory?: string;
    readonly version?: string;
    readonly parentID?: string;
    readonly time: { readonly created?: number; readonly updated?: number };
  };
  readonly timeline: Timeline;
  readonly agent: TranscriptAgent;
  /**
   * Tokens: the context size at which the agent compacts on its own (Claude Code: the window
   * less 33,000; Codex: 90% of the model's window, see docs/audit.md), or null when the file
   * does not tell the window.
   */
  readonly usable: number | null;
  /**
   * The agent's turn goes on by itself after an automatic compaction and the guard stops a
   * loop right there, before the next model request (`SessionRecord.continueTurn`): true for
   * Codex, false for Claude Code, where the guard interrupts at the next tool call.
   */
  readonly continueTurn: boolean;
  /** Record kinds this reader does not know, each once, in the order met. */
  readonly unknownRecords: readonly string[];
  /** Lines that are not JSON objects (a torn last line, damage). */
  readonly badLines: number;
  /** Subagents' sessions found in the same file (Claude Code sidechains), each with `parentID`. */
  readonly subagents: readonly TranscriptSession[];
}

/** A transcript's session as a host-neutral record. */
export function transcriptRecord({ info, continueTurn }: Pick<TranscriptSession, "info" | "continueTurn">): SessionRecord {
  return {
    id: info.id,
    title: info.title,
    directory: info.directory,
    parent: info.parentID !== undefined && info.parentID !== "" ? info.parentID : null,
    created: finiteOrNull(info.time.created),
    updated: finiteOrNull(info.time.updated),
    continueTurn,
  };
}

/** A transcript could not be read at all: nothing in it is a record of the agent. One line. */
export class TranscriptError extends Error {}

/** The JSON objects of a JSONL text in order, and how many non-empty lines were not objects. */
export function jsonLines(text: string): { records: Record<string, unknown>[]; badLines: number } {
  const records: Record<string, unknown>[] = [];
  let badLines = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      badLines += 1;
      continue;
    }
    if (isRecord(value)) records.push(value);
    else badLines += 1;
  }
  return { records, badLines };
}

/** Collects unknown record kinds once each, in the order first met. */
export class UnknownKinds {
  private readonly seen = new Set<string>();
  /** Notes `kind` (at most 200 characters of it are kept). */
  add(kind: string): void {
    if (this.seen.size < 100) this.seen.add(kind.slice(0, 200));
  }
  list(): string[] {
    return [...this.seen];
  }
}

/** `value` when it is a string, else undefined. */
export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** A token count a model could have made: finite, > 0, at most 1e12; else 0. */
export const tokenCount = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 && value <= 1e12 ? value : 0;

/** Milliseconds since the epoch of an ISO timestamp, or undefined. */
export function timeOf(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * A session title: the first line of what a person asked, secrets masked (src/redact/secrets.ts;
 * unlike opencode's generated titles it is the person's own words), at most 80 characters.
 */
export const titleOf = (text: string): string => redactedStart((text.split("\n", 1)[0] ?? "").trim(), 80);

/** `input` with its snake_case keys written in camelCase (`file_path` → `filePath`), the rules' vocabulary. */
export function camelKeys(input: unknown): unknown {
  if (!isRecord(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) out[key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = value;
  return out;
}

/** An MCP tool's name as opencode writes it: `mcp__server__tool` → `server_tool`; other names unchanged. */
export const mcpName = (name: string): string => (name.startsWith("mcp__") ? name.slice(5).replace("__", "_") : name);

/**
 * The timeline of entries already classified ({@link timelineOf}), each person's message
 * first put where it set off a compaction (see below).
 */
export function transcriptTimeline(read: readonly Entry[]): Timeline {
  return timelineOf(promptsFirst(read));
}

/**
 * These agents compact before they send a prompt that would not fit: after a step that ended
 * the turn, a compaction followed by a person's message was set off by that message, though
 * the file writes the message after the summary. The message is moved before the compaction,
 * where the person spoke; the agent did not restart finished work on its own.
 */
function promptsFirst(read: readonly Entry[]): Entry[] {
  const entries = [...read];
  for (let i = 1; i + 2 < entries.length; i++) {
    const [before, compaction, summary, next] = [entries[i - 1]!, entries[i]!, entries[i + 1]!, entries[i + 2]!];
    if (compaction.kind !== "user" || compaction.role !== "compaction") continue;
    const endedTurn = before.kind === "assistant" && !before.summary && before.finish === "stop" && before.toolParts === 0;
    const summarized = summary.kind === "assistant" && summary.summary && summary.compactionID === compaction.id;
    if (endedTurn && summarized && next.kind === "user" && next.role === "real") entries.splice(i, 3, next, compaction, summary);
  }
  return entries;
}

/** A compaction message: what the agent recorded when it compacted (`auto`: set off by the agent itself; `time`: ms since the epoch, or null). */
export const compactionEntry = (id: string, auto: boolean, time: number | null): UserEntry => ({
  kind: "user",
  id,
  role: "compaction",
  text: "",
  auto,
  overflow: false,
  time,
});

/** The summary that finished compaction `compactionID`: `text` as the agent kept it, `tokens` its size when recorded (else 0). */
export const summaryEntry = (id: string, compactionID: string, text: string, tokens: number, time: number | null): AssistantEntry => ({
  kind: "assistant",
  id,
  summary: true,
  compactionID,
  succeeded: true,
  finish: "stop",
  contextTokens: null,
  promptTokens: null,
  outputTokens: tokens,
  model: null,
  toolCalls: [],
  toolParts: 0,
  text,
  empty: false,
  time,
});

/** A user message: `real` when a person wrote it, `synthetic` when the agent did; `time` ms since the epoch, or null. */
export function userEntry(id: string, text: string, role: "real" | "synthetic", time: number | null): UserEntry {
  return {
    kind: "user",
    id,
    role,
    text,
    auto: false,
    overflow: false,
    sentChars: text.length,
    sentBytes: Buffer.byteLength(text, "utf8"),
    unsized: false,
    time,
  };
}

/** What one model response held, as a host read it. Tokens: `prompt` what was sent, `output` what came back (0: not recorded). */
export interface StepParts {
  readonly id: string;
  readonly texts: readonly string[];
  readonly calls: readonly ToolCall[];
  /** Tool calls of any state, finished or not. */
  readonly toolParts: number;
  readonly prompt: number;
  readonly output: number;
  /** opencode's words (`stop`, `tool-calls`, `length`), or null when the file does not tell. */
  readonly finish: string | null;
  readonly model: string | null;
  /** Reasoning only was produced, or nothing. */
  readonly produced: boolean;
  readonly succeeded: boolean;
  /** When the response was recorded (ms since the epoch), or null. */
  readonly time: number | null;
}

/** A step (an assistant message) from what one model response held. */
export function stepEntry(step: StepParts): AssistantEntry {
  const context = step.prompt + step.output;
  return {
    kind: "assistant",
    id: step.id,
    summary: false,
    compactionID: undefined,
    succeeded: step.succeeded,
    finish: step.finish,
    contextTokens: context > 0 ? context : null,
    promptTokens: step.prompt > 0 ? step.prompt : context > 0 ? context : null,
    outputTokens: step.output,
    model: step.model,
    toolCalls: step.calls,
    toolParts: step.toolParts,
    text: step.texts.join("\n"),
    empty: !step.produced && step.toolParts === 0 && step.texts.length === 0,
    time: step.time,
  };
}

/** The text of a tool's result as agents record it: a string, or blocks with `text`, or anything else as JSON. */
export function resultText(content: unknown): unknown {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const texts = content.map((block) => (isRecord(block) ? str(block.text) : str(block))).filter((t): t is string => t !== undefined);
    if (texts.length > 0) return texts.join("\n");
  }
  return content;
}

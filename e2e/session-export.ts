/**
 * The few fields of an `opencode export <sessionID>` file (opencode 1.18.33) that the e2e
 * runs read, and the figures computed from them.
 */

/** One part of a message; only the fields read here are typed. */
export interface ExportPart {
  type: string;
  text?: string;
  synthetic?: boolean;
  /** Shown to the user, never sent to the model (the guard's note after it stopped a loop). */
  ignored?: boolean;
  metadata?: Record<string, unknown>;
  /** compaction parts */
  auto?: boolean;
  overflow?: boolean;
  /** tool parts */
  tool?: string;
  state?: { status?: string; input?: unknown; output?: unknown };
}

/** One message of the export. */
export interface ExportMessage {
  info: {
    id: string;
    role: "user" | "assistant";
    parentID?: string;
    agent?: string;
    summary?: unknown;
    finish?: string;
    error?: unknown;
    tokens?: { total?: number; input: number; output: number };
  };
  parts: ExportPart[];
}

/** What `opencode export` prints: `{ info, messages }`. */
export interface SessionExport {
  info: { id: string; directory?: string; title?: string };
  messages: ExportMessage[];
}

/** One automatic compaction and what followed it. */
export interface CompactionCycle {
  /** 1-based, in session order. */
  index: number;
  /** The id of the user message holding the `compaction` part. */
  messageID: string;
  /** Started by a provider context-overflow error rather than by opencode's own token check. */
  overflow: boolean;
  /** The summary (an assistant message with `summary: true` and this parent) finished without error. */
  summaryOk: boolean;
  /**
   * The next user message: opencode's synthetic continue turn, a replay of the last real user
   * message (overflow only), or nothing (the continue was denied, or the run ended; the guard's
   * note after a denial is no user turn).
   */
  next: "continue" | "replay" | "none";
  /** Whether opencode called `experimental.compaction.autocontinue` for it: summary ok, no replay. */
  hookCalled: boolean;
}

/** Figures read from one export. */
export interface ExportFigures {
  /** Automatic compactions: user messages holding a `compaction` part with `auto: true`. */
  compactionCycles: number;
  /** Each of them, in order. */
  compactions: CompactionCycle[];
  /** How many of them have `overflow: true` (started by a provider context-overflow error). */
  overflowCompactions: number;
  /** Synthetic continue turns: user text parts with `metadata.compaction_continue`. */
  continueTurns: number;
  /** Real user turns: user messages with a text part that is neither synthetic nor ignored (replays included). */
  realUserTurns: number;
  /** The guard's notes: user messages holding a text part with `metadata.compaction_guard` (see src/plugin/opencode-v1/guard.ts). */
  guardNotes: number;
  /** The text of the last assistant message that is not a compaction summary, or null. */
  finalAssistantText: string | null;
  /** The `finish` of that message, or null. */
  finalAssistantFinish: string | null;
  /** Tool calls made by the build agent, as `tool(input JSON)`, in order. */
  toolCalls: string[];
}

const isAutoCompaction = (p: ExportPart): boolean => p.type === "compaction" && p.auto === true;
const isContinue = (p: ExportPart): boolean => p.type === "text" && p.metadata?.compaction_continue === true;
/** A text part a person could have written: neither synthetic (opencode's, a tool's) nor ignored (never sent to the model). */
const isSpoken = (p: ExportPart): boolean => p.type === "text" && p.synthetic !== true && p.ignored !== true;
/** A text part of the guard's note after it stopped a loop. */
export const isGuardNote = (p: ExportPart): boolean => p.type === "text" && p.metadata?.compaction_guard !== undefined;

function cycle(messages: ExportMessage[], compaction: ExportMessage, index: number): CompactionCycle {
  const summary = messages.find((m) => m.info.role === "assistant" && m.info.summary === true && m.info.parentID === compaction.info.id);
  const summaryOk = summary !== undefined && typeof summary.info.finish === "string" && !summary.info.error;
  const after = summary ? messages.indexOf(summary) : messages.indexOf(compaction);
  const nextUser = messages.slice(after + 1).find((m) => m.info.role === "user");
  const next = !nextUser ? "none" : nextUser.parts.some(isContinue) ? "continue" : nextUser.parts.some(isSpoken) ? "replay" : "none";
  return {
    index,
    messageID: compaction.info.id,
    overflow: compaction.parts.some((p) => isAutoCompaction(p) && p.overflow === true),
    summaryOk,
    next,
    hookCalled: summaryOk && next !== "replay",
  };
}

/**
 * Count compaction cycles, continue turns, real user turns and tool calls in an export,
 * and find the final assistant answer.
 */
export function exportFigures(exp: SessionExport): ExportFigures {
  const compactionMessages = exp.messages.filter((m) => m.info.role === "user" && m.parts.some(isAutoCompaction));
  const assistants = exp.messages.filter((m) => m.info.role === "assistant" && !m.info.summary);
  const last = assistants.at(-1);
  const lastText =
    last?.parts
      .filter((p) => p.type === "text")
      .map((p) => p.text ?? "")
      .join("") ?? "";
  return {
    compactionCycles: compactionMessages.length,
    compactions: compactionMessages.map((m, i) => cycle(exp.messages, m, i + 1)),
    overflowCompactions: compactionMessages.filter((m) => m.parts.some((p) => isAutoCompaction(p) && p.overflow === true)).length,
    continueTurns: exp.messages.filter((m) => m.info.role === "user" && m.parts.some(isContinue)).length,
    realUserTurns: exp.messages.filter((m) => m.info.role === "user" && m.parts.some((p) => isSpoken(p) && !isContinue(p))).length,
    guardNotes: exp.messages.filter((m) => m.info.role === "user" && m.parts.some(isGuardNote)).length,
    finalAssistantText: last ? lastText : null,
    finalAssistantFinish: last?.info.finish ?? null,
    toolCalls: assistants.flatMap((m) =>
      m.parts.filter((p) => p.type === "tool").map((p) => `${p.tool}(${JSON.stringify(p.state?.input ?? null)})`),
    ),
  };
}

/** Path prefixes of a sandbox and what each becomes in a committed fixture. */
export type PathMap = Array<[from: string, to: string]>;

/**
 * Replace machine paths in an export with stable ones (longest first), in absolute form and
 * in the slash-less form opencode stores in `info.path` (e.g. `tmp/ocg-e2e-x/project`).
 * @returns a new export object.
 */
export function sanitizeExport(exp: SessionExport, paths: PathMap): SessionExport {
  let text = JSON.stringify(exp);
  const sorted = [...paths].sort((a, b) => b[0].length - a[0].length);
  for (const [from, to] of sorted) {
    text = text.split(from).join(to);
    if (from.startsWith("/")) text = text.split(from.slice(1)).join(to.slice(1));
  }
  return JSON.parse(text) as SessionExport;
}

/**
 * Claude Code transcripts (`~/.claude/projects/<cwd>/<session>.jsonl`) → a timeline the rules
 * read. One JSON record a line: `user` and `assistant` records carry an Anthropic message
 * (`message.content` blocks, `message.usage`); a `system` record with subtype
 * `compact_boundary` marks a compaction (`compactMetadata.trigger`, `preTokens`, `postTokens`)
 * and the `user` record with `isCompactSummary: true` after it is its summary. Records with
 * `isSidechain: true` are a subagent's (the Task tool's) and become sessions of their own.
 * Pure; never throws on a malformed line.
 */
import type { Entry, ToolCall } from "../../model/entry.js";
import { isRecord } from "../../shared/record.js";
import {
  delegateAction,
  editsOf,
  fetchAction,
  namedAction,
  PLAN,
  READ_ONLY_SUBAGENTS,
  readAction,
  searchAction,
  shellAction,
  withAsked,
  writeAction,
  type Bare,
} from "../actions.js";
import {
  camelKeys,
  compactionEntry,
  jsonLines,
  mcpName,
  resultText,
  stepEntry,
  str,
  summaryEntry,
  timeOf,
  titleOf,
  tokenCount,
  TranscriptError,
  UnknownKinds,
  transcriptTimeline,
  userEntry,
  type TranscriptSession,
} from "../transcript.js";

/** Record kinds Claude Code writes that hold nothing the rules read. */
const IGNORED = new Set([
  "summary",
  "file-history-snapshot",
  "attachment",
  "progress",
  "queue-operation",
  "custom-title",
  "ai-title",
  "last-prompt",
  "permission-mode",
  "pr-link",
  "agent-name",
  "tag",
]);

/** The file tools, whose input keys are shown in camelCase as opencode writes them (`file_path` → `filePath`). */
const CAMEL_INPUT = new Set(["Read", "Write", "Edit", "MultiEdit"]);

/**
 * Claude Code's tools: the name each is shown by (opencode's, which reports and notes share),
 * and what it does, read from its input (the file tools' keys in camelCase).
 */
const TOOLS: Readonly<Record<string, readonly [string, (tool: string, input: unknown) => Bare]>> = {
  Bash: ["bash", shellAction],
  Read: ["read", (tool, input) => readAction(tool, input, true)],
  Write: ["write", (_, input) => writeAction(input)],
  Edit: ["edit", (_, input) => ({ kind: "edit", edits: editsOf(input, false) })],
  MultiEdit: ["multiedit", (_, input) => ({ kind: "edit", edits: editsOf(input, true) })],
  Grep: ["grep", (tool, input) => searchAction(tool, input, "grep", false)],
  Glob: ["glob", (tool, input) => searchAction(tool, input, "glob", false)],
  LS: ["list", (tool, input) => searchAction(tool, input, "list", false)],
  WebFetch: ["webfetch", fetchAction],
  WebSearch: ["websearch", fetchAction],
  Task: ["task", (tool, input) => delegateAction(tool, input, READ_ONLY_SUBAGENTS)],
  Agent: ["task", (tool, input) => delegateAction(tool, input, READ_ONLY_SUBAGENTS)],
  TodoWrite: ["todowrite", () => PLAN],
};

/**
 * Is this one of Claude Code's records about a session rather than in its conversation: a
 * `summary` (`{ type, summary, leafUuid }`) or a `file-history-snapshot` (`{ type,
 * messageId, snapshot, isSnapshotUpdate }`)? A file may start with many of them, or hold nothing else.
 */
export const isClaudeCodeMeta = (r: Record<string, unknown>): boolean =>
  (r.type === "summary" && typeof r.leafUuid === "string") ||
  (r.type === "file-history-snapshot" && (typeof r.messageId === "string" || isRecord(r.snapshot)));

/** Claude Code's default context window (tokens), and the one of a 1M-context session. */
const WINDOW = 200_000;
const LARGE_WINDOW = 1_000_000;
/**
 * What Claude Code keeps free below the window, tokens: min(max output, 20,000) + 13,000
 * (anthropics/claude-code#31806: `effectiveWindow − 13000`, effectiveWindow = window − 20,000).
 */
const KEPT_FREE = 33_000;
/** What versions before {@link FIRST_33K} keep free, tokens (their `/context` calls it the autocompact buffer). */
const OLD_KEPT_FREE = 45_000;
/** The first version read with {@link KEPT_FREE}: [major, minor, patch]. */
const FIRST_33K = [2, 1, 21] as const;

/**
 * What a Claude Code version keeps free below the window, tokens: 45,000 before 2.1.21, 33,000
 * from 2.1.21 on, and for a version that is missing or not `major.minor.patch` (docs/audit.md
 * says where each version compacted).
 */
function keptFree(version: string | undefined): number {
  const parts = /^(\d+)\.(\d+)\.(\d+)/.exec(version ?? "");
  if (!parts) return KEPT_FREE;
  for (let i = 0; i < 3; i++) {
    const part = Number(parts[i + 1]);
    if (part !== FIRST_33K[i]) return part < FIRST_33K[i]! ? OLD_KEPT_FREE : KEPT_FREE;
  }
  return KEPT_FREE;
}

/** Is this parsed JSONL a Claude Code transcript? Some record has a Claude Code type and a `sessionId` or `message`. */
export function looksLikeClaudeCode(records: readonly Record<string, unknown>[]): boolean {
  return records.some(
    (r) =>
      (r.type === "user" || r.type === "assistant" || (r.type === "system" && typeof r.subtype === "string")) &&
      (typeof r.sessionId === "string" || isRecord(r.message) || typeof r.uuid === "string"),
  );
}

/**
 * Claude Code's stop reasons → opencode's `finish`. Claude Code 2.1.x writes
 * `stop_reason: null` on every assistant record: a step without a recorded reason ended
 * with tool calls when it made some, and otherwise it is unknown (null), never a finished
 * turn (a text-only step may be a note the model writes before more edits).
 */
const finishOf = (reason: string | undefined, calls: number): string | null =>
  reason === "end_turn" || reason === "stop_sequence"
    ? "stop"
    : reason === "tool_use"
      ? "tool-calls"
      : reason === "max_tokens"
        ? "length"
        : (reason ?? (calls > 0 ? "tool-calls" : null));

interface OpenStep {
  key: string;
  id: string;
  texts: string[];
  uses: { id: string; name: string; input: unknown }[];
  prompt: number;
  output: number;
  reason: string | undefined;
  model: string | null;
  produced: boolean;
  failed: boolean;
  /** When its last record was written (ms since the epoch), or null. */
  time: number | null;
}

/** A `tool_use` block as a finished call, when its result was recorded. */
function callOf(use: OpenStep["uses"][number], results: ReadonlyMap<string, { content: unknown; error: boolean }>): ToolCall | null {
  const result = results.get(use.id);
  if (!result) return null;
  const known = Object.hasOwn(TOOLS, use.name) ? TOOLS[use.name] : undefined;
  const tool = known?.[0] ?? mcpName(use.name);
  const input = CAMEL_INPUT.has(use.name) ? camelKeys(use.input) : use.input;
  return {
    tool,
    action: withAsked(known ? known[1](tool, input) : namedAction(tool, input), input),
    input,
    output: resultText(result.content),
    status: result.error ? "error" : "completed",
  };
}

/** The text blocks (or the string) of a message's content. */
function textsOf(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const block of content) if (isRecord(block) && block.type === "text" && typeof block.text === "string") texts.push(block.text);
  return texts;
}

/** One chain of records (the main conversation, or one subagent's) → entries. */
function entriesOf(
  records: readonly Record<string, unknown>[],
  results: ReadonlyMap<string, { content: unknown; error: boolean }>,
  agentName: string,
): { entries: Entry[]; title: string; maxTokens: number } {
  const entries: Entry[] = [];
  let open: OpenStep | undefined;
  let title = "";
  let maxTokens = 0;
  let pending: { id: string; post: number } | undefined;
  const close = () => {
    if (!open) return;
    const calls = open.uses.map((use) => callOf(use, results)).filter((c): c is ToolCall => c !== null);
    entries.push(
      stepEntry({
        id: open.id,
        texts: open.texts,
        calls,
        toolParts: open.uses.length,
        prompt: open.prompt,
        output: open.output,
        finish: finishOf(open.reason, open.uses.length),
        model: open.model,
        produced: open.produced,
        succeeded: !open.failed,
        time: open.time,
      }),
    );
    maxTokens = Math.max(maxTokens, open.prompt + open.output);
    open = undefined;
  };
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const uuid = str(r.uuid) ?? `line-${i + 1}`;
    const time = timeOf(r.timestamp) ?? null;
    if (r.type === "assistant") {
      const message = isRecord(r.message) ? r.message : {};
      const key = str(message.id) ?? str(r.requestId) ?? uuid;
      if (open?.key !== key) {
        close();
        const model = str(message.model);
        open = {
          key,
          id: uuid,
          texts: [],
          uses: [],
          prompt: 0,
          output: 0,
          reason: undefined,
          model: model === undefined ? null : `anthropic/${model} ${agentName}`,
          produced: false,
          failed: false,
          time,
        };
      }
      const usage = isRecord(message.usage) ? message.usage : undefined;
      if (usage) {
        const prompt =
          tokenCount(usage.input_tokens) + tokenCount(usage.cache_creation_input_tokens) + tokenCount(usage.cache_read_input_tokens);
        if (prompt > 0) open.prompt = prompt;
        if (tokenCount(usage.output_tokens) > 0) open.output = tokenCount(usage.output_tokens);
      }
      open.reason = str(message.stop_reason) ?? open.reason;
      open.time = time ?? open.time;
      if (r.isApiErrorMessage === true) open.failed = true;
      const content = Array.isArray(message.content) ? message.content : [];
      for (const block of content) {
        if (!isRecord(block)) continue;
        if (block.type === "text" && typeof block.text === "string") open.texts.push(block.text);
        else if (block.type === "tool_use") open.uses.push({ id: str(block.id) ?? "", name: str(block.name) ?? "", input: block.input });
        else open.produced = true;
      }
    } else if (r.type === "user") {
      const message = isRecord(r.message) ? r.message : {};
      const content = message.content;
      if (Array.isArray(content) && content.length > 0 && content.every((b) => isRecord(b) && b.type === "tool_result")) continue;
      close();
      const text = textsOf(content).join("\n");
      if (r.isCompactSummary === true) {
        // A summary without a boundary before it: an older Claude Code that wrote none. Its
        // trigger is not recorded; it reads as automatic.
        const parent = pending ?? { id: `${uuid}:compaction`, post: 0 };
        if (!pending) entries.push(compactionEntry(parent.id, true, time));
        entries.push(summaryEntry(uuid, parent.id, text, parent.post, time));
        pending = undefined;
        continue;
      }
      const synthetic = r.isMeta === true || r.isVisibleInTranscriptOnly === true;
      if (!synthetic && title === "") title = titleOf(text);
      entries.push(userEntry(uuid, text, synthetic ? "synthetic" : "real", time));
    } else if (r.type === "system" && r.subtype === "compact_boundary") {
      close();
      const meta = isRecord(r.compactMetadata) ? r.compactMetadata : {};
      maxTokens = Math.max(maxTokens, tokenCount(meta.preTokens));
      entries.push(compactionEntry(uuid, meta.trigger !== "manual", time));
      pending = { id: uuid, post: tokenCount(meta.postTokens) };
    }
  }
  close();
  return { entries, title, maxTokens };
}

/**
 * A file's sidechain records by subagent: by `agentId`; a record without one belongs to the
 * subagent of the record before it (older versions put `agentId` on some records only), and
 * with at most one `agentId` in the file, all of them are that one subagent's.
 */
function subagentChains(records: readonly Record<string, unknown>[]): Map<string, Record<string, unknown>[]> {
  const ids = new Set(records.map((r) => str(r.agentId)).filter((id) => id !== undefined));
  const chains = new Map<string, Record<string, unknown>[]>();
  let last = ids.size === 1 ? [...ids][0]! : "sidechain";
  for (const r of records) {
    if (ids.size > 1) last = str(r.agentId) ?? last;
    const chain = chains.get(last) ?? [];
    chain.push(r);
    chains.set(last, chain);
  }
  return chains;
}

/**
 * Reads a Claude Code transcript.
 *
 * @param text the file's text (JSONL).
 * @param fallbackID the session id when no record names one (the file's name).
 * @returns the main conversation's session (subagents' sessions under `subagents`; a file
 *   holding only one subagent's records, as Claude Code writes them under `subagents/`, is
 *   that subagent's session).
 * @throws TranscriptError when no line is a Claude Code record of the conversation (one line
 *   that says whether the file holds only Claude Code's records about a session).
 */
export function readClaudeCode(text: string, fallbackID = "claude-code"): TranscriptSession {
  const { records, badLines } = jsonLines(text);
  if (!looksLikeClaudeCode(records)) {
    if (records.some(isClaudeCodeMeta))
      throw new TranscriptError("is a Claude Code transcript with no conversation (only summary or file-history-snapshot records)");
    throw new TranscriptError("not a Claude Code transcript: no user, assistant or system record in it");
  }
  const unknown = new UnknownKinds();
  const results = new Map<string, { content: unknown; error: boolean }>();
  const main: Record<string, unknown>[] = [];
  const sidechain: Record<string, unknown>[] = [];
  let id: string | undefined;
  let directory: string | undefined;
  let version: string | undefined;
  let created: number | undefined;
  let updated: number | undefined;
  for (const r of records) {
    const type = str(r.type) ?? "(no type)";
    if (type !== "user" && type !== "assistant" && type !== "system") {
      if (!IGNORED.has(type)) unknown.add(type);
      continue;
    }
    id ??= str(r.sessionId);
    directory ??= str(r.cwd);
    version = str(r.version) ?? version;
    const time = timeOf(r.timestamp);
    if (time !== undefined) {
      created = Math.min(created ?? time, time);
      updated = Math.max(updated ?? time, time);
    }
    if (type === "user" && isRecord(r.message) && Array.isArray(r.message.content)) {
      for (const block of r.message.content) {
        if (isRecord(block) && block.type === "tool_result" && typeof block.tool_use_id === "string")
          results.set(block.tool_use_id, { content: block.content, error: block.is_error === true });
      }
    }
    if (r.isSidechain === true) sidechain.push(r);
    else main.push(r);
  }
  const sessionID = id ?? fallbackID;
  const session = (chain: readonly Record<string, unknown>[], ownID: string, parentID: string | undefined, agentName: string) => {
    const built = entriesOf(chain, results, agentName);
    const window = built.maxTokens > WINDOW ? LARGE_WINDOW : WINDOW;
    return {
      info: {
        id: ownID,
        title: built.title,
        ...(directory === undefined ? {} : { directory }),
        ...(version === undefined ? {} : { version }),
        ...(parentID === undefined ? {} : { parentID }),
        time: { created, updated },
      },
      timeline: transcriptTimeline(built.entries),
      agent: "claude-code" as const,
      usable: window - keptFree(version),
      // 2.1.328 ignores `SessionStart`'s `continue: false`: the guard stops a loop at the next tool call.
      continueTurn: false,
      unknownRecords: unknown.list(),
      badLines,
      subagents: [] as TranscriptSession[],
    };
  };
  const subagents = [...subagentChains(sidechain)].map(([key, chain]) => session(chain, `${sessionID}/${key}`, sessionID, "subagent"));
  if (main.length === 0 && subagents.length === 1) return subagents[0]!;
  return { ...session(main, sessionID, undefined, "main"), subagents };
}

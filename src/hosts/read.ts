/**
 * Which agent wrote a transcript, told by its content (never its name), and reading it as a
 * session `replay` and `audit` take. Pure.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { isRecord } from "../shared/record.js";
import { isClaudeCodeMeta, readClaudeCode } from "./claude-code/index.js";
import { readCodex } from "./codex/index.js";
import { CLAUDE_CODE_WORDS } from "./claude-code/words.js";
import { CODEX_WORDS } from "./codex/words.js";
import { OPENCODE_WORDS } from "./opencode/words.js";
import type { HostWords } from "../model/host-words.js";
import type { TranscriptAgent, TranscriptSession } from "./transcript.js";

/** Lines looked at to tell the agent: the first records of either format say it. */
const LOOK_LINES = 50;

/**
 * The agent whose transcript `text` is, from its first records: Codex's `{ type, payload }`
 * envelope (`session_meta`, `response_item`, `event_msg`, `compacted`, `turn_context`), or
 * Claude Code's records (`type` user / assistant / system / summary with `sessionId`, `uuid`
 * or `message`). Null for anything else (an opencode export is one JSON object with `info`).
 */
export function transcriptAgent(text: string): TranscriptAgent | null {
  let start = 0;
  let claudeMeta = false;
  for (let n = 0; n < LOOK_LINES && start < text.length; n++) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === "" || line[0] !== "{") continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      // The first line of an opencode export pretty-printed over many lines ("{") lands here too.
      continue;
    }
    if (!isRecord(record) || typeof record.type !== "string" || "info" in record) continue;
    if (isClaudeCodeMeta(record)) {
      // Not counted: a long session's file may start with many of these.
      claudeMeta = true;
      n -= 1;
      continue;
    }
    if (isRecord(record.payload) && ["session_meta", "response_item", "event_msg", "compacted", "turn_context"].includes(record.type))
      return "codex";
    if (
      ["user", "assistant", "system", "summary", "file-history-snapshot"].includes(record.type) &&
      (typeof record.sessionId === "string" || typeof record.uuid === "string" || isRecord(record.message))
    )
      return "claude-code";
  }
  return claudeMeta ? "claude-code" : null;
}

/**
 * Reads `text` as the transcript of the agent that wrote it.
 * @param fallbackID the session id when the file names none (its file name).
 * @returns the session, or null when `text` is no agent's transcript.
 * @throws TranscriptError when it starts like one but nothing in it is a record of that agent.
 */
export function readTranscript(text: string, fallbackID: string): TranscriptSession | null {
  const agent = transcriptAgent(text);
  return agent === "codex" ? readCodex(text, fallbackID) : agent === "claude-code" ? readClaudeCode(text, fallbackID) : null;
}

/**
 * The words for a session's texts by the agent that wrote it (`SessionData.agent`): Claude
 * Code's, Codex's, or opencode's (undefined, or any other name: an opencode export has none).
 */
export function hostWords(agent: string | undefined): HostWords {
  return agent === "claude-code" ? CLAUDE_CODE_WORDS : agent === "codex" ? CODEX_WORDS : OPENCODE_WORDS;
}

/** An agent's name in words: `Claude Code`, `Codex`; any other name as it is. */
export const agentName = (agent: string): string => (agent === "codex" || agent === "claude-code" ? hostWords(agent).name : agent);

/**
 * What a deny means for a session of `agent`, in one line: these agents have no synthetic
 * continue turn to deny; they go on in the same turn after compacting.
 */
export function agentNote(agent: string): string {
  const name = agentName(agent);
  return (
    `${name} transcript: ${name} has no continue turn; it goes on in the same turn after compacting. ` +
    'Read "continue turn" as that going on: at a deny, the guard would have stopped the turn there (docs/audit.md).'
  );
}

/**
 * The folder where `agent` keeps its transcripts: Claude Code's `$CLAUDE_CONFIG_DIR/projects`
 * (default `~/.claude/projects`), Codex's `$CODEX_HOME/sessions` (default `~/.codex/sessions`).
 */
export function agentFolder(agent: TranscriptAgent, env: Readonly<Record<string, string | undefined>>): string {
  if (agent === "codex") return join(env.CODEX_HOME || join(homedir(), ".codex"), "sessions");
  return join(env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude"), "projects");
}

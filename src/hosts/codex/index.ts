/**
 * Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) → a timeline the rules read.
 * One `{ timestamp, type, payload }` a line: `session_meta`, `turn_context` (the model),
 * `response_item` (messages, reasoning, `function_call` / `custom_tool_call` /
 * `local_shell_call` and their `*_output` by `call_id`), `event_msg` (`token_count` after each
 * model response, with `last_token_usage` and `model_context_window`; `user_message`;
 * `context_compacted`), and `compacted` (a compaction, its summary in `message`). A step is
 * what the model produced between two `token_count` events. Pure; never throws on a
 * malformed line.
 */
import type { Entry, ToolCall } from "../../model/entry.js";
import { isRecord } from "../../shared/record.js";
import type { Action } from "../../model/action.js";
import { fetchAction, namedAction, PLAN, shellAction, withAsked, type Bare } from "../actions.js";
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

/** Top-level record kinds a rollout holds. */
const TOP = new Set(["session_meta", "turn_context", "response_item", "event_msg", "compacted"]);
/**
 * Top-level records that hold nothing the rules read (codex-cli 0.169.0): `world_state`, the
 * instructions and settings in force; `token_usage_record`, a request's usage, which the
 * `token_count` event after it also carries.
 */
const IGNORED_TOP = new Set(["world_state", "token_usage_record"]);
/** Response items a model produces in a step (besides tool calls). */
const STEP_ITEMS = new Set(["message", "reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call"]);
/** Response items that hold nothing the rules read here (tool outputs are read by `call_id` first). */
const IGNORED_ITEMS = new Set([
  "function_call_output",
  "custom_tool_call_output",
  "local_shell_call_output",
  "compaction",
  "compaction_summary",
  "ghost_snapshot",
  "other",
]);
/** Events that hold nothing the rules read. */
const IGNORED_EVENTS = new Set([
  "agent_message",
  "agent_message_delta",
  "agent_reasoning",
  "agent_reasoning_raw_content",
  "agent_reasoning_section_break",
  "task_started",
  "turn_started",
  "turn_aborted",
  "turn_diff",
  "exec_command_begin",
  "exec_command_end",
  "exec_command_output_delta",
  "exec_approval_request",
  "apply_patch_approval_request",
  "patch_apply_begin",
  "patch_apply_end",
  "mcp_tool_call_begin",
  "mcp_tool_call_end",
  "web_search_begin",
  "web_search_end",
  "plan_update",
  "entered_review_mode",
  "exited_review_mode",
  "item_started",
  "item_completed",
  "collab_tool_call",
  "thread_goal_updated",
  "thread_name_updated",
  "thread_settings_applied",
  "view_image_tool_call",
  "background_event",
  "stream_error",
  "error",
  "warning",
  "session_configured",
]);

/** Is this parsed JSONL a Codex rollout? Some record is a `session_meta`, a `response_item` or an `event_msg` with a payload. */
export function looksLikeCodex(records: readonly Record<string, unknown>[]): boolean {
  return records.some(
    (r) =>
      (r.type === "session_meta" || r.type === "response_item" || r.type === "event_msg" || r.type === "compacted") && isRecord(r.payload),
  );
}

/** A shell call's command as one line: `["bash","-lc","ls"]` → `ls`; `["ls","-a"]` → `ls -a`. */
function commandLine(command: unknown): unknown {
  if (typeof command === "string") return command;
  if (!Array.isArray(command) || !command.every((c) => typeof c === "string")) return command;
  const words = command as string[];
  if (words.length === 3 && /(^|\/)(ba|z)?sh$/.test(words[0]!) && (words[1] === "-lc" || words[1] === "-c")) return words[2];
  return words.join(" ");
}

/**
 * A Codex tool call as shown (the names opencode gives such tools, which reports and notes
 * share: shell calls `bash` with one `command` line, the plan tool `todowrite`) and what it does.
 */
function toolOf(name: string, input: unknown): { tool: string; input: unknown; action: Action } {
  const call = (tool: string, shown: unknown, bare: Bare) => ({ tool, input: shown, action: withAsked(bare, shown) });
  if (name === "shell" || name === "container.exec" || name === "local_shell" || name === "shell_command") {
    const args = isRecord(input) ? input : {};
    const shown = { ...(camelKeys(args) as object), command: commandLine(args.command) };
    return call("bash", shown, shellAction("bash", shown));
  }
  if (name === "exec_command" && isRecord(input)) {
    const shown = { ...input, command: commandLine(input.cmd) };
    return call("bash", shown, shellAction("bash", shown));
  }
  if (name === "apply_patch")
    return call("apply_patch", typeof input === "string" ? { patchText: input } : camelKeys(input), { kind: "edit", edits: undefined });
  if (name === "update_plan") return call("todowrite", input, PLAN);
  if (name === "web_search") return call("websearch", input, fetchAction("websearch", input));
  const tool = mcpName(name);
  return call(tool, input, namedAction(tool, input));
}

/** A function call's `arguments` (a JSON string) as a value; a string that is not JSON stays as it is. */
function parsedArguments(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** A tool's output as the rules compare it, and whether it failed (`success: false`, a non-zero `exit_code`). */
function outputOf(output: unknown): { output: unknown; error: boolean } {
  if (isRecord(output)) {
    const body = output.content ?? output.output ?? output;
    return { output: resultText(body), error: output.success === false };
  }
  if (typeof output === "string" && output.startsWith('{"output":')) {
    const parsed = parsedArguments(output);
    if (isRecord(parsed) && typeof parsed.output === "string") {
      const code = isRecord(parsed.metadata) ? parsed.metadata.exit_code : undefined;
      return { output: parsed.output, error: typeof code === "number" && code !== 0 };
    }
  }
  if (typeof output === "string" && EXEC_HEADER.test(output)) return execOutput(output);
  return { output: resultText(output), error: false };
}

/**
 * The header Codex's `exec_command` and `write_stdin` put before a command's output (seen in
 * codex-cli 0.169.0's rollouts): `Chunk ID: <random hex>`, `Wall time: <s> seconds`, then
 * `Process exited with code <n>` or `Process running with session ID <n>`,
 * `Original token count: <n>`, `Output:` and the output itself.
 */
const EXEC_HEADER = /^Chunk ID: [^\n]*\nWall time: [^\n]*\n/;
/** Header lines that describe the delivery, not the world: a random id, a time, a count of the output's own tokens. */
const DELIVERY_LINE = /^(?:Chunk ID|Wall time|Original token count): [^\n]*\n/gm;

/**
 * An `exec_command` output as the rules compare it: the header's delivery lines dropped (two
 * runs of the same command that print the same thing compare equal), the exit line and the
 * output kept; failed when the process exited with a non-zero code.
 */
function execOutput(output: string): { output: string; error: boolean } {
  const code = /^Process exited with code (-?\d+)$/m.exec(output)?.[1];
  return { output: output.replace(DELIVERY_LINE, ""), error: code !== undefined && code !== "0" };
}

interface OpenStep {
  id: string;
  texts: string[];
  uses: { id: string; tool: string; input: unknown; action: Action }[];
  produced: boolean;
  answered: boolean;
}

/**
 * Reads a Codex rollout.
 *
 * @param text the file's text (JSONL).
 * @param fallbackID the session id when no `session_meta` names one (the file's name).
 * @throws TranscriptError when no line is a Codex record.
 */
export function readCodex(text: string, fallbackID = "codex"): TranscriptSession {
  const parsed = jsonLines(text);
  // Rollouts of early Codex versions wrote response items bare, without the envelope.
  const records = parsed.records.map((r) =>
    !("payload" in r) && typeof r.type === "string" && (STEP_ITEMS.has(r.type) || IGNORED_ITEMS.has(r.type))
      ? { type: "response_item", payload: r }
      : r,
  );
  if (!looksLikeCodex(records)) throw new TranscriptError("not a Codex rollout: no session_meta, response_item or event_msg record in it");
  const unknown = new UnknownKinds();
  const outputs = new Map<string, { output: unknown; error: boolean }>();
  let userEvents = false;
  for (const r of records) {
    const p = isRecord(r.payload) ? r.payload : {};
    if (r.type === "event_msg" && p.type === "user_message") userEvents = true;
    if (r.type === "response_item" && typeof p.call_id === "string" && String(p.type).endsWith("_output"))
      outputs.set(p.call_id, outputOf(p.output));
  }

  const entries: Entry[] = [];
  let open: OpenStep | undefined;
  let model: string | null = null;
  let window = 0;
  let id: string | undefined;
  let directory: string | undefined;
  let version: string | undefined;
  let title = "";
  let created: number | undefined;
  let updated: number | undefined;
  let summaryLast = false;
  /** The time of the record being read (ms since the epoch), or null. */
  let now: number | null = null;
  const close = (prompt = 0, output = 0) => {
    if (!open) return;
    const calls: ToolCall[] = [];
    for (const use of open.uses) {
      const result = outputs.get(use.id);
      if (result)
        calls.push({
          tool: use.tool,
          action: use.action,
          input: use.input,
          output: result.output,
          status: result.error ? "error" : "completed",
        });
    }
    entries.push(
      stepEntry({
        id: open.id,
        texts: open.texts,
        calls,
        toolParts: open.uses.length,
        prompt,
        output,
        finish: open.uses.length > 0 ? "tool-calls" : null,
        model,
        produced: open.produced,
        succeeded: true,
        time: now,
      }),
    );
    open = undefined;
    summaryLast = false;
  };
  const compaction = (at: string, summary: string) => {
    close();
    entries.push(compactionEntry(at, true, now));
    entries.push(summaryEntry(`${at}:summary`, at, summary, 0, now));
    summaryLast = true;
  };
  const person = (at: string, words: string) => {
    close();
    if (title === "") title = titleOf(words);
    entries.push(userEntry(at, words, "real", now));
    summaryLast = false;
  };

  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const at = `line-${i + 1}`;
    const type = str(r.type) ?? "(no type)";
    const p = isRecord(r.payload) ? r.payload : {};
    const time = timeOf(r.timestamp);
    now = time ?? null;
    if (time !== undefined) {
      created = Math.min(created ?? time, time);
      updated = Math.max(updated ?? time, time);
    }
    if (!TOP.has(type)) {
      if (!IGNORED_TOP.has(type)) unknown.add(type);
      continue;
    }
    if (type === "session_meta") {
      id ??= str(p.id) ?? str(p.session_id);
      directory ??= str(p.cwd);
      version = str(p.cli_version) ?? version;
    } else if (type === "turn_context") {
      const name = str(p.model);
      if (name !== undefined) model = `openai/${name} codex`;
    } else if (type === "compacted") {
      compaction(at, str(p.message) ?? "");
    } else if (type === "event_msg") {
      const kind = str(p.type) ?? "(no type)";
      if (kind === "token_count") {
        const info = isRecord(p.info) ? p.info : {};
        window = tokenCount(info.model_context_window) || window;
        const last = isRecord(info.last_token_usage) ? info.last_token_usage : {};
        if (open) close(tokenCount(last.input_tokens), tokenCount(last.output_tokens));
      } else if (kind === "user_message") {
        person(at, str(p.message) ?? "");
      } else if (kind === "context_compacted") {
        // After a `compacted` item it is the same compaction; alone, it is one whose summary was not written.
        if (!summaryLast) compaction(at, "");
      } else if (kind === "task_complete" || kind === "turn_complete") {
        // The turn ended: a last step without tool calls was the model's answer (finish `stop`).
        close();
        const last = entries[entries.length - 1];
        if (last?.kind === "assistant" && !last.summary && last.toolParts === 0 && last.finish === null)
          entries[entries.length - 1] = { ...last, finish: "stop" };
      } else if (kind === "task_started") {
        window = tokenCount(p.model_context_window) || window;
      } else if (!IGNORED_EVENTS.has(kind)) unknown.add(`event_msg:${kind}`);
    } else {
      const kind = str(p.type) ?? "(no type)";
      if (kind === "message") {
        const texts: string[] = [];
        if (Array.isArray(p.content))
          for (const block of p.content) if (isRecord(block) && typeof block.text === "string") texts.push(block.text);
        if (p.role === "user") {
          const words = texts.join("\n");
          // Without user_message events, the user's own items are those that are not the agent's context (`<environment_context>` …).
          if (!userEvents && !words.trimStart().startsWith("<")) person(at, words);
          continue;
        }
        if (p.role !== "assistant") continue;
      }
      if (STEP_ITEMS.has(kind)) {
        if (open?.answered) close();
        open ??= { id: at, texts: [], uses: [], produced: false, answered: false };
        if (kind === "message") {
          if (Array.isArray(p.content))
            for (const block of p.content) if (isRecord(block) && typeof block.text === "string") open.texts.push(block.text);
        } else if (kind === "reasoning") open.produced = true;
        else {
          const callID = str(p.call_id) ?? str(p.id) ?? at;
          const name = kind === "local_shell_call" ? "local_shell" : kind === "web_search_call" ? "web_search" : (str(p.name) ?? "");
          const raw = kind === "function_call" ? parsedArguments(p.arguments) : kind === "custom_tool_call" ? p.input : p.action;
          const call = toolOf(name, raw);
          open.uses.push({ id: callID, ...call });
          if (kind === "web_search_call") outputs.set(callID, { output: "", error: false });
        }
      } else if (IGNORED_ITEMS.has(kind)) {
        // A tool's output: the step that called it is answered; what the model does next is a new step.
        if (open && typeof p.call_id === "string" && open.uses.some((use) => use.id === p.call_id)) open.answered = true;
      } else unknown.add(`response_item:${kind}`);
    }
  }
  close();
  return {
    info: {
      id: id ?? fallbackID,
      title,
      ...(directory === undefined ? {} : { directory }),
      ...(version === undefined ? {} : { version }),
      time: { created, updated },
    },
    timeline: transcriptTimeline(entries),
    agent: "codex",
    // Codex compacts at 90% of the model's window; `model_context_window` is 95% of it (openai_models.rs).
    usable: window > 0 ? Math.floor((window * 90) / 95) : null,
    // The turn goes on after a compaction; the `SessionStart` hook can end it before the next model request.
    continueTurn: true,
    unknownRecords: unknown.list(),
    badLines: parsed.badLines,
    subagents: [],
  };
}

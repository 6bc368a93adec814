/**
 * Rewrites an opencode session (its timeline) as a Claude Code transcript or a Codex rollout,
 * the way each agent would have written the same work: no synthetic continue turn (the agent
 * goes on in the same turn), no re-sent prompt after an overflow compaction, tool names and
 * input keys in the agent's own words, token sizes in the agent's usage fields. For tests:
 * the rules must decide the rewritten session as they decide the original.
 */
import type { AssistantEntry, Entry, ToolCall } from "../../src/model/entry.js";
import type { Timeline } from "../../src/model/timeline.js";

const CLAUDE_TOOLS: Record<string, string> = {
  bash: "Bash",
  read: "Read",
  write: "Write",
  edit: "Edit",
  multiedit: "MultiEdit",
  grep: "Grep",
  glob: "Glob",
  list: "LS",
  webfetch: "WebFetch",
  websearch: "WebSearch",
  task: "Task",
  todowrite: "TodoWrite",
};

const snakeKeys = (input: unknown): unknown =>
  typeof input === "object" && input !== null && !Array.isArray(input)
    ? Object.fromEntries(Object.entries(input).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]))
    : input;

const outputText = (call: ToolCall): string => (typeof call.output === "string" ? call.output : JSON.stringify(call.output ?? ""));

/** The summary of compaction `id` in `entries`, if any. */
const summaryOf = (entries: readonly Entry[], id: string): AssistantEntry | undefined =>
  entries.find((e): e is AssistantEntry => e.kind === "assistant" && e.summary && e.compactionID === id);

/** Each step's prompt size and output (tokens) as the agents count them: prompt, and context − prompt. */
const sizes = (step: AssistantEntry) => {
  const prompt = step.promptTokens ?? 0;
  return { prompt, output: Math.max(0, (step.contextTokens ?? 0) - prompt) };
};

/** The timeline of an opencode session as a Claude Code transcript (JSONL text). */
export function toClaudeCode(timeline: Timeline, sessionId = "converted"): string {
  const lines: unknown[] = [];
  const base = (uuid: string) => ({ uuid, sessionId, version: "converted", cwd: "/p", isSidechain: false });
  for (const entry of timeline.entries) {
    if (entry.kind === "user") {
      if (entry.role === "real") lines.push({ ...base(entry.id), type: "user", message: { role: "user", content: entry.text } });
      else if (entry.role === "synthetic")
        lines.push({ ...base(entry.id), type: "user", isMeta: true, message: { role: "user", content: entry.text } });
      else if (entry.role === "compaction" && summaryOf(timeline.entries, entry.id))
        lines.push({
          ...base(entry.id),
          type: "system",
          subtype: "compact_boundary",
          content: "Conversation compacted",
          compactMetadata: { trigger: entry.auto ? "auto" : "manual" },
        });
    } else if (entry.kind === "assistant" && entry.summary) {
      if (entry.compactionID !== undefined)
        lines.push({ ...base(entry.id), type: "user", isCompactSummary: true, message: { role: "user", content: entry.text } });
    } else if (entry.kind === "assistant") {
      const { prompt, output } = sizes(entry);
      const content: unknown[] = [];
      if (entry.text !== "") content.push({ type: "text", text: entry.text });
      if (!entry.empty && entry.text === "" && entry.toolParts === 0) content.push({ type: "thinking", thinking: "" });
      entry.toolCalls.forEach((call, k) =>
        content.push({
          type: "tool_use",
          id: `toolu_${entry.id}_${k}`,
          name: CLAUDE_TOOLS[call.tool] ?? call.tool,
          input: ["read", "write", "edit", "multiedit"].includes(call.tool) ? snakeKeys(call.input) : call.input,
        }),
      );
      const reason =
        entry.finish === "stop"
          ? "end_turn"
          : entry.finish === "tool-calls"
            ? "tool_use"
            : entry.finish === "length"
              ? "max_tokens"
              : entry.finish;
      lines.push({
        ...base(entry.id),
        type: "assistant",
        ...(entry.succeeded ? {} : { isApiErrorMessage: true }),
        message: {
          id: `msg_${entry.id}`,
          role: "assistant",
          model: "converted",
          content,
          stop_reason: reason,
          usage: { input_tokens: prompt, output_tokens: output },
        },
      });
      if (entry.toolCalls.length > 0)
        lines.push({
          ...base(`${entry.id}:results`),
          type: "user",
          message: {
            role: "user",
            content: entry.toolCalls.map((call, k) => ({
              type: "tool_result",
              tool_use_id: `toolu_${entry.id}_${k}`,
              content: outputText(call),
              is_error: call.status === "error",
            })),
          },
        });
    }
  }
  return lines.map((line) => JSON.stringify(line)).join("\n") + "\n";
}

/** A tool call as Codex would have made it: bash as `shell` with an argv, the plan tool `update_plan`. */
function codexCall(call: ToolCall): { name: string; arguments: unknown } {
  const input = typeof call.input === "object" && call.input !== null ? (call.input as Record<string, unknown>) : {};
  if (call.tool === "bash") return { name: "shell", arguments: { ...input, command: ["bash", "-lc", input.command] } };
  if (call.tool === "todowrite") return { name: "update_plan", arguments: call.input };
  if (call.tool === "websearch") return { name: "web_search", arguments: call.input };
  return { name: call.tool, arguments: call.input };
}

/** The timeline of an opencode session as a Codex rollout (JSONL text). */
export function toCodex(timeline: Timeline, id = "converted"): string {
  const lines: unknown[] = [
    { type: "session_meta", payload: { id, cwd: "/p", cli_version: "converted" } },
    { type: "turn_context", payload: { model: "converted" } },
  ];
  const item = (payload: unknown) => lines.push({ type: "response_item", payload });
  const event = (payload: unknown) => lines.push({ type: "event_msg", payload });
  for (const entry of timeline.entries) {
    if (entry.kind === "user") {
      if (entry.role === "real") event({ type: "user_message", message: entry.text });
      else if (entry.role === "compaction") {
        const summary = summaryOf(timeline.entries, entry.id);
        if (summary) {
          lines.push({ type: "compacted", payload: { message: summary.text } });
          event({ type: "context_compacted" });
        }
      }
    } else if (entry.kind === "assistant" && !entry.summary) {
      const { prompt, output } = sizes(entry);
      if (entry.empty) item({ type: "message", role: "assistant", content: [] });
      else if (entry.text === "" && entry.toolParts === 0) item({ type: "reasoning", summary: [] });
      if (entry.text !== "") item({ type: "message", role: "assistant", content: [{ type: "output_text", text: entry.text }] });
      entry.toolCalls.forEach((call, k) => {
        const made = codexCall(call);
        item({ type: "function_call", name: made.name, arguments: JSON.stringify(made.arguments), call_id: `call_${entry.id}_${k}` });
      });
      event({ type: "token_count", info: { last_token_usage: { input_tokens: prompt, output_tokens: output } } });
      if (entry.finish === "stop" && entry.toolParts === 0) event({ type: "task_complete" });
      entry.toolCalls.forEach((call, k) =>
        item({
          type: "function_call_output",
          call_id: `call_${entry.id}_${k}`,
          output: call.status === "error" ? { content: outputText(call), success: false } : outputText(call),
        }),
      );
    }
  }
  return lines.map((line) => JSON.stringify(line)).join("\n") + "\n";
}

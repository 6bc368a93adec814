/**
 * What kind of work a tool call is, by the action its host read in it (model/action.ts): the
 * one classification the judge reads (view.ts keys, ./information.ts judgements; the audit and
 * the ledger too). `change` edits or writes a file it names; `effect` may change the world
 * otherwise (a command or tool not known to only read, a subagent that may change things);
 * `question` only reads; `asking` asks something outside the session's files (a fetch, a web or
 * code search, a read-only subagent), judged by what came back however it asked; `plan` is
 * bookkeeping, left out of every count; `wait` waits on purpose before it looks: always new work.
 */
import type { Action as CallAction, ShellRun } from "../model/action.js";
import type { ToolCall } from "../model/entry.js";

export type CallKind = "change" | "effect" | "question" | "asking" | "plan" | "wait";

/** The shell command a call runs, when it runs one. */
export const runOf = (action: CallAction): ShellRun | undefined =>
  action.kind === "shell" || action.kind === "other" || action.kind === "wait" ? action.run : undefined;

/** The kind of a tool call (see the module's comment), by its action. A tool not known to read is an effect. */
export function callKind(call: ToolCall): CallKind {
  const { action } = call;
  switch (action.kind) {
    case "edit":
    case "write":
      return "change";
    case "plan":
      return "plan";
    case "wait":
      return "wait";
    case "fetch":
      return "asking";
    case "delegate":
      return action.readOnly ? "asking" : "effect";
    case "read":
      return "question";
    case "search":
      return action.asking ? "asking" : "question";
  }
  const run = runOf(action);
  const reads = run !== undefined ? run.role !== "effect" : action.kind === "other" && action.reads;
  if (!reads) return "effect";
  return action.kind === "other" && action.asking ? "asking" : "question";
}

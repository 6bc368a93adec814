/**
 * What kind of work a tool call is, by the action its host read in it (model/action.ts), for
 * telling new work from a repeat (view.ts `actionsOf`; docs/how-it-decides.md "the same"):
 * `effect` changes files (compared by exact input and result; a failed one by its file and
 * error); `asking` only brings information back (compared by what came back); `planning` is
 * bookkeeping, left out of every count; `waiting` waits on purpose before it looks, always
 * new work; `other` is compared by input and result.
 */
import type { Action as CallAction } from "../model/action.js";
import type { ToolCall } from "../model/entry.js";

export type ToolKind = "effect" | "asking" | "planning" | "waiting" | "other";

/** Does the action change files (kind `effect`)? */
export const changesFiles = (action: CallAction): boolean => action.kind === "edit" || action.kind === "write";

/** The kind of a tool call (see the module's comment), by its action. */
export function toolKind(call: ToolCall): ToolKind {
  const { action } = call;
  switch (action.kind) {
    case "edit":
    case "write":
      return "effect";
    case "plan":
      return "planning";
    case "wait":
      return "waiting";
    case "fetch":
    case "delegate":
      return "asking";
    case "search":
    case "other":
      return action.asking ? "asking" : "other";
    default:
      return "other";
  }
}

/** A task handed to a subagent that cannot change anything. */
export const delegatesReadOnly = (call: ToolCall): boolean => call.action.kind === "delegate" && call.action.readOnly;

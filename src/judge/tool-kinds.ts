/**
 * What kind of work a tool call is, for telling new work from a repeat, told by the action its
 * host read in it (model/action.ts). New work is new information or a new effect, not a new
 * string: each kind is compared by what it brings.
 *
 * - `effect`: it changes files (an edit, a write, a patch). Compared by its exact input and
 *   result; a failed one changed nothing, so it is compared by the file and the error it met
 *   (a new `oldString` that fails the same way brings nothing new).
 * - `asking`: it only brings information back (a web search or fetch, a code search service,
 *   a delegated task, an MCP search or fetch tool). Compared by what came back: a rephrased
 *   query that returns the same pages learned nothing; the same question put again to a
 *   read-only subagent whose report names the same things learned nothing either.
 * - `planning`: bookkeeping that neither reads nor changes the world (a todo list). Left out
 *   of every count: a reworded plan is neither progress nor a repeat.
 * - `waiting`: a call that waits on purpose before it looks (`sleep 30 && gh pr checks`,
 *   `kubectl rollout status`, `--watch`, a tool's own `yield_time_ms` or `wait`): the model is
 *   waiting for the world to move, and an unchanged answer means only that it has not moved
 *   yet. Always new work.
 * - `other`: everything else (a shell command, a file read, a grep …), compared by input and result.
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

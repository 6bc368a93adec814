/**
 * opencode's tools as actions (model/action.ts). Their names are the ones every report shows,
 * so their table is shared by the hosts (../actions.ts `namedAction`); MCP tools are named
 * `<server>_<tool>` there and read by their names' habits.
 */
import type { Action } from "../../model/action.js";
import { namedAction, withAsked } from "../actions.js";

/** What an opencode tool call does: its built-in tools by their names (../actions.ts `namedAction`), any other tool by its name's habits. */
export function openCodeAction(tool: string, input: unknown): Action {
  return withAsked(namedAction(tool, input), input);
}

/**
 * What identifies an opencode call before it runs (`tool.execute.before` knows the tool and
 * its arguments, not the result): the tool and what it asked for (`Asked.comparable`). The
 * guard refuses, in `stop` mode, the next call with the key of a chain that already ran
 * `threshold + 1` times.
 */
export function callKey(tool: string, input: unknown): string {
  return `${tool}\u0000${openCodeAction(tool, input).asked.comparable}`;
}

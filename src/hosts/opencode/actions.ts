/**
 * opencode's tools (packages/opencode/src/tool/registry.ts, 1.18.33) as actions
 * (model/action.ts); MCP tools are named `<server>_<tool>` there and read by their names'
 * habits (../actions.ts `otherAction`).
 */
import type { Action } from "../../model/action.js";
import {
  delegateAction,
  editsOf,
  fetchAction,
  otherAction,
  PLAN,
  readAction,
  searchAction,
  shellAction,
  withAsked,
  writeAction,
  type Bare,
} from "../actions.js";

/**
 * opencode's subagents that cannot change anything (agent/agent.ts: `explore` has no edit,
 * write or patch tool). Asked the same question again, such a subagent can only find again
 * what it found; any other subagent may have done the work it reports.
 */
export const READ_ONLY_SUBAGENTS: ReadonlySet<string> = new Set(["explore"]);

/** opencode's built-in tools, each as what it does. */
const TOOLS: Readonly<Record<string, (tool: string, input: unknown) => Bare>> = {
  bash: shellAction,
  read: (tool, input) => readAction(tool, input, true),
  edit: (_, input) => ({ kind: "edit", edits: editsOf(input, false) }),
  multiedit: (_, input) => ({ kind: "edit", edits: editsOf(input, true) }),
  patch: () => ({ kind: "edit", edits: undefined }),
  apply_patch: () => ({ kind: "edit", edits: undefined }),
  write: (_, input) => writeAction(input),
  grep: (tool, input) => searchAction(tool, input, tool, false),
  glob: (tool, input) => searchAction(tool, input, tool, false),
  list: (tool, input) => searchAction(tool, input, tool, false),
  ls: (tool, input) => searchAction(tool, input, tool, false),
  view: (tool, input) => searchAction(tool, input, tool, false),
  codesearch: (tool, input) => searchAction(tool, input, "code", true),
  webfetch: fetchAction,
  websearch: fetchAction,
  task: (tool, input) => delegateAction(tool, input, READ_ONLY_SUBAGENTS),
  todowrite: () => PLAN,
  todoread: () => PLAN,
  skill: (tool, input) => otherAction(tool, input, true),
  lsp: (tool, input) => otherAction(tool, input, true),
};

/** What an opencode tool call does: its tool's entry in {@link TOOLS}, any other tool by its name's habits. */
export function openCodeAction(tool: string, input: unknown): Action {
  const known = Object.hasOwn(TOOLS, tool) ? TOOLS[tool] : undefined;
  return withAsked(known ? known(tool, input) : otherAction(tool, input), input);
}

/**
 * The key of an opencode call as the tool-time check compares two calls before they run (by
 * their arguments, not the result): the tool and what it asked for (`Asked.comparable`).
 */
export function callKey(tool: string, input: unknown): string {
  return `${tool}\u0000${openCodeAction(tool, input).asked.comparable}`;
}

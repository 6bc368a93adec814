/**
 * What kind of work a tool call is, for telling new work from a repeat. New work is new
 * information or a new effect, not a new string: each kind is compared by what it brings.
 *
 * - `effect`: it changes files (opencode's edit, write, patch, multiedit). Compared by its
 *   exact input and result; a failed one changed nothing, so it is compared by the file and
 *   the error it met (a new `oldString` that fails the same way brings nothing new).
 * - `asking`: it only brings information back (websearch, webfetch, codesearch, task, and MCP
 *   search or fetch tools). Compared by what came back: a rephrased query that returns the
 *   same pages learned nothing; the same question put again to a read-only subagent whose
 *   report names the same things learned nothing either.
 * - `planning`: bookkeeping that neither reads nor changes the world (todowrite, todoread).
 *   Left out of every count: a reworded plan is neither progress nor a repeat.
 * - `waiting`: a call that waits on purpose before it looks (waits.ts: `sleep 30 && gh pr
 *   checks`, `kubectl rollout status`, `--watch`, a tool's own `yield_time_ms` or `wait`): the
 *   model is waiting for the world to move, and an unchanged answer means only that it has
 *   not moved yet. Always new work. A tool that changes files or only plans is never a wait.
 * - `other`: everything else (bash, read, grep …), compared by input and result.
 *
 * Tool names are opencode 1.18.33's (packages/opencode/src/tool/registry.ts); MCP tools are
 * named `<server>_<tool>` there.
 */
import type { ToolCall } from "../model/entry.js";
import { isWait } from "./waits.js";

export type ToolKind = "effect" | "asking" | "planning" | "waiting" | "other";

const EFFECT_TOOLS = new Set(["edit", "write", "patch", "multiedit", "apply_patch"]);
const ASKING_TOOLS = new Set(["websearch", "webfetch", "codesearch", "task"]);
const PLANNING_TOOLS = new Set(["todowrite", "todoread"]);
/** MCP tools that look things up: `exa_web_search_exa`, `brave_web_search`, `fetch_fetch` … */
const ASKING_NAME = /search|fetch/i;

/** Is the tool one that changes files (kind `effect`)? Told by its name alone, without reading the input. */
export function isEffect(tool: string): boolean {
  return EFFECT_TOOLS.has(tool);
}

/** The kind each tool name but bash's has by its name alone, once found (for the first {@link KNOWN_TOOLS} names). */
const kinds = new Map<string, ToolKind>();

/** How many tool names {@link kinds} keeps: a session uses a few dozen; a hostile export's millions are told each time. */
const KNOWN_TOOLS = 1024;

/** The kind of a tool call (see the module's comment): by its name, unless it waits ({@link isWait}). */
export function toolKind(call: ToolCall): ToolKind {
  const { tool } = call;
  if (tool === "bash") return isWait(call) ? "waiting" : "other";
  let kind = kinds.get(tool);
  if (kind === undefined) {
    kind = EFFECT_TOOLS.has(tool)
      ? "effect"
      : PLANNING_TOOLS.has(tool)
        ? "planning"
        : ASKING_TOOLS.has(tool) || ASKING_NAME.test(tool)
          ? "asking"
          : "other";
    if (kinds.size < KNOWN_TOOLS) kinds.set(tool, kind);
  }
  return kind !== "effect" && kind !== "planning" && isWait(call) ? "waiting" : kind;
}

/** The file an effect call targets (`filePath`, `path`), or null. */
export function targetFile(call: ToolCall): string | null {
  const input = call.input as { filePath?: unknown; path?: unknown } | null;
  const file = input?.filePath ?? input?.path;
  return typeof file === "string" ? file : null;
}

/**
 * opencode's subagents that cannot change anything (agent/agent.ts: `explore` has no edit,
 * write or patch tool). Asked the same question again, such a subagent can only find again
 * what it found; any other subagent may have done the work it reports.
 */
const READ_ONLY_SUBAGENTS = new Set(["explore"]);

/** A `task` call handed to a subagent that cannot change anything (see READ_ONLY_SUBAGENTS). */
export function delegatesReadOnly(call: ToolCall): boolean {
  const agent = (call.input as { subagent_type?: unknown } | null)?.subagent_type;
  return call.tool === "task" && typeof agent === "string" && READ_ONLY_SUBAGENTS.has(agent);
}

/** Tool calls for tests, read as the opencode host reads them (src/hosts/opencode/actions.ts). */
import { openCodeAction } from "../../src/hosts/opencode/actions.js";
import type { Asked } from "../../src/model/action.js";
import type { ToolCall } from "../../src/model/entry.js";

/** A finished opencode tool call of `tool` with `input`, `output` and `status`, with the action the host reads in it. */
export const toolCall = (tool: string, input: unknown, output: unknown = "", status: ToolCall["status"] = "completed"): ToolCall => ({
  tool,
  action: openCodeAction(tool, input),
  input,
  output,
  status,
});

/** What a call with `input` asked for (model/action.ts `Asked`), as the opencode host reads it. */
export const askedOf = (input: unknown): Asked => openCodeAction("websearch", input).asked;

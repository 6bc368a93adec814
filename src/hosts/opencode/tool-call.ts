/**
 * The call opencode just finished (`tool.execute.after`) in the session's history: the history
 * the tool-loop check reads, with the call's own part as the hook knows it.
 */
import { isRecord } from "../../shared/record.js";
import type { CallInTimeline } from "../../model/timeline.js";
import { buildTimeline } from "./v1.js";

/** A call opencode just finished: its part's `callID`, tool, input and output (or error). */
export interface FinishedCall {
  readonly callID: string;
  readonly tool: string;
  readonly input: unknown;
  /** The output of a completed call, the error of a failed one. */
  readonly output: unknown;
  readonly status: "completed" | "error";
}

/**
 * The timeline of the newest `limit` of `messages` with `call` in it: its tool part (found by
 * `callID`, newest message first) read as `call` says, since the stored part may still be
 * `running`; when no part has that `callID`, the call is read as one more step at the end.
 *
 * @param messages the session's messages, oldest first, as `client.session.messages` returns
 *   them (`Array<{ info, parts }>`); not changed.
 * @returns the timeline, the position of the message holding the call and the call's index
 *   among that entry's finished tool calls; never throws.
 */
export function timelineWithCall(messages: readonly unknown[], call: FinishedCall, limit: number): CallInTimeline {
  const slice = messages.length > limit ? messages.slice(-limit) : messages.slice();
  const state =
    call.status === "completed"
      ? { status: "completed", input: call.input, output: call.output }
      : { status: "error", input: call.input, error: call.output };
  let at = -1;
  let partIndex = -1;
  for (let i = slice.length - 1; i >= 0 && at === -1; i--) {
    const message = slice[i];
    const parts = isRecord(message) && Array.isArray(message.parts) ? message.parts : [];
    const j = parts.findIndex((part) => isRecord(part) && part.type === "tool" && part.callID === call.callID);
    if (j !== -1) [at, partIndex] = [i, j];
  }
  if (at === -1) {
    slice.push({
      info: { id: `pending_${call.callID}`, role: "assistant" },
      parts: [{ type: "tool", callID: call.callID, tool: call.tool, state }],
    });
    [at, partIndex] = [slice.length - 1, 0];
  } else {
    const message = slice[at] as { parts: unknown[] };
    const parts = [...message.parts];
    parts[partIndex] = { ...(parts[partIndex] as Record<string, unknown>), tool: call.tool, state };
    slice[at] = { ...message, parts };
  }
  // The call is the k-th finished tool part of its message: entry.toolCalls[k].
  const parts = (slice[at] as { parts: unknown[] }).parts;
  let k = 0;
  for (let j = 0; j < partIndex; j++) {
    const part = parts[j];
    const status = isRecord(part) && part.type === "tool" && isRecord(part.state) ? part.state.status : undefined;
    if (status === "completed" || status === "error") k += 1;
  }
  return { timeline: buildTimeline(slice), position: at, callIndex: k };
}

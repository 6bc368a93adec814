/**
 * Whole opencode sessions → {@link SessionData}: an `opencode export` (`{ info, messages }`,
 * V1 messages oldest first) or a V2 session's messages or durable events.
 */
import type { SessionData } from "../../model/session.js";
import { buildTimeline, unphysicalTokenMessages } from "./v1.js";
import { v2InOrder, v2MessagesFromEvents, v2Session } from "./v2.js";

/** A session's record as opencode keeps it (`Session.Info`): its `id` and whatever else it holds. */
export type SessionInfo = SessionData["info"];

/** A V1 session: its record and its messages (`Array<{ info, parts }>`, oldest first), as `opencode export` writes them. */
export function v1SessionData(info: SessionInfo, messages: readonly unknown[]): SessionData {
  return { info, timeline: buildTimeline(messages), unphysicalTokens: unphysicalTokenMessages(messages) };
}

/**
 * A V2 session (opencode's V2 session runner): its record (`runner` set to `"v2"`) and its
 * messages, either order, or its durable events, oldest first.
 * @param roleless as for `v2Session`: `drop` (a file) leaves out the messages that are no one's words.
 */
export function v2SessionData(
  info: SessionInfo,
  records: { readonly messages: readonly unknown[] } | { readonly events: readonly unknown[] },
  roleless: "keep" | "drop" = "keep",
): SessionData {
  const messages = "events" in records ? v2MessagesFromEvents(records.events) : v2InOrder(records.messages);
  const { timeline, unphysicalTokens } = v2Session(messages, { roleless });
  return { info: { ...info, runner: "v2" }, timeline, unphysicalTokens };
}

/** An `opencode export` already parsed (`{ info, messages }`, see sessions/export.ts for its validation) as a session. */
export function exportedSession(exported: { readonly info: SessionInfo; readonly messages: readonly unknown[] }): SessionData {
  return v1SessionData(exported.info, exported.messages);
}

/**
 * Whole opencode sessions → {@link SessionData}: an `opencode export` (`{ info, messages }`,
 * V1 messages oldest first) or a V2 session's messages or durable events.
 */
import type { SessionData, SessionRecord } from "../../model/session.js";
import { finiteOrNull } from "../../shared/numbers.js";
import { isRecord } from "../../shared/record.js";
import { buildTimeline, unphysicalTokenMessages } from "./v1.js";
import { v2InOrder, v2MessagesFromEvents, v2Session } from "./v2.js";

/** A session's record as opencode keeps it (`Session.Info`): its `id` and whatever else it holds. */
export type SessionInfo = { readonly id: string } & Readonly<Record<string, unknown>>;

/**
 * opencode's `Session.Info` as a host-neutral record: `title`, `directory`, `parentID` (the
 * parent, "" read as none) and `time.created` / `time.updated` (ms) where they have the
 * right type. A session of the V2 runner (`v2`, or `runner: "v2"` in the record) has no
 * synthetic continue turn.
 */
export function opencodeRecord(info: SessionInfo, v2: boolean): SessionRecord {
  const time = isRecord(info.time) ? info.time : {};
  return {
    id: info.id,
    title: typeof info.title === "string" ? info.title : "",
    directory: typeof info.directory === "string" ? info.directory : undefined,
    parent: typeof info.parentID === "string" && info.parentID !== "" ? info.parentID : null,
    created: finiteOrNull(time.created),
    updated: finiteOrNull(time.updated),
    continueTurn: !v2 && info.runner !== "v2",
  };
}

/** A V1 session: its record and its messages (`Array<{ info, parts }>`, oldest first), as `opencode export` writes them. */
export function v1SessionData(info: SessionInfo, messages: readonly unknown[]): SessionData {
  return { record: opencodeRecord(info, false), timeline: buildTimeline(messages), unphysicalTokens: unphysicalTokenMessages(messages) };
}

/**
 * A V2 session (opencode's V2 session runner): its record (no synthetic continue turn) and its
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
  return { record: opencodeRecord(info, true), timeline, unphysicalTokens };
}

/** An `opencode export` already parsed (`{ info, messages }`, see sources/export.ts for its validation) as a session. */
export function exportedSession(exported: { readonly info: SessionInfo; readonly messages: readonly unknown[] }): SessionData {
  return v1SessionData(exported.info, exported.messages);
}

/**
 * Where each runtime's history becomes a Timeline (decide/history.ts): the only places the
 * plugin turns host data into the session model.
 */
import { buildTimeline, type Timeline } from "../decide/history.js";
import { v2MessagesFromEvents, v2ToV1Messages } from "../decide/v2-history.js";

/** opencode 1.x's V1 messages (`client.session.messages` data, `{ info, parts }`, oldest first) as a Timeline. */
export const v1Timeline = (messages: readonly unknown[]): Timeline => buildTimeline(messages);

/** V2 `SessionMessage`s (oldest first: decide/v2-history.ts's `v2InOrder`) as a Timeline. */
export const v2Timeline = (messages: readonly unknown[]): Timeline => buildTimeline(v2ToV1Messages(messages));

/** The V2 `SessionMessage`s a session's kept events (the 2.x entry's `event.subscribe`, oldest first) make up. */
export const v2MessagesOf = (events: readonly unknown[]): Record<string, unknown>[] => v2MessagesFromEvents(events);

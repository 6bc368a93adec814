/**
 * Where each runtime's history becomes a Timeline (hosts/opencode/): the only places the
 * plugin turns host data into the session model.
 */
import { buildTimeline } from "../hosts/opencode/v1.js";
import { buildV2Timeline, v2MessagesFromEvents } from "../hosts/opencode/v2.js";
import type { Timeline } from "../model/timeline.js";

/** opencode 1.x's V1 messages (`client.session.messages` data, `{ info, parts }`, oldest first) as a Timeline. */
export const v1Timeline = (messages: readonly unknown[]): Timeline => buildTimeline(messages);

/** V2 `SessionMessage`s (oldest first: hosts/opencode/v2.ts's `v2InOrder`) as a Timeline. */
export const v2Timeline = (messages: readonly unknown[]): Timeline => buildV2Timeline(messages);

/** The V2 `SessionMessage`s a session's kept events (the 2.x entry's `event.subscribe`, oldest first) make up. */
export const v2MessagesOf = (events: readonly unknown[]): Record<string, unknown>[] => v2MessagesFromEvents(events);

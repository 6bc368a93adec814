/**
 * The V1 `event` hook: every message event updates the sessions' mirror (./mirror.ts), and
 * the first of a session starts its first read; an automatic compaction's start starts the
 * decision's look-ups (./lookups.ts); a deleted session is forgotten, every slot of its record (./sessions.ts); when a
 * session with a stop note waiting goes idle, the note is written (once); every event also goes to the watch over V2
 * sessions (../opencode-v2/v2-runner.ts), which decides their automatic compactions.
 */
import type { Hooks } from "@opencode-ai/plugin";
import type { SessionMirror } from "./mirror.js";
import type { SessionStore } from "./sessions.js";
import type { StopNotes } from "./stop-note.js";
import type { ToolLoopHooks } from "./tool-loop.js";

type EventHook = NonNullable<Hooks["event"]>;

/** The session an event says went idle (`session.status` idle, or `session.idle`), else undefined. */
function idleSession(event: unknown): string | undefined {
  const e = event as { type?: unknown; properties?: { sessionID?: unknown; status?: { type?: unknown } } } | null | undefined;
  const idle = e?.type === "session.idle" || (e?.type === "session.status" && e.properties?.status?.type === "idle");
  const sessionID = e?.properties?.sessionID;
  return idle && typeof sessionID === "string" ? sessionID : undefined;
}
/** The session an event says was deleted (`session.deleted`), else undefined. */
function deletedSession(event: unknown): string | undefined {
  const e = event as { type?: unknown; properties?: { info?: { id?: unknown }; sessionID?: unknown } } | null | undefined;
  if (e?.type !== "session.deleted") return undefined;
  const id = e.properties?.info?.id ?? e.properties?.sessionID;
  return typeof id === "string" ? id : undefined;
}

/** What the event hook passes events to. */
export interface EventDeps {
  readonly notes: StopNotes;
  readonly toolLoop: Pick<ToolLoopHooks, "sessionIdle">;
  /** The guard's per-session store, which forgets a deleted session. */
  readonly sessions: Pick<SessionStore, "forget">;
  /** The watch over V2 sessions: resolves once a compaction's decision is done; never rejects. */
  readonly v2: { event(event: unknown): Promise<void> };
  /** The sessions' messages as read so far, kept up to date from the events. */
  readonly mirror: Pick<SessionMirror, "event" | "kept" | "seeding">;
  /** Starts the guard's first read of a session in the background (its steps then read the mirror). Never rejects. */
  readonly firstSight: (sessionID: string) => void;
  /** An automatic compaction of the session starts (its `compaction` part, by id, and the part's message id): the decision's look-ups start (./lookups.ts). Never throws. */
  readonly compactionStarted?: (sessionID: string, partID: string, messageID: string) => void;
}

/** The session, part and message of an automatic compaction's `compaction` part (`message.part.updated`), else undefined. */
function compactionStart(event: unknown): { sessionID: string; partID: string; messageID: string } | undefined {
  const e = event as {
    type?: unknown;
    properties?: { part?: { type?: unknown; auto?: unknown; sessionID?: unknown; id?: unknown; messageID?: unknown } };
  };
  const part = e?.type === "message.part.updated" ? e.properties?.part : undefined;
  if (part?.type !== "compaction" || part.auto !== true || typeof part.sessionID !== "string") return undefined;
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  return { sessionID: part.sessionID, partID: text(part.id), messageID: text(part.messageID) };
}

/** The session a message event is about (`message.*`), else undefined. */
function messageSession(event: unknown): string | undefined {
  const e = event as {
    type?: unknown;
    properties?: { info?: { sessionID?: unknown }; part?: { sessionID?: unknown }; sessionID?: unknown };
  };
  if (typeof e?.type !== "string" || !e.type.startsWith("message.")) return undefined;
  const id = e.properties?.info?.sessionID ?? e.properties?.part?.sessionID ?? e.properties?.sessionID;
  return typeof id === "string" ? id : undefined;
}

/** Builds the `event` hook. Never rejects. */
export function createEventHandler(deps: EventDeps): EventHook {
  const v1Event: EventHook = async (input) => {
    deps.mirror.event(input?.event);
    // A session's first event: read it now, off the steps' time, so that no step waits for it.
    const seen = messageSession(input?.event);
    if (seen !== undefined && !deps.mirror.kept(seen) && deps.mirror.seeding(seen) === undefined) deps.firstSight(seen);
    const compaction = compactionStart(input?.event);
    if (compaction !== undefined) deps.compactionStarted?.(compaction.sessionID, compaction.partID, compaction.messageID);
    const deleted = deletedSession(input?.event);
    if (deleted !== undefined) deps.sessions.forget(deleted);
    const sessionID = idleSession(input?.event);
    if (sessionID === undefined) return;
    deps.toolLoop.sessionIdle(sessionID);
    // The mirror keeps an idle session (events keep it current): its next prompt reads nothing again.
    await deps.notes.sessionIdle(sessionID);
  };
  return async (input) => {
    // Both start at once: the V1 part registers a note being written before it first waits.
    await Promise.all([deps.v2.event(input?.event), v1Event(input)]);
  };
}

/**
 * The note the guard leaves in a session whose loop it stopped: a user message added with
 * `noReply` (no model turn), holding one text part with `ignored: true`, which opencode shows
 * in the conversation and never sends to the model (session/prompt.ts, message-v2.ts).
 *
 * Not written when the loop is stopped but when the session next goes idle: right after the
 * autocontinue hook opencode reads the history again and answers a user message added then as
 * a new turn (checked in 1.18.33: the loop goes on). A toast is gone in seconds; the note stays.
 */
import { GUARD_NOTE_KEY, GUARD_NOTE_KINDS } from "../../hosts/opencode/guard-note.js";
import { reason, withTimeout, type Client, type Log } from "./calls.js";
import type { PendingNote, SessionStore } from "./sessions.js";

/** The body of `session.prompt`; opencode 1.18.33 also takes `variant` (its PromptInput), which the v1 types lack. */
type PromptBody = NonNullable<Parameters<Client["session"]["prompt"]>[0]>["body"] & { variant?: string };

/** The stop notes of one guard: {@link createStopNotes}. */
export interface StopNotes {
  /** Keeps `note` for `sessionID` (replacing one already waiting) until the session goes idle. */
  readonly leaveWhenIdle: (sessionID: string, note: PendingNote) => void;
  /** The session went idle: writes its waiting note, if any, once. Never rejects. */
  readonly sessionIdle: (sessionID: string) => Promise<void>;
  /** opencode is shutting down: waits at most `2 × timeoutMs` for notes being written. Never rejects. */
  readonly dispose: () => Promise<void>;
}

/**
 * The stop notes of one guard, each waiting in its session's record (slot `stopNote`, kept past
 * the record's eviction, ./sessions.ts).
 * @param sessions the guard's per-session store.
 * @param client opencode's SDK client (`session.messages`, `session.prompt`).
 * @param log the guard's log (a failed write is one warn line, a stale note one debug line).
 * @param timeoutMs how long each SDK call may take, ms.
 */
export function createStopNotes(sessions: SessionStore, client: Client, log: Log, timeoutMs: number): StopNotes {
  /** Notes being written; `dispose` waits for them (`opencode run` exits right after the session goes idle). */
  const writing = new Set<Promise<void>>();

  /**
   * Writes the note, only while the stopped step is still the session's last message: when
   * anything came after it (the user replied, or a later plugin turned the continue turn back
   * on), the note would be stale. Each call waits at most timeoutMs. Never rejects.
   */
  const write = async (sessionID: string, waiting: PendingNote): Promise<void> => {
    let note = waiting;
    try {
      if (typeof client.session?.prompt !== "function") return;
      const response = await withTimeout(
        Promise.resolve(client.session.messages({ path: { id: sessionID }, query: { limit: 1 } })),
        timeoutMs,
        "session.messages",
      );
      const data: unknown = (response as { data?: unknown } | undefined)?.data;
      const last = (Array.isArray(data) ? data.at(-1) : undefined) as
        | {
            info?: {
              role?: unknown;
              summary?: unknown;
              parentID?: unknown;
              agent?: unknown;
              mode?: unknown;
              providerID?: unknown;
              modelID?: unknown;
            };
          }
        | undefined;
      const fresh =
        note.kind === "tool-loop"
          ? last?.info?.role === "assistant" && last.info.summary !== true
          : last?.info?.role === "assistant" && last.info.summary === true && last.info.parentID === note.compactionID;
      if (note.kind === "tool-loop" && fresh && last?.info) {
        // The stopped step's agent and model, so that the note changes neither for the session.
        const { agent, mode, providerID, modelID } = last.info;
        const name = typeof agent === "string" ? agent : typeof mode === "string" ? mode : undefined;
        note = {
          ...note,
          agent: name,
          model: typeof providerID === "string" && typeof modelID === "string" ? { providerID, modelID } : undefined,
        };
      }
      if (!fresh) {
        await log("debug", `compaction-guard left no note in session ${sessionID}: the session went on after the stopped compaction`, {
          sessionID,
        });
        return;
      }
      const now = Date.now();
      const body: PromptBody = {
        noReply: true,
        ...(note.agent !== undefined ? { agent: note.agent } : {}),
        ...(note.model !== undefined ? { model: { providerID: note.model.providerID, modelID: note.model.modelID } } : {}),
        ...(note.variant !== undefined ? { variant: note.variant } : {}),
        parts: [
          {
            type: "text",
            text: note.text,
            ignored: true,
            time: { start: now, end: now },
            metadata: {
              [GUARD_NOTE_KEY]:
                note.kind === "tool-loop"
                  ? { note: GUARD_NOTE_KINDS.toolLoop }
                  : { note: GUARD_NOTE_KINDS.compaction, rule: note.rule, compactionMessageID: note.compactionID },
            },
          },
        ],
      };
      const result = await withTimeout(
        Promise.resolve(client.session.prompt({ path: { id: sessionID }, body })),
        timeoutMs,
        "session.prompt",
      );
      const error = (result as { error?: unknown } | undefined)?.error;
      if (error !== undefined && error !== null) throw new Error(`session.prompt failed (${JSON.stringify(error)})`);
    } catch (error) {
      await log("warn", `compaction-guard could not leave its note in session ${sessionID}: ${reason(error)}`, { sessionID });
    }
  };

  return {
    leaveWhenIdle(sessionID, note) {
      sessions.use(sessionID).stopNote = note;
    },
    async sessionIdle(sessionID) {
      const record = sessions.find(sessionID);
      const note = record?.stopNote;
      if (note === undefined) return;
      record!.stopNote = undefined;
      const written = write(sessionID, note);
      writing.add(written);
      void written.finally(() => writing.delete(written));
      await written;
    },
    async dispose() {
      if (writing.size === 0) return;
      try {
        await withTimeout(Promise.all([...writing]), 2 * timeoutMs, "the guard's notes");
      } catch {
        // Shutting down: nowhere left to report to.
      }
    },
  };
}

/**
 * Prevention, opencode glue: two hooks that change only what a model is sent, never what is
 * stored, both derived from the session's history read through `client.session.messages`.
 *
 * - `experimental.session.compacting` (opencode 1.18.33 session/compaction.ts, before every
 *   summary request): pushes the ledger (../../guard/ledger.ts) to `output.context`, which
 *   opencode appends after its summary template. `output.prompt` is never set: that would
 *   drop the template.
 * - `experimental.chat.messages.transform` (the same file, on the clone the summarizer reads,
 *   and session/prompt.ts, before every model request): in the in-memory messages, the text
 *   of each synthetic continue part (`metadata.compaction_continue`) becomes the continue
 *   note. The summarizer then no longer reads an earlier continue turn as `[User]: Continue
 *   if you have next steps…`.
 *
 * Every failure leaves opencode's text as it was and logs one warn line; nothing is thrown. A
 * read before a model request that fails or is slow makes the guard back off instead
 * (plugin/opencode-v1/backoff.ts): one warn line for all requests until opencode answers again.
 *
 * The note of a continue turn is made once, from the calls completed before the compaction
 * that turn follows, and kept for the session: every request of the cycle (the transform
 * runs before each) sends the same bytes, so a provider's prompt cache keeps the prefix that
 * ends with it, however far the cycle runs past the bounded read.
 */
import type { Hooks } from "@opencode-ai/plugin";
import type { Timeline } from "../../model/timeline.js";
import { continueNote, LEDGER_HEADER } from "../../guard/ledger.js";
import { continueNoteBefore, summaryLedger } from "../../guard/prevention.js";
import { continueParts, rewriteContinueText } from "../../hosts/opencode/continue-turn.js";
import { v1Timeline } from "../timelines.js";
import type { DecisionRead } from "./mirror.js";
import type { SessionStore } from "./sessions.js";

type CompactingHook = NonNullable<Hooks["experimental.session.compacting"]>;
type TransformHook = NonNullable<Hooks["experimental.chat.messages.transform"]>;

/** What the prevention hooks take from the guard. */
export interface PreventionDeps {
  /** The guard's per-session store: the notes sent are kept in each session's slot `continueNotes` (./sessions.ts). */
  readonly sessions: SessionStore;
  /**
   * The newest `limit` messages of a session, oldest first, and their timeline (the kept ones
   * when current, else `client.session.messages` with `query.limit`, under a timeout);
   * rejects when the read fails or returns no list.
   */
  readonly readMessages: DecisionRead;
  /**
   * The same read for the transform, which runs before every model request: undefined when
   * this request reads nothing (the guard backs off from a slow opencode, plugin/opencode-v1/backoff.ts,
   * and has said so). Never rejects.
   */
  readonly readForStep: (sessionID: string) => Promise<readonly unknown[] | undefined>;
  /** How many messages `readMessages` asks for: fewer back means the whole session. */
  readonly limit: number;
  /** The project directory: file paths in previews are shown relative to it. */
  readonly directory: string | undefined;
  /** Logs one warn line about `error` (the guard masks secrets and keeps one line). Never rejects. */
  readonly warn: (message: string, error: unknown, sessionID: string) => Promise<void>;
}

/** Notes kept per session (one per compaction): a cycle's turn is in the messages sent until the next compaction. */
const MAX_NOTES_PER_SESSION = 16;

/**
 * The notes already sent, per session and continue turn (one per compaction): a note is made
 * once and then given back byte for byte while the session's record keeps it (./sessions.ts),
 * at most {@link MAX_NOTES_PER_SESSION} per session.
 */
class NoteCache {
  constructor(private readonly sessions: SessionStore) {}

  get(sessionID: string, messageID: string): string | undefined {
    const notes = this.sessions.find(sessionID)?.continueNotes;
    if (notes === undefined) return undefined;
    this.sessions.use(sessionID);
    return notes.get(messageID);
  }

  set(sessionID: string, messageID: string, note: string): void {
    const record = this.sessions.use(sessionID);
    const notes = (record.continueNotes ??= new Map());
    notes.set(messageID, note);
    if (notes.size > MAX_NOTES_PER_SESSION) notes.delete(notes.keys().next().value!);
  }
}

/**
 * The note for the continue turn at `position` in `timeline`: from the calls completed before
 * the compaction it follows (the one at or before it), so that it is a function of the
 * history up to that compaction. Names no calls when the turn is not in the timeline or the
 * look-back before the compaction is not wholly in it.
 */
function noteAt(timeline: Timeline, position: number, directory: string | undefined, wholeSession: boolean): string {
  if (position < 0) return continueNote(null);
  let end = position;
  for (const compaction of timeline.compactions) if (compaction.position < position) end = compaction.position;
  return continueNoteBefore(timeline, end, { directory, wholeSession });
}

/** The two prevention hooks: {@link createPrevention}. */
export interface PreventionHooks {
  /** `experimental.session.compacting`: the ledger for the summary request. */
  readonly compacting: CompactingHook;
  /** `experimental.chat.messages.transform`: the continue note in place of opencode's continue text. */
  readonly transform: TransformHook;
}

/**
 * The two prevention hooks. The transform keeps the notes it made (see {@link NoteCache}):
 * a continue turn whose note is kept costs no read. Neither ever throws.
 */
export function createPrevention(deps: PreventionDeps): PreventionHooks {
  const notes = new NoteCache(deps.sessions);
  const compacting: CompactingHook = async (input, output) => {
    const sessionID = typeof input?.sessionID === "string" ? input.sessionID : "unknown";
    try {
      if (!Array.isArray(output?.context)) throw new Error("the hook's output has no context list");
      // The plugin listed twice: the first copy already wrote it.
      if (output.context.some((text) => typeof text === "string" && text.startsWith(LEDGER_HEADER))) return;
      // Kept messages do once they hold the compaction being summarised: one whose summary has not finished.
      const { data, timeline } = await deps.readMessages(sessionID, (kept) => kept.compactions.at(-1)?.succeeded === false);
      const compaction = timeline.compactions.at(-1);
      if (!compaction) throw new Error(`no compaction among the ${data.length} newest messages`);
      // After an overflow compaction opencode re-sends the user's message instead of "Continue".
      const text = summaryLedger(timeline, compaction.position, compaction.auto && !compaction.overflow, {
        directory: deps.directory,
        wholeSession: data.length < deps.limit,
      });
      if (text !== null) output.context.push(text);
    } catch (error) {
      await deps.warn(
        `compaction-guard could not write its ledger for the summary of session ${sessionID}; opencode's prompt left as it was`,
        error,
        sessionID,
      );
    }
  };

  const transform: TransformHook = async (_input, output) => {
    let sessionID = "unknown";
    try {
      const messages: unknown = output?.messages;
      if (!Array.isArray(messages)) return;
      const found = continueParts(messages);
      const targets = found.parts;
      sessionID = found.sessionID ?? sessionID;
      if (targets.length === 0) return;
      if (sessionID === "unknown") throw new Error("the continue turn names no session");
      const made = new Map<string, string>();
      if (targets.some(({ messageID }) => notes.get(sessionID, messageID) === undefined)) {
        const data = await deps.readForStep(sessionID);
        if (data === undefined) return;
        const timeline = v1Timeline(data);
        const wholeSession = data.length < deps.limit;
        for (const { messageID } of targets) {
          if (notes.get(sessionID, messageID) !== undefined || made.has(messageID)) continue;
          const position = timeline.entries.findIndex((entry) => entry.id === messageID);
          made.set(messageID, noteAt(timeline, position, deps.directory, wholeSession));
        }
      }
      // Every new text first, then every change: a failure half-way changes nothing.
      const changes: Array<() => void> = [];
      for (const part of targets) {
        const note = notes.get(sessionID, part.messageID) ?? made.get(part.messageID)!;
        const text = rewriteContinueText(part.text, note);
        if (text === null) continue;
        // A new part object in a new list: whatever else holds the old ones is not touched.
        changes.push(() => part.replace(text));
      }
      // A note kept meanwhile (a concurrent request) wins: the first one sent stays.
      for (const [messageID, note] of made) if (notes.get(sessionID, messageID) === undefined) notes.set(sessionID, messageID, note);
      for (const change of changes) change();
    } catch (error) {
      await deps.warn(
        `compaction-guard could not rewrite the continue turn of session ${sessionID}; opencode's text left as it was`,
        error,
        sessionID,
      );
    }
  };

  return { compacting, transform };
}

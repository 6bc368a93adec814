/**
 * One message of a session as the rules read it, whatever host recorded it: an assistant
 * step (or a compaction's summary), a user message classified by who spoke, or anything else.
 * A host (hosts/<name>/) turns its own records into these; nothing here knows a host's format.
 */
import type { Action } from "./action.js";

/**
 * A finished tool call (completed or errored) as the rules need it: input and output are
 * the host's values, kept, not copied. Calls that have not finished are not calls yet.
 */
export interface ToolCall {
  /** Tool name as the host shows it (`bash`, `read`, an MCP tool id …): for showing and for the user's `ignore` list, never for telling what the call does. */
  readonly tool: string;
  /** What the call does and asked for, as its host read it (./action.ts): what the judge reads. */
  readonly action: Action;
  /** The call's input, untouched: for the redacted previews and size estimates of readers that show calls. */
  readonly input: unknown;
  /**
   * The output of a completed call (without the guard's own tool-loop notice, see
   * {@link TOOL_LOOP_NOTICE_MARK}), the error of an errored one, otherwise untouched.
   */
  readonly output: unknown;
  /** The call ran to its end, or failed (a permission rule, a bad edit …). */
  readonly status: "completed" | "error";
}

/**
 * How the guard's tool-loop notice begins where the guard appends it to a tool's output.
 * What follows it is the guard's, not the tool's: a host leaves it out of the output it
 * records in a {@link ToolCall} (see {@link withoutToolLoopNotice}), so that the run that
 * carried the notice and the next run read the same.
 */
export const TOOL_LOOP_NOTICE_MARK = "\n\n[compaction-guard: tool loop] ";

/** How far from the end of an output the notice may begin (characters): it is short and always last. */
const NOTICE_TAIL_CHARS = 1_000;

/** The mark without its two line feeds: it begins with a character outputs seldom hold, where line feeds are everywhere. */
const NOTICE_MARK_TEXT = TOOL_LOOP_NOTICE_MARK.slice(2);

/** A completed call's output without the guard's tool-loop notice at its end, if it carries one; any other value untouched. */
export function withoutToolLoopNotice(output: unknown): unknown {
  if (typeof output !== "string") return output;
  // Only the tail is searched: a big output costs no more than a small one. The first mark in
  // it is found by its text, then checked for the line feeds before it: searching for the
  // whole mark would stop at every line feed of the tail.
  const from = Math.max(0, output.length - NOTICE_TAIL_CHARS);
  for (let at = output.indexOf(NOTICE_MARK_TEXT, from + 2); at !== -1; at = output.indexOf(NOTICE_MARK_TEXT, at + 1)) {
    if (output.startsWith("\n\n", at - 2)) return output.slice(0, at - 2);
  }
  return output;
}

/**
 * The most tokens one step can count: far above any model's context (10 million at most
 * today), far below what would print as a 13-digit number. More is not a count but damage.
 */
export const MAX_PHYSICAL_TOKENS = 1e12;

/** An assistant message: a step of the model, or a compaction's summary. Token counts are in tokens. */
export interface AssistantEntry {
  readonly kind: "assistant";
  readonly id: string;
  /** The compaction agent's summary of the history before it, not a step. */
  readonly summary: boolean;
  /** For a summary: the id of the compaction ({@link UserEntry} of role `compaction`) it summarises, as the host links them. */
  readonly compactionID: string | undefined;
  /** The step (or summary) ended normally: it has a finish reason and no error. */
  readonly succeeded: boolean;
  /** The finish reason as the host recorded it (`"stop"`, `"tool-calls"`, `"length"` …), or null. */
  readonly finish: string | null;
  /** The context size of this step in tokens, as the host's own overflow check measures it; null without data. */
  readonly contextTokens: number | null;
  /**
   * The size of the prompt this step sent, in tokens (what the context held before the model
   * answered; output and reasoning excluded), else {@link contextTokens}; null without data.
   */
  readonly promptTokens: number | null;
  /**
   * Output tokens, hidden reasoning excluded: for a summary, the size of the text the host
   * keeps in the context. 0 without data.
   */
  readonly outputTokens: number;
  /**
   * Who answered: `provider/model agent`, or null when the host names none of them. A change
   * means another system prompt, other tools, another tokenizer.
   */
  readonly model: string | null;
  /** Tool calls that completed or errored, in order. */
  readonly toolCalls: readonly ToolCall[];
  /** Tool calls of any status (pending and running too). */
  readonly toolParts: number;
  /** The text the model wrote in this step (joined by newlines). */
  readonly text: string;
  /**
   * The message holds nothing the model produced (no text, reasoning or tool call; only
   * bookkeeping): what a request the provider refused leaves behind.
   */
  readonly empty: boolean;
  /** When the message ended (ms since the epoch), else when it began; null when the host recorded neither. */
  readonly time: number | null;
}

/** A user message, classified the way the rules need. */
export interface UserEntry {
  readonly kind: "user";
  readonly id: string;
  /**
   * `real`: typed by a person (or a command); it resets the rules' counts. (The copy a host
   * re-sends after an overflow compaction reads as real too; see `resend`.)
   * `compaction`: the host's compaction request. `continue`: the host's synthetic continue
   * turn after an automatic compaction. `synthetic`: written by the host or a tool (a finished
   * background task's result …), or shown to the user but never sent to the model (the
   * guard's note after it stopped a loop); no person spoke.
   * `resend`: the copy of the last real message the host sends right after the summary of an
   * overflow compaction instead of a continue turn; the user did not speak again.
   */
  readonly role: "real" | "compaction" | "continue" | "synthetic" | "resend";
  /** The text a person (or the host, for a synthetic one) wrote, joined by newlines ("" when none). */
  readonly text: string;
  /** For a compaction message: the host started it by itself (not the user). */
  readonly auto: boolean;
  /** For a compaction message: the provider refused the previous request as over its context limit. */
  readonly overflow: boolean;
  /**
   * For a compaction message: the id of the first message the host keeps verbatim after the
   * summary; undefined when the summary replaces everything.
   */
  readonly tailStartID?: string | undefined;
  /** Characters of every text the model is sent from this message: what it weighs in a prompt, for the predictor. */
  readonly sentChars?: number;
  /** UTF-8 bytes of the same texts: at least as many as the tokens of any byte-level tokenizer. */
  readonly sentBytes?: number;
  /** The message holds something else than text (a file, an agent, a subtask …): its size in a prompt is unknown. */
  readonly unsized?: boolean;
  /** The guard's own stop note, as the host read it: the guard already stopped a loop here. */
  readonly guardNote?: GuardStop;
  /** When the message ended (ms since the epoch), else when it began; null when the host recorded neither. */
  readonly time: number | null;
}

/** Anything else (unknown role, malformed record): kept so positions match the source. */
export interface OtherEntry {
  readonly kind: "other";
  readonly id: string | undefined;
  /** When the record ended or began (ms since the epoch), when it says; else null. */
  readonly time: number | null;
}

/** One message of the session, classified. */
export type Entry = AssistantEntry | UserEntry | OtherEntry;

/** A step: an assistant message that is not a compaction summary. */
export const isStep = (entry: Entry | undefined): entry is AssistantEntry => entry?.kind === "assistant" && !entry.summary;

/**
 * A step that did something: a tool call or text. A refused, empty request is not one, nor
 * a step of reasoning alone (a reasoning model whose hidden thinking used up the output).
 */
export const isWorkStep = (entry: Entry | undefined): entry is AssistantEntry =>
  isStep(entry) && (entry.toolParts > 0 || entry.text.trim() !== "");

/** A user message a person wrote (see {@link UserEntry.role}). */
export const isRealUser = (entry: Entry | undefined): boolean => entry?.kind === "user" && entry.role === "real";

/**
 * What the live guard did, as its stop note in a session says: `kind` `compaction` (it
 * denied the continue turn after the compaction message `compactionMessageID`, by `rule`) or
 * `tool-loop` (it refused a repeated call and stopped the session); `usableTokens` the usable
 * context (tokens) it decided against, when the note states one, else null.
 */
export interface GuardStop {
  readonly kind: "compaction" | "tool-loop";
  readonly rule: string | null;
  readonly compactionMessageID: string | null;
  readonly usableTokens: number | null;
}

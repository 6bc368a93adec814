/**
 * opencode messages → a flat timeline the rules can read, every field read defensively.
 *
 * The input is what `client.session.messages()` returns and what `opencode export` writes
 * under `messages`: `Array<{ info, parts }>`, oldest first. Every field is read
 * defensively: a message the guard cannot understand becomes an `other` entry and is
 * otherwise ignored, so that no shape of history makes the guard throw.
 */
import { isRecord } from "../shared/record.js";
import { CONTINUE_TEXT_PREFIX } from "./opencode-facts.js";

/**
 * A finished tool part (completed or errored) as the rules need it: raw input and output are
 * kept, not copied. Pending and running parts are not calls yet and are left out.
 */
export interface ToolCall {
  /** Tool name as opencode records it (`bash`, `read`, an MCP tool id …). */
  readonly tool: string;
  /** `state.input`, untouched. */
  readonly input: unknown;
  /**
   * `state.output` of a completed part (without the guard's own tool-loop notice, see
   * {@link TOOL_LOOP_NOTICE_MARK}), `state.error` of an errored one, otherwise untouched.
   */
  readonly output: unknown;
  /** `state.status`: the call ran to its end, or failed (a permission rule, a bad edit …). */
  readonly status: "completed" | "error";
}

/**
 * How the guard's tool-loop notice begins where plugin/tool-loop.ts appends it to a tool's
 * output. What follows it is the guard's, not the tool's: left out of the output the rules
 * compare, so that the run that carried the notice and the next run read the same.
 */
export const TOOL_LOOP_NOTICE_MARK = "\n\n[compaction-guard: tool loop] ";

/** How far from the end of an output the notice may begin (characters): it is short and always last. */
const NOTICE_TAIL_CHARS = 1_000;

/** The mark without its two line feeds: it begins with a character outputs seldom hold, where line feeds are everywhere. */
const NOTICE_MARK_TEXT = TOOL_LOOP_NOTICE_MARK.slice(2);

/** A completed call's output without the guard's tool-loop notice at its end, if it carries one. */
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

/** An assistant message. `contextTokens` is null when opencode recorded no usable size. */
export interface AssistantEntry {
  readonly kind: "assistant";
  readonly id: string;
  /** `summary: true`: the compaction agent's summary of the history before it. */
  readonly summary: boolean;
  /** For a summary: the id of the compaction user message it answers. */
  readonly parentID: string | undefined;
  /** `finish` is set and `error` is not: the step (or summary) ended normally. */
  readonly succeeded: boolean;
  /** `finish` as opencode recorded it (`"stop"`, `"tool-calls"`, `"length"` …), or null. */
  readonly finish: string | null;
  /** opencode's context size of this step in tokens, see {@link contextTokens}. */
  readonly contextTokens: number | null;
  /**
   * The size of the prompt this step sent, in tokens: `input + cache.read + cache.write`
   * (what the context held before the model answered; output and reasoning excluded).
   * Falls back to {@link contextTokens} when only `total` is recorded; null without data.
   */
  readonly promptTokens: number | null;
  /**
   * Output tokens as opencode recorded them (`tokens.output`, which opencode 1.18.33 already
   * keeps apart from `tokens.reasoning`): for a summary, the size of the text opencode keeps
   * in the context. 0 without data.
   */
  readonly outputTokens: number;
  /**
   * Who answered: `providerID/modelID` and the agent (`agent`, else `mode`), or null when the
   * message names neither. A change means another system prompt, other tools, another tokenizer.
   */
  readonly model: string | null;
  /** Tool parts that completed or errored, in part order. */
  readonly toolCalls: readonly ToolCall[];
  /** Tool parts of any status (pending and running too). */
  readonly toolParts: number;
  /** The text the model wrote in this step (its non-synthetic text parts, joined by newlines). */
  readonly text: string;
  /**
   * The message holds nothing the model produced (no text, reasoning or tool part; only
   * step markers, or no parts at all): what a request the provider refused leaves behind.
   */
  readonly empty: boolean;
}

/** A user message, classified the way the rules need. */
export interface UserEntry {
  readonly kind: "user";
  readonly id: string;
  /**
   * `real`: typed by a person (or a command); it resets the rules' counts. (The copy
   * opencode re-sends after an overflow compaction reads as real too; no-progress knows it.)
   * `compaction`: holds a `compaction` part. `continue`: opencode's synthetic continue turn.
   * `synthetic`: every part is `synthetic: true`, written by opencode or a tool (a finished
   * background task's result, "Summarize the task tool output above…"), or an `ignored: true`
   * text part the model never reads (the guard's note after it stopped a loop); no person spoke.
   * `resend`: the copy of the last real message opencode sends right after the summary of an
   * overflow compaction (session/compaction.ts replays it instead of adding a continue
   * turn); the user did not speak again.
   */
  readonly role: "real" | "compaction" | "continue" | "synthetic" | "resend";
  /** The text of its non-synthetic text parts, joined by newlines ("" when none). */
  readonly text: string;
  /** For a compaction message: `auto` of its compaction part. */
  readonly auto: boolean;
  /**
   * For a compaction message: `overflow` of its compaction part, true when the provider
   * refused the previous request as over its context limit (session/compaction.ts).
   */
  readonly overflow: boolean;
  /**
   * For a compaction message: `tail_start_id` of its compaction part, the first message
   * opencode keeps verbatim after the summary (session/compaction.ts `select`); undefined
   * when the summary replaces everything.
   */
  readonly tailStartID?: string | undefined;
  /**
   * Characters of every text part the model is sent (synthetic ones too; `ignored` ones not):
   * what the message weighs in a prompt, for the predictor (./predict.ts).
   */
  readonly sentChars?: number;
  /** UTF-8 bytes of the same text parts: at least as many as the tokens of any byte-level tokenizer. */
  readonly sentBytes?: number;
  /** The message has a part of another kind than text (a file, an agent, a subtask …): its size in a prompt is unknown. */
  readonly unsized?: boolean;
}

/** Anything else (unknown role, malformed entry): kept so positions match the source. */
export interface OtherEntry {
  readonly kind: "other";
  readonly id: string | undefined;
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

/** Does an entry strictly between positions `after` and `before` pass `test`? (No copy of the range is made.) */
export function anyBetween(entries: readonly Entry[], after: number, before: number, test: (entry: Entry) => boolean): boolean {
  for (let position = after + 1; position < before; position++) if (test(entries[position]!)) return true;
  return false;
}

/** One compaction in the timeline. Positions index {@link Timeline.entries}. */
export interface Compaction {
  /** 1-based among *automatic* compactions; 0 for a manual one. */
  readonly index: number;
  readonly auto: boolean;
  /** Set off by a provider context-overflow error rather than by opencode's own overflow check. */
  readonly overflow: boolean;
  /** Id of the user message holding the `compaction` part. */
  readonly messageID: string;
  /** Position of that user message. */
  readonly position: number;
  /** Position of its summary (assistant, `summary: true`, `parentID` = messageID), or -1. */
  readonly summaryPosition: number;
  /** The summary exists and finished without error. */
  readonly succeeded: boolean;
  /** `tail_start_id` of the compaction part (see {@link UserEntry.tailStartID}). */
  readonly tailStartID?: string | undefined;
}

/**
 * Position of a compaction's last message: its summary, or the compaction message itself
 * when the summary is missing. The history "as it stood when the summary finished" ends here.
 */
export const compactionEnd = (compaction: Compaction): number => Math.max(compaction.position, compaction.summaryPosition);

/** A session as the rules read it: its entries in order, and where its compactions are. */
export interface Timeline {
  readonly entries: readonly Entry[];
  /** Every compaction, manual ones too, in order. */
  readonly compactions: readonly Compaction[];
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/**
 * The most tokens one step can count: far above any model's context (10 million at most
 * today), far below what would print as a 13-digit number. More is not a count but damage.
 */
export const MAX_PHYSICAL_TOKENS = 1e12;

/** A token count opencode could have written: finite, ≥ 0 and at most {@link MAX_PHYSICAL_TOKENS}; anything else reads as 0 (missing). */
const count = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value > 0 && value <= MAX_PHYSICAL_TOKENS ? value : 0;

/** A number no model could have counted: negative, NaN, infinite (`1e400` parses so) or over {@link MAX_PHYSICAL_TOKENS}. */
const unphysical = (value: unknown): boolean =>
  typeof value === "number" && !(Number.isFinite(value) && value >= 0 && value <= MAX_PHYSICAL_TOKENS);

/**
 * Whether a step's `tokens` holds a count no model could have made (see {@link unphysical}) in
 * `total`, `input`, `output`, `reasoning`, `cache.read` or `cache.write`. Such a field reads
 * as missing (0), as an absent one does; this tells `replay` and `audit` to say so.
 */
export function hasUnphysicalTokens(tokens: unknown): boolean {
  if (!isRecord(tokens)) return false;
  if (unphysical(tokens.total) || unphysical(tokens.input) || unphysical(tokens.output) || unphysical(tokens.reasoning)) return true;
  const cache = tokens.cache;
  return isRecord(cache) && (unphysical(cache.read) || unphysical(cache.write));
}

/**
 * How many messages of a session (`Array<{ info, parts }>`) hold a token count no model could
 * have made in `info.tokens` (see {@link hasUnphysicalTokens}): their sizes are read as missing,
 * and `replay` and `audit` say so once.
 */
export function unphysicalTokenMessages(messages: readonly unknown[]): number {
  let found = 0;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (isRecord(message) && isRecord(message.info) && hasUnphysicalTokens(message.info.tokens)) found += 1;
  }
  return found;
}

/**
 * opencode's context size of one step, in tokens:
 * `tokens.total || input + output + cache.read + cache.write`
 * (session/overflow.ts, `isOverflow`). Non-numeric fields, and counts no model could have
 * made (negative, NaN, infinite, over {@link MAX_PHYSICAL_TOKENS}), read as 0: missing.
 *
 * @returns the size, or null when it is missing or zero (the rules treat both as "no data").
 */
export function contextTokens(tokens: unknown): number | null {
  return tokenSizes(tokens).context;
}

/**
 * The prompt size of one step, in tokens: `input + cache.read + cache.write`, else
 * {@link contextTokens} when only `total` is recorded. Null when missing or zero.
 */
export function promptTokens(tokens: unknown): number | null {
  return tokenSizes(tokens).prompt;
}

/**
 * The output a step leaves in the context, in tokens: `tokens.output` (opencode records
 * hidden reasoning apart, in `tokens.reasoning`, e.g. output 100 and reasoning 3,800 for a
 * reply of 3,900 completion tokens). 0 when missing or invalid (as for {@link contextTokens}).
 */
export function outputTokens(tokens: unknown): number {
  return tokenSizes(tokens).output;
}

/**
 * {@link contextTokens}, {@link promptTokens} and {@link outputTokens} of one `tokens`, its
 * fields read once: a timeline reads all three for every assistant message.
 */
function tokenSizes(tokens: unknown): { context: number | null; prompt: number | null; output: number } {
  if (!isRecord(tokens)) return { context: null, prompt: null, output: 0 };
  const cache = isRecord(tokens.cache) ? tokens.cache : undefined;
  const input = count(tokens.input);
  const output = count(tokens.output);
  const read = cache === undefined ? 0 : count(cache.read);
  const write = cache === undefined ? 0 : count(cache.write);
  const total = count(tokens.total) || input + output + read + write;
  const context = total > 0 ? total : null;
  const prompt = input + read + write;
  return { context, prompt: prompt > 0 ? prompt : context, output };
}

/** Part types that mark steps and snapshots rather than carry what the model produced. */
const BOOKKEEPING_PARTS = new Set(["step-start", "step-finish", "snapshot", "patch"]);

/** What a step's parts hold, read in one pass. */
function readParts(parts: readonly unknown[]): Pick<AssistantEntry, "toolCalls" | "toolParts" | "text" | "empty"> {
  const calls: ToolCall[] = [];
  // The model's text: most steps have one text part or none, so a list is made only for more.
  let text: string | undefined;
  let texts: string[] | undefined;
  let toolParts = 0;
  let empty = true;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (!isRecord(part)) {
      empty = false;
      continue;
    }
    const type = part.type;
    if (!BOOKKEEPING_PARTS.has(type as string)) empty = false;
    if (type === "text") {
      // The model's own text: opencode's synthetic and ignored parts are not.
      if (part.synthetic !== true && part.ignored !== true) {
        const piece = str(part.text) ?? "";
        if (text === undefined) text = piece;
        else (texts ??= [text]).push(piece);
      }
    } else if (type === "tool") {
      toolParts += 1;
      const state = part.state;
      if (!isRecord(state)) continue;
      const { status } = state;
      if (status !== "completed" && status !== "error") continue;
      calls.push({
        tool: str(part.tool) ?? "",
        input: state.input,
        output: status === "completed" ? withoutToolLoopNotice(state.output) : state.error,
        status,
      });
    }
  }
  return { toolCalls: calls, toolParts, text: texts ? texts.join("\n") : (text ?? ""), empty };
}

/**
 * Is this user message opencode's synthetic continue turn? The marker
 * `metadata.compaction_continue` comes first; opencode says it is not a stable contract,
 * so a synthetic text part starting with the continue text counts too.
 */
function isContinueTurn(parts: readonly unknown[]): boolean {
  return parts.some(
    (part) =>
      isRecord(part) &&
      part.type === "text" &&
      ((isRecord(part.metadata) && part.metadata.compaction_continue === true) ||
        (part.synthetic === true && str(part.text)?.startsWith(CONTINUE_TEXT_PREFIX) === true)),
  );
}

/**
 * No person's words in it: every part is marked `synthetic: true` or is a text part marked
 * `ignored: true` (shown to the user, never sent to the model, such as the guard's own note
 * after it stopped a loop), and there is at least one part.
 */
const isSynthetic = (parts: readonly unknown[]): boolean =>
  parts.length > 0 && parts.every((part) => isRecord(part) && (part.synthetic === true || (part.type === "text" && part.ignored === true)));

/** `providerID/modelID agent` of an assistant message's info, or null when it names none of them. */
function modelOf(info: Record<string, unknown>): string | null {
  const provider = str(info.providerID);
  const model = str(info.modelID);
  const agent = str(info.agent) ?? str(info.mode);
  return provider === undefined && model === undefined && agent === undefined ? null : `${provider ?? "?"}/${model ?? "?"} ${agent ?? "?"}`;
}

function toEntry(message: unknown): Entry {
  const info = isRecord(message) && isRecord(message.info) ? message.info : undefined;
  const id = str(info?.id);
  if (!info || id === undefined) return { kind: "other", id };
  const parts = isRecord(message) && Array.isArray(message.parts) ? message.parts : [];

  if (info.role === "assistant") {
    const { toolCalls, toolParts, text, empty } = readParts(parts);
    const sizes = tokenSizes(info.tokens);
    return {
      kind: "assistant",
      id,
      summary: info.summary === true,
      parentID: str(info.parentID),
      succeeded: info.finish !== undefined && info.finish !== null && !info.error,
      finish: str(info.finish) ?? null,
      contextTokens: sizes.context,
      promptTokens: sizes.prompt,
      outputTokens: sizes.output,
      model: modelOf(info),
      toolCalls,
      toolParts,
      text,
      empty,
    };
  }
  if (info.role === "user") {
    const compaction = parts.find((part) => isRecord(part) && part.type === "compaction");
    if (isRecord(compaction)) {
      return {
        kind: "user",
        id,
        role: "compaction",
        text: "",
        auto: compaction.auto === true,
        overflow: compaction.overflow === true,
        tailStartID: str(compaction.tail_start_id),
      };
    }
    const role = isContinueTurn(parts) ? "continue" : isSynthetic(parts) ? "synthetic" : "real";
    let sentChars = 0;
    let sentBytes = 0;
    let unsized = false;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (isRecord(part) && part.type === "text") {
        if (part.ignored !== true) {
          const text = str(part.text) ?? "";
          sentChars += text.length;
          sentBytes += Buffer.byteLength(text, "utf8");
        }
      } else unsized = true;
    }
    return { kind: "user", id, role, text: readParts(parts).text, auto: false, overflow: false, sentChars, sentBytes, unsized };
  }
  return { kind: "other", id };
}

/**
 * Re-labels as `resend` the "real" user message that directly follows the summary of an
 * overflow compaction and says what the last real message said: opencode's replay of it
 * (session/compaction.ts; seen in e2e/FINDINGS.md), which must not reset what the rules
 * count. A different text there is the user replying after a denied compaction: real.
 */
function markResends(entries: Entry[], overflowCompactions: ReadonlySet<string | undefined>): void {
  if (overflowCompactions.size === 0) return;
  let lastRealText: string | undefined;
  for (let position = 0; position < entries.length; position++) {
    const entry = entries[position]!;
    if (entry.kind !== "user" || entry.role !== "real") continue;
    const before = entries[position - 1];
    const afterOverflowSummary =
      before?.kind === "assistant" && before.summary && before.parentID !== undefined && overflowCompactions.has(before.parentID);
    // A copy says the same as the last real message; a different text is you, replying.
    if (afterOverflowSummary && entry.text === lastRealText) entries[position] = { ...entry, role: "resend" };
    else lastRealText = entry.text;
  }
}

/**
 * Builds the timeline of a session's messages.
 *
 * @param messages `Array<{ info, parts }>`, oldest first, as opencode returns them.
 *   Entries of any other shape are kept as `other` and ignored by the rules.
 * @returns entries in input order and every compaction found; never throws.
 */
export function buildTimeline(messages: readonly unknown[]): Timeline {
  const entries = messages.map(toEntry);
  // One pass finds the summaries, the compaction messages and the overflow ones among them.
  const summaries = new Map<string, number>();
  const compactionPositions: number[] = [];
  const overflowCompactions = new Set<string | undefined>();
  for (let position = 0; position < entries.length; position++) {
    const entry = entries[position]!;
    if (entry.kind === "assistant") {
      if (entry.summary && entry.parentID !== undefined && !summaries.has(entry.parentID)) summaries.set(entry.parentID, position);
    } else if (entry.kind === "user" && entry.role === "compaction") {
      compactionPositions.push(position);
      if (entry.overflow) overflowCompactions.add(entry.id);
    }
  }
  markResends(entries, overflowCompactions);

  const compactions: Compaction[] = [];
  let autoIndex = 0;
  for (let i = 0; i < compactionPositions.length; i++) {
    const position = compactionPositions[i]!;
    const entry = entries[position] as UserEntry;
    const summaryPosition = summaries.get(entry.id) ?? -1;
    const summary = entries[summaryPosition];
    compactions.push({
      index: entry.auto ? ++autoIndex : 0,
      auto: entry.auto,
      overflow: entry.overflow,
      messageID: entry.id,
      position,
      summaryPosition,
      succeeded: summaryPosition > position && summary?.kind === "assistant" && summary.succeeded,
      tailStartID: entry.tailStartID,
    });
  }
  return { entries, compactions };
}

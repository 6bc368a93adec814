/**
 * fast-check arbitraries of opencode session histories: well-formed cycles (steps,
 * compaction, summary, continue turn) mixed with every part type, unknown ones, tool
 * states of every status, odd token fields, nested and unicode inputs, big strings and
 * plain junk. A history is generated as a list of events, then turned into
 * `Array<{ info, parts }>` with unique ids, so that compactions and their summaries match.
 */
import fc from "fast-check";
import { DEFAULT_SETTINGS, type GuardSettings } from "../../src/config/settings.js";
import { CONTINUE_TEXT_PREFIX } from "../../src/hosts/opencode/facts.js";
import type { ModelLimits } from "../../src/hosts/opencode/facts.js";

/**
 * Any token field opencode could (or should never) write: mostly real counts, so that a step's
 * five fields are often all real (a field no model could have written reads as missing).
 */
export const tokenNumber = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 400_000 }) },
  fc.constantFrom(0, -1, -50_000, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e308, 2 ** 60),
  fc.double(),
  fc.constantFrom("1234", null, true, {}),
);

/** Token fields that carry no usable size: absent, zero, negative, NaN, infinite, not numbers. */
export const missingTokenNumber = fc.constantFrom(
  0,
  -0,
  -1,
  -123_456,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  "50000",
  null,
  undefined,
  {},
);

const tokensFrom = (n: fc.Arbitrary<unknown>) =>
  fc.option(
    fc.record(
      {
        total: n,
        input: n,
        output: n,
        reasoning: n,
        cache: fc.oneof(fc.record({ read: n, write: n }, { requiredKeys: [] }), fc.constantFrom(null, 7, "x")),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  );

export const anyTokens = tokensFrom(tokenNumber);
export const missingTokens = tokensFrom(missingTokenNumber);

/** A big string (10K to 200K UTF-16 units) of mixed scripts and astral characters. */
const bigString = fc.integer({ min: 10_000, max: 200_000 }).map((n) => 'aé😀中\u0000"\\'.repeat(Math.ceil(n / 8)));

const text = fc.oneof({ weight: 5, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) }, { weight: 1, arbitrary: bigString });

/** Tool inputs: JSON of any shape, nested objects, unicode keys and values, big strings, nothing. */
export const toolInput = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.string({ unit: "binary", maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }) },
  { weight: 2, arbitrary: fc.record({ command: text, description: fc.string() }, { requiredKeys: ["command"] }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.object({ maxDepth: 3, maxKeys: 5 }) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, null, "", [], {}) },
);

export const toolStatus = fc.constantFrom("completed", "error", "pending", "running", "cancelled", undefined, 42);

const toolName = fc.oneof(
  fc.constantFrom("bash", "read", "edit", "grep", "mcp__github__search"),
  fc.string({ maxLength: 10 }),
  fc.constantFrom(undefined, 7),
);

/** A few inputs and outputs that recur, so that generated histories do repeat calls. */
const recurringInput = fc.constantFrom(
  { command: "npm test", description: "run" },
  { description: "run", command: "npm test" },
  { filePath: "/src/ünï.ts", range: { to: 9, from: 1 }, tags: ["a", { z: 1, y: [2] }] },
  { pattern: "😀", path: "src" },
);
const recurringOutput = fc.constantFrom("ok\n", "", "3 passed\n");

export const toolPart = fc.record({
  type: fc.constant("tool"),
  tool: fc.oneof({ weight: 3, arbitrary: fc.constantFrom("bash", "read") }, { weight: 1, arbitrary: toolName }),
  callID: fc.string({ maxLength: 10 }),
  state: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record(
        {
          status: fc.oneof({ weight: 3, arbitrary: fc.constant("completed") }, { weight: 1, arbitrary: toolStatus }),
          input: fc.oneof({ weight: 2, arbitrary: recurringInput }, { weight: 1, arbitrary: toolInput }),
          output: fc.oneof(
            { weight: 2, arbitrary: recurringOutput },
            { weight: 1, arbitrary: text },
            { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
          ),
          error: fc.option(fc.string()),
        },
        { requiredKeys: ["status"] },
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom(undefined, null, "completed", [], { status: "completed" }) },
  ),
});

const continueText = fc.record(
  {
    type: fc.constant("text"),
    text: fc.constantFrom(`${CONTINUE_TEXT_PREFIX}, or stop and ask.`, "Continue", ""),
    synthetic: fc.constantFrom(true, false, undefined),
    metadata: fc.oneof(fc.constant({ compaction_continue: true }), fc.constantFrom(undefined, null, {}, { compaction_continue: "yes" })),
  },
  { requiredKeys: ["type"] },
);

/** Every other part type opencode writes, unknown ones, and junk. */
export const otherPart = fc.oneof(
  fc.record({ type: fc.constant("text"), text, synthetic: fc.boolean() }, { requiredKeys: ["type"] }),
  fc.record(
    { type: fc.constantFrom("reasoning", "file", "patch", "agent", "subtask", "snapshot", "retry", "step-start"), text },
    { requiredKeys: ["type"] },
  ),
  fc.record({ type: fc.constant("step-finish"), reason: fc.string(), tokens: anyTokens }),
  fc.record({ type: fc.string({ maxLength: 12 }), data: fc.jsonValue({ maxDepth: 2 }) }),
  fc.anything({ maxDepth: 2 }),
);

/**
 * One thing that happens in a session. `again`: the model redoes its latest step (the same
 * parts and tokens, in a new message), as a looping model does; nothing when there is none.
 * `refused`: a request the provider refused as too long, an assistant message with zero
 * tokens and no part the model produced (e2e/FINDINGS.md).
 */
export type HistoryEvent =
  | { readonly kind: "user"; readonly parts: readonly unknown[] }
  | { readonly kind: "continue"; readonly part: unknown }
  | {
      readonly kind: "step";
      readonly tools: readonly unknown[];
      readonly others: readonly unknown[];
      readonly tokens: unknown;
      readonly finish: unknown;
      readonly error: unknown;
    }
  | { readonly kind: "again" }
  | { readonly kind: "refused"; readonly parts: readonly unknown[] }
  | {
      readonly kind: "compact";
      readonly auto: unknown;
      readonly summaryFinish: unknown;
      readonly summaryError: unknown;
      readonly summaryTokens: unknown;
      readonly continueTurn: boolean;
      readonly overflow: boolean;
    }
  | { readonly kind: "orphan-summary" }
  | { readonly kind: "junk"; readonly value: unknown };

export interface EventOptions {
  /** Token fields of steps. Default {@link anyTokens}. */
  readonly tokens?: fc.Arbitrary<unknown>;
  /** Values of a compaction part's `auto`. Default mostly true, sometimes false or junk. */
  readonly auto?: fc.Arbitrary<unknown>;
  /** `overflow` of a compaction part (a provider context-overflow error). Default mostly false. */
  readonly overflow?: fc.Arbitrary<boolean>;
}

export const historyEvent = (options: EventOptions = {}): fc.Arbitrary<HistoryEvent> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("user" as const), parts: fc.array(otherPart, { maxLength: 2 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("continue" as const), part: continueText }) },
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant("step" as const),
        tools: fc.array(toolPart, { maxLength: 3 }),
        others: fc.array(otherPart, { maxLength: 2 }),
        tokens: options.tokens ?? anyTokens,
        finish: fc.constantFrom("tool-calls", "stop", undefined, null, "length"),
        error: fc.constantFrom(undefined, undefined, null, { name: "APIError" }),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("compact" as const),
        auto:
          options.auto ??
          fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constantFrom(false, undefined, "true", 1) }),
        summaryFinish: fc.constantFrom("stop", "stop", "length", undefined, null),
        summaryError: fc.constantFrom(undefined, undefined, undefined, { name: "APIError" }, ""),
        summaryTokens: anyTokens,
        continueTurn: fc.boolean(),
        overflow: options.overflow ?? fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      }),
    },
    { weight: 2, arbitrary: fc.constant({ kind: "again" as const }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("refused" as const),
        parts: fc.constantFrom([], [{ type: "step-start" }], [{ type: "step-start" }, { type: "step-finish", reason: "error" }]),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: "orphan-summary" as const }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("junk" as const), value: fc.anything({ maxDepth: 3 }) }) },
  );

export const historyEvents = (options: EventOptions = {}, maxLength = 40) => fc.array(historyEvent(options), { maxLength, size: "medium" });

/** Turns events into opencode messages, oldest first; ids are `msg_<n>`, unique. */
export function toMessages(events: readonly HistoryEvent[], sessionID = "ses_fuzz"): unknown[] {
  const messages: unknown[] = [];
  let seq = 0;
  const id = () => `msg_${String(++seq).padStart(5, "0")}`;
  let latestStep: Extract<HistoryEvent, { kind: "step" }> | undefined;
  const user = (parts: readonly unknown[]) => {
    const messageID = id();
    messages.push({ info: { id: messageID, sessionID, role: "user", agent: "build" }, parts: [...parts] });
    return messageID;
  };
  for (const event of events) {
    switch (event.kind) {
      case "user":
        user([{ type: "text", text: "please go on" }, ...event.parts]);
        break;
      case "continue":
        user([event.part]);
        break;
      case "step":
      case "again": {
        const step = event.kind === "step" ? (latestStep = event) : latestStep;
        if (!step) break;
        messages.push({
          info: { id: id(), sessionID, role: "assistant", agent: "build", finish: step.finish, error: step.error, tokens: step.tokens },
          parts: [{ type: "step-start" }, ...step.tools, ...step.others],
        });
        break;
      }
      case "refused":
        messages.push({
          info: {
            id: id(),
            sessionID,
            role: "assistant",
            agent: "build",
            tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
          },
          parts: [...event.parts],
        });
        break;
      case "compact": {
        const compactionID = user([{ type: "compaction", auto: event.auto, overflow: event.overflow }]);
        messages.push({
          info: {
            id: id(),
            sessionID,
            role: "assistant",
            parentID: compactionID,
            summary: true,
            agent: "compaction",
            mode: "compaction",
            finish: event.summaryFinish,
            error: event.summaryError,
            tokens: event.summaryTokens,
          },
          parts: [{ type: "text", text: "SUMMARY" }],
        });
        if (event.continueTurn) {
          user([{ type: "text", text: `${CONTINUE_TEXT_PREFIX}.`, synthetic: true, metadata: { compaction_continue: true } }]);
        }
        break;
      }
      case "orphan-summary":
        messages.push({
          info: { id: id(), sessionID, role: "assistant", parentID: "msg_missing", summary: true, finish: "stop" },
          parts: [],
        });
        break;
      case "junk":
        messages.push(event.value);
        break;
    }
  }
  return messages;
}

export const history = (options: EventOptions = {}, maxLength = 40) =>
  historyEvents(options, maxLength).map((events) => toMessages(events));

/** Valid guard settings of any value. */
export const guardSettings: fc.Arbitrary<GuardSettings> = fc
  .record({
    threshold: fc.integer({ min: 2, max: 6 }),
    window: fc.integer({ min: 1, max: 12 }),
    minReduction: fc.double({ min: 0, max: 0.99, noNaN: true }),
    matchOutput: fc.boolean(),
    predict: fc.boolean(),
    notify: fc.constantFrom("toast", "log", "off"),
    enabled: fc.constant(true),
    // Mostly nothing; sometimes a tool, a bash command start, or a name no call has.
    ignore: fc.oneof(
      { weight: 3, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.subarray(["bash", "npm test", "grep", "todowrite"], { minLength: 1 }) },
    ),
  })
  .map((s) => ({ ...DEFAULT_SETTINGS, ...s }));

/** Model limits as the hook might receive them, odd values included (typed as the hook declares them). */
export const modelLimits = fc.option(fc.record({ context: tokenNumber, output: tokenNumber, input: tokenNumber }, { requiredKeys: [] }), {
  nil: undefined,
}) as fc.Arbitrary<unknown> as fc.Arbitrary<Partial<ModelLimits> | undefined>;

/**
 * A copy of `value` in which the keys of every object, at every depth, come in another
 * order (a permutation drawn from `seed`). Arrays keep their order.
 */
export function permuteKeys(value: unknown, seed: number): unknown {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== "object" || v === null || (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null))
      return v;
    const entries = Object.entries(v).map(([k, x]) => [k, walk(x)] as const);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    return Object.fromEntries(entries);
  };
  return walk(value);
}

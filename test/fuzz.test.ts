/**
 * Property-based tests over generated opencode histories (see support/arbitraries.ts).
 * Run counts are kept small enough that the whole file runs in a few seconds.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exportSchema, isSessionExport, parseExport, validateExport } from "../src/sources/export.js";
import { buildTimeline } from "../src/hosts/opencode/v1.js";
import { type AssistantEntry, type Entry, type UserEntry } from "../src/model/entry.js";
import { type Compaction, type Timeline } from "../src/model/timeline.js";
import { createGuard } from "../src/plugin/opencode-v1/guard.js";
import type { ModelLimits } from "../src/hosts/opencode/facts.js";
import { DEFAULT_SETTINGS, type GuardSettings } from "../src/config/settings.js";
import { decide, historyLimit, replayMessages } from "../src/core.js";
import { RULES } from "../src/judge/rules/index.js";
import {
  guardSettings,
  history,
  historyEvents,
  missingTokens,
  modelLimits,
  permuteKeys,
  toMessages,
  toolInput,
  type HistoryEvent,
} from "./support/arbitraries.js";
import { fakeClient, newestMessages } from "./support/client.js";
import { syntheticExport } from "./support/synthetic.js";

/**
 * The seed of every property of this run: FUZZ_SEED when given (to replay a failure), else a
 * new one, printed before any property runs, so that a run that dies (a worker out of memory)
 * can still be replayed: `FUZZ_SEED=<seed> npm run fuzz`, or this file with vitest.
 */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
process.stderr.write(`fuzz: seed ${SEED} (FUZZ_SEED=${SEED} replays this run)\n`);

/**
 * Generated histories per property: 150 in `npm test`; `npm run fuzz` sets FUZZ_RUNS
 * (100,000) for the long run. FUZZ_SEED replays a run (see {@link SEED}); FUZZ_PATH, the
 * `path` fast-check reports with a failure, goes straight to the failing case.
 */
const RUNS = {
  numRuns: Number(process.env.FUZZ_RUNS) || 150,
  seed: SEED,
  ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}),
};
const DEFAULTS = DEFAULT_SETTINGS;

/** A step with one completed tool call. */
const toolStep = (tool: string, input: unknown, output: unknown, tokens: unknown = undefined): HistoryEvent => ({
  kind: "step",
  tools: [{ type: "tool", tool, state: { status: "completed", input, output } }],
  others: [],
  tokens,
  finish: "tool-calls",
  error: undefined,
});
const STEP: HistoryEvent = { kind: "step", tools: [], others: [], tokens: { total: 5_000 }, finish: "stop", error: undefined };
/** An automatic compaction whose summary succeeded, and the continue turn. */
const COMPACT: HistoryEvent = {
  kind: "compact",
  auto: true,
  summaryFinish: "stop",
  summaryError: undefined,
  summaryTokens: undefined,
  continueTurn: true,
  overflow: false,
};

/** Every kind of value fc.anything can make, in messages, parts and fields. */
const wildValue = fc.anything({
  maxDepth: 4,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

/** decide() at every compaction of a timeline, manual and failed ones included. */
const decideAll = (timeline: Timeline, settings: GuardSettings, limits?: Partial<ModelLimits>) =>
  timeline.compactions.map((c) => decide(timeline, c, settings, { limits }));

/**
 * The compactions decide() is called for: automatic ones (the hook's findDecisionPoint and
 * replay pick only those). CORE? decide() on a *manual* compaction k now takes as k−1 the
 * automatic compaction before the latest automatic one (view.ts: `previous =
 * automatic.at(-2)` assumes k is itself automatic), so the two no-progress specifications
 * below no longer hold for manual k (e.g. auto compaction, summary, manual compaction: k−1
 * reads "no earlier automatic compaction"). Harmless while nothing decides a manual
 * compaction, but decide() accepts one without complaint; until the core either rejects it
 * or measures it right, these properties check decision points only.
 */
const decisionPoints = (timeline: Timeline) => timeline.compactions.filter((c) => c.auto);

describe("buildTimeline and replayMessages never throw", () => {
  it.each([
    ["fc.anything()", fc.array(wildValue, { maxLength: 30 })],
    ["fc.jsonValue()", fc.array(fc.jsonValue({ maxDepth: 5 }), { maxLength: 30 })],
    [
      "messages with junk info and parts",
      fc.array(
        fc.record({
          info: fc.oneof(
            wildValue,
            fc.record({
              id: fc.string(),
              role: fc.constantFrom("user", "assistant"),
              summary: wildValue,
              parentID: wildValue,
              finish: wildValue,
              error: wildValue,
              tokens: wildValue,
            }),
          ),
          parts: fc.oneof(
            wildValue,
            fc.array(
              fc.oneof(
                wildValue,
                fc.record({
                  type: fc.constantFrom("tool", "compaction", "text"),
                  state: wildValue,
                  auto: wildValue,
                  metadata: wildValue,
                  text: wildValue,
                }),
              ),
            ),
          ),
        }),
        { maxLength: 30 },
      ),
    ],
  ])("on arrays of %s", (_, messages) => {
    fc.assert(
      fc.property(messages, guardSettings, (list, settings) => {
        const timeline = buildTimeline(list);
        expect(timeline.entries).toHaveLength(list.length);
        decideAll(timeline, settings);
        expect(Array.isArray(replayMessages(list, settings))).toBe(true);
      }),
      RUNS,
    );
  });

  it("on generated histories, with any settings and model limits, and the same answer every time", () => {
    fc.assert(
      fc.property(history(), guardSettings, modelLimits, (messages, settings, limits) => {
        const rows = replayMessages(messages, settings, { limits });
        expect(replayMessages(messages, settings, { limits })).toEqual(rows);
        expect(replayMessages(structuredClone(messages), settings, { limits })).toEqual(rows);
        const timeline = buildTimeline(messages);
        expect(decideAll(timeline, settings, limits)).toEqual(decideAll(buildTimeline(messages), settings, limits));
        // One row per successful automatic compaction; deny exactly when a rule fired; the
        // rule is the first that fired, in RULES order, and its severity is the rule's.
        expect(rows).toHaveLength(timeline.compactions.filter((c) => c.auto && c.succeeded).length);
        const order = RULES.map((rule) => rule.name);
        for (const row of rows) {
          expect(row.decision === "deny").toBe(row.rule !== null);
          expect(row.rule).toBe(row.fired[0] ?? null);
          expect(row.fired).toEqual(order.filter((name) => row.fired.includes(name)));
          expect(row.severity).toBe(RULES.find((rule) => rule.name === row.rule)?.severity ?? null);
          expect(Object.keys(row.evidence)).toEqual(order);
        }
      }),
      RUNS,
    );
  });

  it("on tool inputs nested thousands of levels deep", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1_000, max: 30_000 }), fc.boolean(), (depth, asArray) => {
        let input: unknown = "bottom";
        for (let i = 0; i < depth; i++) input = asArray ? [input] : { a: input };
        const cycle = [toolStep("x", input, "o"), COMPACT];
        const rows = replayMessages(toMessages([...cycle, ...cycle, ...cycle]), { ...DEFAULTS });
        expect(rows.at(-1)!.rule).toBe("repeated-tool-call");
      }),
      { numRuns: 20 },
    );
  });

  it("generated histories reach every rule (the generator is not trivially allowing)", () => {
    // Every rule that fired, not only the first: later rules are mostly shadowed.
    const fired = new Set<string>();
    const decided = new Set<string | null>();
    fc.assert(
      fc.property(history(), guardSettings, fc.boolean(), (messages, settings, withLimits) => {
        // cannot-make-room needs the model's limits; the other rules are reached with and without.
        for (const row of replayMessages(messages, settings, withLimits ? { limits: { context: 8_000, output: 2_000 } } : {})) {
          decided.add(row.rule);
          for (const rule of row.fired) fired.add(rule);
        }
      }),
      { numRuns: 500, seed: 42 },
    );
    expect([...fired].sort()).toEqual(RULES.map((rule) => rule.name).sort());
    expect(decided.has(null)).toBe(true);
  });
});

/** The same messages with the keys of every tool input permuted (each input on its own). */
function permuteToolInputs(messages: unknown[], seed: number): unknown[] {
  return messages.map((message, m) => {
    const parts = (message as { parts?: unknown })?.parts;
    if (!Array.isArray(parts)) return message;
    return {
      ...(message as object),
      parts: parts.map((part, p) => {
        const state = (part as { state?: { input?: unknown } } | null)?.state;
        if ((part as { type?: unknown })?.type !== "tool" || typeof state !== "object" || state === null) return part;
        return { ...part, state: { ...state, input: permuteKeys(state.input, seed + 31 * m + p) } };
      }),
    };
  });
}

describe("tool inputs are compared up to key order", () => {
  it("permuting the keys of tool inputs never changes any decision", () => {
    fc.assert(
      fc.property(history(), guardSettings, fc.integer(), (messages, settings, seed) => {
        const permuted = permuteToolInputs(messages, seed);
        expect(replayMessages(permuted, settings)).toEqual(replayMessages(messages, settings));
      }),
      RUNS,
    );
  });

  it("a loop of one call whose input keys come in a new order each time still denies", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { minKeys: 2, maxKeys: 6 }), fc.integer(), (input, seed) => {
        const step = (i: number) => toolStep("bash", permuteKeys(input, seed + i), "same\n");
        const rows = replayMessages(toMessages([step(0), COMPACT, step(1), COMPACT, step(2), COMPACT]), { ...DEFAULTS });
        expect(rows.at(-1)!.rule).toBe("repeated-tool-call");
      }),
      { numRuns: 60 },
    );
  });
});

describe("a real user message resets repeated-tool-call", () => {
  const loopCase = fc.record({
    prefix: historyEvents({}, 20),
    tool: fc.constantFrom("bash", "read", "edit"),
    input: toolInput,
    output: fc.string({ unit: "binary", maxLength: 30 }),
    threshold: fc.integer({ min: 2, max: 5 }),
    extra: fc.integer({ min: 0, max: 4 }),
    matchOutput: fc.boolean(),
  });

  it("a loop denies by repeated-tool-call; the same loop followed by a real user message does not", () => {
    fc.assert(
      fc.property(loopCase, (c) => {
        const settings = { ...DEFAULTS, threshold: c.threshold, window: c.threshold + c.extra, matchOutput: c.matchOutput };
        // One compaction cycle per repeat: the model re-emits the call after every continue
        // turn. No token data, so no-progress (checked first) abstains; each cycle after the
        // first only redid the call, so no-new-work fires too, after repeated-tool-call.
        const loop = Array.from({ length: c.threshold + c.extra }, () => [toolStep(c.tool, c.input, c.output), COMPACT]).flat();
        const real: HistoryEvent = { kind: "user", parts: [] };

        const looping = replayMessages(toMessages([...c.prefix, real, ...loop]), settings).at(-1)!;
        expect(looping.fired).toEqual(["repeated-tool-call", "no-new-work"]);
        expect(looping.evidence["repeated-tool-call"]).toMatchObject({ count: c.threshold + c.extra, acrossCompaction: true });

        const answered = replayMessages(toMessages([...c.prefix, real, ...loop, real, COMPACT]), settings).at(-1)!;
        expect(answered.evidence["repeated-tool-call"]).toMatchObject({ count: 0, messagesRead: 0, acrossCompaction: false });
        expect(answered.fired).toEqual([]);
      }),
      RUNS,
    );
  });
});

describe("without an automatic compaction nothing is ever denied", () => {
  const manualOnly = history({ auto: fc.constantFrom(false, undefined, null, "true", 1, "auto") });

  it("replay returns no rows", () => {
    fc.assert(
      fc.property(manualOnly, guardSettings, (messages, settings) => {
        expect(replayMessages(messages, settings)).toEqual([]);
      }),
      RUNS,
    );
  });

  it("the hook leaves output.enabled true and logs one warning", async () => {
    await fc.assert(
      fc.asyncProperty(manualOnly, fc.option(fc.string(), { nil: undefined }), async (messages, messageID) => {
        const fake = fakeClient(newestMessages(messages));
        const hook = createGuard({ client: fake.client as never }, undefined, { env: {} })["experimental.compaction.autocontinue"]!;
        const output = { enabled: true };
        await hook({ sessionID: "ses_fuzz", message: { id: messageID } } as never, output);
        expect(output.enabled).toBe(true);
        expect(fake.logs).toHaveLength(1);
        expect(fake.logs[0]!.message).toMatch(
          /^compaction-guard could not decide for session ses_fuzz; auto-continue left to opencode: no automatic compaction among the \d+ newest messages$/,
        );
        expect(fake.toasts).toEqual([]);
      }),
      { numRuns: 80 },
    );
  });
});

describe("no-progress never denies on missing token data", () => {
  it("abstains at every compaction when no step has a usable size", () => {
    fc.assert(
      fc.property(
        history({ tokens: missingTokens, overflow: fc.constant(false) }),
        guardSettings,
        modelLimits,
        (messages, settings, limits) => {
          const timeline = buildTimeline(messages);
          for (const verdict of decideAll(timeline, settings, limits)) {
            expect(verdict.evidence["no-progress"].status).toBe("abstain");
            expect(verdict.rule).not.toBe("no-progress");
          }
        },
      ),
      RUNS,
    );
  });
});

describe("no-progress after a provider context-overflow error", () => {
  /**
   * The specification: k has overflow: true, an earlier automatic compaction k−1 exists, no
   * real user message lies between them (but opencode's re-sent message: right after an
   * overflow summary, saying what the last real message said), and every step between is
   * empty with no context size.
   */
  function refusedAgain(timeline: Timeline, current: Compaction): boolean {
    const previous = timeline.compactions.filter((c) => c.auto && c.position < current.position).at(-1);
    if (!current.overflow || !previous) return false;
    const { entries } = timeline;
    const spoken = (e: Entry | undefined): e is UserEntry => e?.kind === "user" && (e.role === "real" || e.role === "resend");
    /** Right after the summary of an overflow compaction, saying what was last said before it. */
    const copy = (position: number): boolean => {
      const before = entries[position - 1];
      const overflowSummary =
        before?.kind === "assistant" &&
        before.summary &&
        timeline.compactions.some((c) => c.overflow && c.summaryPosition === position - 1);
      const lastSaid = entries.slice(0, position).filter(spoken).at(-1)?.text;
      return overflowSummary && (entries[position] as UserEntry).text === lastSaid;
    };
    const from = Math.max(previous.position, previous.summaryPosition) + 1;
    const between = entries.slice(from, current.position);
    const stepped = between.some((e, i) => spoken(e) && !copy(from + i));
    const steps = between.filter((e) => e.kind === "assistant" && !e.summary) as Array<AssistantEntry>;
    return !stepped && steps.length > 0 && steps.every((step) => step.empty && step.contextTokens === null);
  }

  it("denies exactly the overflow compactions that follow an earlier automatic one with only refused steps between", () => {
    let denied = 0;
    fc.assert(
      fc.property(history({ tokens: missingTokens, overflow: fc.boolean() }), guardSettings, (messages, settings) => {
        const timeline = buildTimeline(messages);
        for (const current of decisionPoints(timeline)) {
          const verdict = decide(timeline, current, settings);
          const stalled = verdict.evidence["no-progress"].status === "measured" ? verdict.evidence["no-progress"].stalled : null;
          expect(stalled).toBe(refusedAgain(timeline, current) ? "provider-overflow-again" : null);
          if (stalled) denied += 1;
        }
      }),
      RUNS,
    );
    expect(denied).toBeGreaterThan(0); // the generator does reach the rule
  });
});

describe("no-progress compares with the right earlier compaction", () => {
  /** The specification: the last automatic compaction in view before the current one. */
  const reference = (timeline: Timeline, current: Compaction, start: number) =>
    timeline.compactions.filter((c) => c.auto && c.position >= start && c.position < current.position).at(-1);

  it("matches a linear scan of the compactions in view", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 260 }), history({}, 60), guardSettings, (gap, tail, settings) => {
        // An automatic compaction, then up to 260 steps: the next compactions have an earlier
        // one inside or outside the history a decision reads (historyLimit).
        const filler: HistoryEvent[] = [STEP, COMPACT, ...Array<HistoryEvent>(gap).fill(STEP)];
        const messages = [...toMessages(filler), ...tail];
        const timeline = buildTimeline(messages);
        for (const current of decisionPoints(timeline)) {
          const end = Math.max(current.position, current.summaryPosition);
          const expected = reference(timeline, current, Math.max(0, end - historyLimit(settings) + 1));
          const check = decide(timeline, current, settings).evidence["no-progress"];
          if (expected === undefined) expect(check).toEqual({ status: "abstain", reason: "no earlier automatic compaction" });
          else if (check.status === "measured") expect(check.previousMessageID).toBe(expected.messageID);
          else
            expect(check.reason).toMatch(
              /^(token sizes around the previous compaction are missing|a real user message came after the previous compaction)$/,
            );
        }
      }),
      RUNS,
    );
  });
});

describe("the export check", () => {
  /** Values a field of an export could wrongly hold. */
  const odd = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(undefined, null, "", "user", "assistant", "system", 0, [], {}, [{}]) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
  const PATHS = [
    "",
    "info",
    "info.id",
    "messages",
    "messages.0",
    "messages.0.info",
    "messages.0.info.id",
    "messages.0.info.role",
    "messages.0.parts",
    "messages.1.info.role",
    "messages.1.parts",
  ];
  const ODD = [undefined, null, "", "user", "assistant", "system", 0, [], {}, [{}]];
  type Edit = readonly [path: string, value: unknown, remove: boolean];

  /** A copy of `json` with each edit applied: the field at `path` replaced, or removed. */
  function edited(json: unknown, edits: readonly Edit[]): unknown {
    let out = structuredClone(json);
    for (const [path, value, remove] of edits) {
      if (path === "") {
        out = value;
        continue;
      }
      const keys = path.split(".");
      let target = out as Record<string, unknown> | undefined;
      for (const key of keys.slice(0, -1))
        target = typeof target === "object" && target !== null ? (target[key] as Record<string, unknown>) : undefined;
      if (typeof target !== "object" || target === null) continue;
      if (remove) delete target[keys.at(-1)!];
      else target[keys.at(-1)!] = value;
    }
    return out;
  }

  /** The check and the schema agree; an accepted export is returned as is, not copied, and read as that session. */
  function expectAgreement(json: unknown): void {
    const accepted = exportSchema().safeParse(json).success;
    expect(isSessionExport(json)).toBe(accepted);
    if (accepted) {
      expect(validateExport(json, "x")).toBe(json);
      expect(parseExport(json, "x").record.id).toBe((json as { info: { id: string } }).info.id);
    } else expect(() => parseExport(json, "x")).toThrow(/^x: not an opencode session export \(/);
  }

  const base = syntheticExport(3);

  it("agrees with the zod schema on every single-field edit of a valid export", () => {
    expectAgreement(base);
    for (const path of PATHS) {
      expectAgreement(edited(base, [[path, undefined, true]]));
      for (const value of ODD) expectAgreement(edited(base, [[path, value, false]]));
    }
  });

  it("agrees with the zod schema on generated exports with several edits, and on any JSON", () => {
    const edits = fc.array(
      fc.tuple(fc.constantFrom(...PATHS), fc.oneof(fc.constantFrom(...ODD), fc.jsonValue({ maxDepth: 2 })), fc.boolean()),
      { maxLength: 3 },
    );
    const exports = fc.tuple(history({}, 10), edits).map(([messages, e]) => {
      const valid = messages.filter((m) => isSessionExport({ info: { id: "s" }, messages: [m] }));
      return edited({ info: { id: "ses_x" }, messages: valid }, e);
    });
    fc.assert(fc.property(fc.oneof(exports, fc.jsonValue({ maxDepth: 4 })), expectAgreement), { numRuns: 300 });
  });
});

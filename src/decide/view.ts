/**
 * The decision view: what every rule reads at one automatic compaction, built once per
 * decision from the timeline so that rules never re-walk raw messages or reach into each
 * other. Also the helpers rules share: the steps since the user last spoke, each step's
 * actions (tool calls, or a text-only answer), whether two actions are the same, and what
 * each action brought (./information.ts).
 *
 * A timeline's actions, and what each brought, are worked out once per timeline and
 * settings and shared by every view of it; each action is linked to the earlier runs of its
 * key (tool, status, canonical input), so telling two runs apart walks that key alone.
 */
import { isRealUser, isStep, isWorkStep, type AssistantEntry, type Entry, type ToolCall } from "../model/entry.js";
import { compactionEnd, type Compaction, type Timeline } from "../model/timeline.js";
import type { GuardSettings } from "./settings.js";
import {
  comparableInputJson,
  normalizeOutput,
  resultSignature,
  ComparableOutput,
  sameReport,
  textSignature,
  toolCallSignature,
} from "./signature.js";
import { delegatesReadOnly, targetFile, toolKind } from "./tool-kinds.js";
import { commandLines } from "./waits.js";
import { InformationState, type Brought, type CheckRun, type Judgement } from "./information.js";
import { previewCall } from "../redact/preview.js";

/** One thing a step did: a tool call (completed or failed), or, in a step without tool calls, its text. */
export interface Action {
  readonly kind: "tool" | "text";
  /** What the action was asked to do: tool, status and canonical input (or the normalised text). */
  readonly key: string;
  /** Equal signatures mean the same action, result included (see signature.ts). Computed on first use. */
  readonly signature: string;
  /** The tool call, for a tool action. */
  readonly call: ToolCall | null;
  /** Position of its step in {@link Timeline.entries}. */
  readonly position: number;
}

/** A step that did something (non-empty, non-summary assistant message) and its actions. */
export interface StepView {
  readonly entry: AssistantEntry;
  /** Position in {@link Timeline.entries}. */
  readonly position: number;
  /** Its actions in part order; calls matched by the `ignore` setting are left out. */
  readonly actions: readonly Action[];
}

/** Everything a rule may read about one decision. Positions index `timeline.entries`. */
export interface DecisionView {
  readonly timeline: Timeline;
  /** The automatic compaction being decided: compaction k. */
  readonly compaction: Compaction;
  /** First position in view (the hook reads only the newest messages). */
  readonly start: number;
  /** Last position in view: k's summary (the history as it stood when the summary finished). */
  readonly end: number;
  /** The newest `n` automatic compactions in view up to and including k, oldest first. */
  recentCompactions(n: number): Compaction[];
  /** The previous automatic compaction in view, k−1, if any. */
  readonly previous: Compaction | undefined;
  /** Position of the user's last real message at or before `end`, or −1 (none in view). */
  readonly lastUserPosition: number;
  /** The user spoke after k−1's summary: k−1's cycle is not the model's alone. */
  readonly userSteppedIn: boolean;
  /** Where the steps that count begin: after the user's last message, within view. */
  readonly from: number;
  /** The steps of k−1's cycle (after k−1's summary, before k; since `from`), oldest first. */
  readonly cycle: readonly StepView[];
  /** The newest `n` steps since `from`, oldest first. */
  recentSteps(n: number): StepView[];
  /**
   * Did the action bring anything new since the user's last message: new information, a new
   * effect, a wait, or new text (see ./information.ts)? A repeat, however spelled, did not.
   */
  isNew(action: Action): boolean;
  /** What the action brought (see ./information.ts). */
  brings(action: Action): Brought;
  /** See {@link StepsView.checkRun}. */
  checkRun(action: Action): CheckRun | undefined;
  /** An object that stands for the action's key (tool, status, input): the same object exactly when two actions' keys are equal. Cheap: no key is written out. */
  keyOf(action: Action): object;
  /** The same action, result included (as equal signatures would say; outputs compared line by line, see signature.ts). */
  same(a: Action, b: Action): boolean;
  /** Was an action of the same key done before it (in its own step, or at any distance back) at or after `position`? */
  keyUsedSince(action: Action, position: number): boolean;
}

/**
 * How an action is compared with another of the same key (see tool-kinds.ts):
 * `exact`: same normalised result; `result`: an asking call, the same whatever it asked
 * when the same substantial result came back, and for a repeated question to a read-only
 * subagent also when the report names the same things; `never`: a deliberate wait, always new.
 */
type Comparison = "exact" | "result" | "never";

/**
 * Results shorter than this (characters, noise removed) say too little to make two asking
 * calls the same by their result alone: "No results found." answers many questions.
 */
export const SUBSTANTIAL_RESULT_CHARS = 120;

/**
 * How an action's key and signature are made:
 * - `call`: tool, status and canonical input; signed with the result when `matchOutput`;
 * - `asking`: an asking call, keyed by tool and status alone, signed by its result;
 * - `file`: a failed edit, keyed by its file, signed by the error;
 * - `wait`: a deliberate wait, a key of its own (never the same as another);
 * - `text`: a step without tool calls, keyed and signed by its normalised text.
 */
type Recipe = "call" | "asking" | "file" | "wait" | "text";

/** An action whose key and signature are computed on first use. */
class LazyAction implements Action {
  private keyMemo: string | undefined;
  private signatureMemo: string | undefined;
  private inputMemo: string | undefined;
  private outputMemo: ComparableOutput | undefined;
  private substantialMemo: boolean | undefined;

  /** The latest earlier action of the same key in the timeline (see {@link stepViews}), or undefined. */
  previousSameKey: LazyAction | undefined;
  /** The first action of its key in the timeline: the same object for every action of the key (set by {@link stepViews}). */
  keyRoot: LazyAction = this;
  /** Index of its step among the timeline's work steps (see {@link workSteps}); set by {@link stepViews}. */
  step = -1;

  constructor(
    readonly kind: Action["kind"],
    /** What separates keys cheaply: the tool name and status (or "text"). */
    readonly head: string,
    /** The tool call, for a tool action. */
    readonly call: ToolCall | null,
    readonly position: number,
    /** How its key and signature are made (see {@link Recipe}). */
    private readonly recipe: Recipe,
    /** The wait's index in its step, the failed edit's file, or the text's signature. */
    private readonly detail: string,
    private readonly matchOutput: boolean,
    /**
     * Is it a call whose recipe `askingByResult` decides ("asking" when on, "call" when off)?
     * Every other action is the same object under both (see {@link stepViews}).
     */
    readonly byAskingSetting = false,
  ) {}

  private get comparison(): Comparison {
    return this.recipe === "wait" ? "never" : this.recipe === "asking" ? "result" : "exact";
  }

  /** Does the result enter the comparison (`matchOutput`, or a call compared by its result)? */
  private get byResult(): boolean {
    return this.recipe === "call" ? this.matchOutput : this.recipe !== "text";
  }

  /**
   * What follows the head in its key, written without the head: two actions of one head have
   * the same key exactly when their parts are equal (an asking call's key is its head alone,
   * and only asking tools have asking heads; a wait's key is its own).
   */
  get keyPart(): string {
    const { recipe } = this;
    return recipe === "call" ? this.input : recipe === "asking" ? "" : recipe === "wait" ? this.key : this.detail;
  }

  get key(): string {
    if (this.keyMemo === undefined) {
      const { recipe, head, detail } = this;
      this.keyMemo =
        recipe === "call"
          ? `${head}\u0000${this.input}`
          : recipe === "asking"
            ? head
            : recipe === "file"
              ? `${head}\u0000${detail}`
              : recipe === "wait"
                ? `${head}\u0000wait\u0000${this.position}\u0000${detail}`
                : detail;
    }
    return this.keyMemo;
  }

  get signature(): string {
    if (this.signatureMemo === undefined) {
      const { recipe, call } = this;
      this.signatureMemo =
        recipe === "call"
          ? toolCallSignature(call!, this.matchOutput)
          : recipe === "asking" || recipe === "file"
            ? resultSignature(call!)
            : recipe === "wait"
              ? ""
              : this.detail;
    }
    return this.signatureMemo;
  }

  /** The canonical comparable input of its call (signature.ts `comparableInputJson`). */
  private get input(): string {
    return (this.inputMemo ??= comparableInputJson(this.call!));
  }

  /** Its call's output as results are compared (signature.ts `ComparableOutput`). */
  private get output(): ComparableOutput {
    return (this.outputMemo ??= new ComparableOutput(this.call!.output));
  }

  /** Does the result say enough to stand for the call (see {@link SUBSTANTIAL_RESULT_CHARS})? */
  private get substantial(): boolean {
    return (this.substantialMemo ??= normalizeOutput(this.call!.output).length >= SUBSTANTIAL_RESULT_CHARS);
  }

  /** Same key? The same first action of the key: no key is written out or compared. */
  sameKey(other: LazyAction): boolean {
    return this.keyRoot === other.keyRoot;
  }

  /**
   * Same action, result included? Equal to comparing signatures: under the same key (tool,
   * status, and input or target file) they differ only by the normalised result when
   * `byResult`, not at all otherwise. The results are compared line by line
   * (signature.ts `ComparableOutput`), so nothing is hashed.
   */
  sameAs(other: LazyAction): boolean {
    if (!this.sameKey(other) || this.comparison === "never" || other.comparison === "never") return false;
    if (this.call === null || other.call === null || !this.byResult) return true;
    const sameResult = this.output.sameAs(other.output);
    if (this.comparison === "result") {
      const sameInput = this.input === other.input;
      if (sameResult && (sameInput || this.substantial)) return true;
      return sameInput && delegatesReadOnly(this.call) && sameReport(String(other.call.output), String(this.call.output));
    }
    return sameResult;
  }
}

/** Previews per call and project directory: replay's decisions name the same call at compaction after compaction. */
const previews = new WeakMap<ToolCall, Map<string | undefined, string>>();

/**
 * The redacted one-line preview of a call's input (redact/preview.ts `previewCall`), made
 * once per call and directory: what the evidence and the notices show, never the raw input.
 */
export function previewOf(call: ToolCall, directory?: string): string {
  let byDirectory = previews.get(call);
  if (!byDirectory) previews.set(call, (byDirectory = new Map()));
  let preview = byDirectory.get(directory);
  if (preview === undefined) byDirectory.set(directory, (preview = previewCall(call.tool, call.input, directory)));
  return preview;
}

/** The command of a bash call, or undefined. */
const bashCommand = (call: ToolCall): string | undefined => {
  const input = call.input as { command?: unknown } | null;
  return call.tool === "bash" && typeof input?.command === "string" ? input.command.trim() : undefined;
};

/**
 * Is this call on the user's `ignore` list? An entry matches a tool by name, or a bash call
 * one of whose simple commands (./waits.ts `commandLines`: split at `&&`, `||`, `;`, `|` and
 * `&` outside quotes, `bash -c` bodies read) is the entry or starts with the entry and a
 * space: `gh pr checks` matches `sleep 30 && gh pr checks 42`.
 */
export function isIgnored(call: ToolCall, ignore: readonly string[]): boolean {
  if (ignore.length === 0) return false;
  const command = bashCommand(call);
  const commands = command === undefined ? [] : commandLines(command);
  return ignore.some((item) => item === call.tool || commands.some((part) => part === item || part.startsWith(`${item} `)));
}

/**
 * What shapes actions: `matchOutput` and `ignore`, and `askingByResult` (default true): an
 * asking call is the same as another when the same came back, whatever it asked. The
 * tool-time check turns it off: its notice speaks of "this exact call".
 */
export type ActionOptions = Pick<GuardSettings, "matchOutput" | "ignore"> & { readonly askingByResult?: boolean | undefined };

/** The settings that shape actions, with an id naming them. */
type ActionSettings = ActionOptions & {
  readonly id: string;
  /** The id of the same settings with `askingByResult` flipped: their actions differ only in asking calls. */
  readonly siblingId: string;
};

/** The head of each tool and status (`edit\u0000error`), written once rather than once per call (for the first {@link KNOWN_TOOLS} tools seen). */
const heads = new Map<string, { completed?: string; error?: string }>();

/** How many tool names the per-tool memos keep: a session uses a few dozen; a hostile export's millions are written each time. */
const KNOWN_TOOLS = 1024;

function headOf(call: ToolCall): string {
  let byStatus = heads.get(call.tool);
  if (!byStatus) {
    byStatus = {};
    if (heads.size < KNOWN_TOOLS) heads.set(call.tool, byStatus);
  }
  return (byStatus[call.status] ??= `${call.tool}\u0000${call.status}`);
}

/** The actions of the step at `position` under `settings` ({@link stepViews} keeps them, per timeline and settings). */
function actionsOf(entry: AssistantEntry, position: number, settings: ActionSettings): LazyAction[] {
  const actions: LazyAction[] = [];
  if (entry.toolParts > 0) {
    const { matchOutput } = settings;
    const askingByResult = matchOutput && settings.askingByResult !== false;
    let index = 0;
    const calls = entry.toolCalls;
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      if (isIgnored(call, settings.ignore)) continue;
      const kind = toolKind(call);
      const at = index++;
      if (kind === "planning") continue;
      // A failed edit changed nothing: what it brings is the error it met on that file.
      const file = kind === "effect" && call.status === "error" && matchOutput ? targetFile(call) : null;
      let recipe: Recipe = "call";
      let detail = "";
      if (kind === "waiting") {
        recipe = "wait";
        detail = String(at);
      }
      // Keyed by the tool alone: a rephrased question is the same ask when the same came back.
      else if (kind === "asking" && askingByResult) recipe = "asking";
      else if (file !== null) {
        recipe = "file";
        detail = file;
      }
      actions.push(new LazyAction("tool", headOf(call), call, position, recipe, detail, matchOutput, kind === "asking" && matchOutput));
    }
  } else if (entry.text.trim() !== "") {
    actions.push(new LazyAction("text", "\u0000text", null, position, "text", textSignature(entry.text), false));
  }
  return actions;
}

/** Positions of the steps that did something, per timeline, in order: walking back n steps reads n numbers. */
const stepPositions = new WeakMap<Timeline, Int32Array>();

function workSteps(timeline: Timeline): Int32Array {
  let known = stepPositions.get(timeline);
  if (!known) {
    const positions: number[] = [];
    const { entries } = timeline;
    for (let position = 0; position < entries.length; position++) if (isWorkStep(entries[position])) positions.push(position);
    stepPositions.set(timeline, (known = Int32Array.from(positions)));
  }
  return known;
}

/** The work steps of each timeline with their actions, per settings id (see {@link stepViews}). */
const stepViewCache = new WeakMap<Timeline, Map<string, readonly StepView[]>>();

/**
 * Every work step of the timeline with its actions, in order (index i: `workSteps(timeline)[i]`),
 * built once per timeline and settings. Each action is linked on the way to the latest earlier
 * action of the same key (tool, status, input: the only ones that can be the same action):
 * telling whether an action is new then walks the earlier runs of its key alone, not every
 * step of the lookback, and what one view learnt every other view of the timeline reuses
 * (replay's decisions at each compaction, the tool-loop check at each step).
 *
 * The two settings that differ only in `askingByResult` (replay's decisions and the tool-loop
 * check) share every action but the asking calls', with what each learnt: those are the only
 * actions whose key and signature differ, and their keys (an asking tool's head, alone or
 * with the input) never equal another action's, so the links of the rest are the same.
 * Cost: one canonical input per tool call of the timeline and settings; a pair of sibling
 * settings writes one per call, and the asking calls' twice.
 */
function stepViews(timeline: Timeline, settings: ActionSettings): readonly StepView[] {
  let perSettings = stepViewCache.get(timeline);
  if (!perSettings) stepViewCache.set(timeline, (perSettings = new Map()));
  let views = perSettings.get(settings.id);
  if (views) return views;
  const sibling = perSettings.get(settings.siblingId);
  const latest = new Map<string, Map<string, LazyAction>>();
  const link = (action: LazyAction, step: number): void => {
    let byKey = latest.get(action.head);
    if (!byKey) latest.set(action.head, (byKey = new Map()));
    const part = action.keyPart;
    const previous = byKey.get(part);
    action.step = step;
    action.previousSameKey = previous;
    action.keyRoot = previous?.keyRoot ?? action;
    byKey.set(part, action);
  };
  views = Array.from(workSteps(timeline), (position, step): StepView => {
    const shared = sibling?.[step];
    if (shared && !shared.actions.some((action) => (action as LazyAction).byAskingSetting)) return shared;
    const entry = timeline.entries[position] as AssistantEntry;
    const actions = actionsOf(entry, position, settings);
    // The same actions in the same order as the sibling's: only the asking calls' are new.
    actions.forEach((action, i) => {
      if (shared && !action.byAskingSetting) actions[i] = shared.actions[i] as LazyAction;
      else link(action, step);
    });
    return { entry, position, actions };
  });
  perSettings.set(settings.id, views);
  return views;
}

/** What each action of a timeline's step views brought (see ./information.ts), per step views. */
const judgementCache = new WeakMap<readonly StepView[], Map<Action, Judgement>>();

/**
 * What each action of `views` brought, judged in one pass over the timeline in order, afresh
 * after each real user message: every view of the timeline reads the same answer, and a
 * replay's decisions cost one pass in all.
 */
function judgementsOf(timeline: Timeline, views: readonly StepView[], settings: ActionSettings): Map<Action, Judgement> {
  let judged = judgementCache.get(views);
  if (judged) return judged;
  judged = new Map();
  const users = realUserPositions(timeline);
  const state = new InformationState(settings.matchOutput);
  let user = -1;
  for (let s = 0; s < views.length; s++) {
    const { position, entry, actions } = views[s]!;
    const lastUser = users[position] ?? -1;
    if (lastUser !== user) {
      state.reset();
      user = lastUser;
    }
    for (const action of actions) {
      const judged1 = state.judge({
        call: action.call,
        text: action.kind === "text" ? action.key : undefined,
        position,
        messageID: entry.id,
      });
      judged.set(action, judged1);
    }
  }
  judgementCache.set(views, judged);
  return judged;
}

/** Per timeline, for each position, the position of the last real user message at or before it (−1: none). */
const realUsers = new WeakMap<Timeline, Int32Array>();

function realUserPositions(timeline: Timeline): Int32Array {
  let known = realUsers.get(timeline);
  if (!known) {
    const { entries } = timeline;
    known = new Int32Array(entries.length);
    let last = -1;
    for (let position = 0; position < entries.length; position++) {
      if (isRealUser(entries[position])) last = position;
      known[position] = last;
    }
    realUsers.set(timeline, known);
  }
  return known;
}

/** Binary search: the first index in a sorted list of positions that is > `after`. */
function firstPositionAfter(positions: Int32Array, after: number): number {
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (positions[middle]! <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Binary search: the first index in `compactions` (position order) whose position is > `after`. */
function firstAfter(compactions: readonly Compaction[], after: number): number {
  let low = 0;
  let high = compactions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compactions[middle]!.position <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Does a compaction (automatic or manual) lie strictly between positions `after` and
 * `before`? `compactions` are in position order (as Timeline holds them).
 */
export function compactionBetween(compactions: readonly Compaction[], after: number, before: number): boolean {
  const i = firstAfter(compactions, after);
  return i < compactions.length && compactions[i]!.position < before;
}

/**
 * The steps of a timeline up to one position, as every judgement of "the same action" and
 * "new work" reads them: the part of {@link DecisionView} that needs no compaction. The
 * decision view is built on it; so is the tool-loop check (./tool-loop.ts), which looks at
 * the call just completed rather than at a compaction.
 */
export interface StepsView {
  /** Position of the user's last real message at or before `end`, or −1 (none in view). */
  readonly lastUserPosition: number;
  /** Where the steps that count begin: after the user's last message, within view. */
  readonly from: number;
  /** The newest `n` steps at or before `position` and at or after `low` (default and at least `from`), oldest first. */
  stepsUpTo(position: number, n: number, low?: number): StepView[];
  /** The step at `position`, if it is a work step at or after `from`. */
  stepAt(position: number): StepView | undefined;
  /** Position of the oldest of `stepsUpTo(position, n)`, without listing them; −1 when there are none. */
  firstStepUpTo(position: number, n: number): number;
  /** See {@link DecisionView.isNew}. */
  isNew(action: Action): boolean;
  /** What the action brought (see ./information.ts); `isNew` is "anything but nothing". */
  brings(action: Action): Brought;
  /** For a check (a test run, a build, a linter), its run up to this action (see ./information.ts `CheckRun`). */
  checkRun(action: Action): CheckRun | undefined;
  /** See {@link DecisionView.keyOf}. */
  keyOf(action: Action): object;
  /** See {@link DecisionView.same}. */
  same(a: Action, b: Action): boolean;
  /** See {@link DecisionView.keyUsedSince}. */
  keyUsedSince(action: Action, position: number): boolean;
}

/** The action settings of each settings object, with their id: a replay builds thousands of views with one. */
const settingsIds = new WeakMap<ActionOptions, ActionSettings>();

/** `settings` with the id that names what shapes actions (see {@link ActionOptions}). */
function withId(settings: ActionOptions): ActionSettings {
  let known = settingsIds.get(settings);
  if (!known) {
    const askingByResult = settings.askingByResult !== false;
    const id = (asking: boolean) => `${settings.matchOutput}\u0000${asking}\u0000${settings.ignore.join("\u0000")}`;
    settingsIds.set(settings, (known = { ...settings, askingByResult, id: id(askingByResult), siblingId: id(!askingByResult) }));
  }
  return known;
}

/** Position of the last real user message in `timeline.entries[start..end]`, or −1. */
function lastUserIn(timeline: Timeline, end: number, start: number): number {
  const at = realUserPositions(timeline)[end] ?? -1;
  return at >= start ? at : -1;
}

/**
 * Where the steps of a view of `timeline.entries[start..end]` begin: after the user's last
 * real message in it ({@link StepsView.from}), without building the view.
 */
export function stepsFrom(timeline: Timeline, end: number, start = 0): number {
  return Math.max(start, lastUserIn(timeline, end, start) + 1);
}

/**
 * The steps view of `timeline.entries[start..end]` (see {@link buildStepsView}). A class, so
 * that a replay's thousands of views share their methods: each view is a few numbers and
 * two arrays it shares with every other view of the timeline.
 */
class Steps implements StepsView {
  readonly lastUserPosition: number;
  readonly from: number;
  /** Positions of the timeline's work steps ({@link workSteps}). */
  private readonly positions: Int32Array;
  private viewsMemo: readonly StepView[] | undefined;
  /** Index (in `positions`) of the first work step at or after `from`. */
  private readonly fromIndex: number;

  constructor(
    private readonly timeline: Timeline,
    end: number,
    private readonly settings: ActionSettings,
    start: number,
  ) {
    this.lastUserPosition = lastUserIn(timeline, end, start);
    this.from = Math.max(start, this.lastUserPosition + 1);
    this.positions = workSteps(timeline);
    this.fromIndex = firstPositionAfter(this.positions, this.from - 1);
  }

  /** The timeline's work steps with their actions ({@link stepViews}), on first use: a rule that reads only sizes needs none. */
  private get views(): readonly StepView[] {
    return (this.viewsMemo ??= stepViews(this.timeline, this.settings));
  }

  /** The last position asked of {@link stopAfter}, and its answer. */
  private lastHigh = -2;
  private lastStop = 0;

  /**
   * Index (in `positions`) of the first work step after `high`: a binary search, kept for
   * the last position asked (the tool-loop walk asks twice of each step it reads).
   */
  private stopAfter(high: number): number {
    if (high !== this.lastHigh) {
      this.lastStop = firstPositionAfter(this.positions, high);
      this.lastHigh = high;
    }
    return this.lastStop;
  }

  /** Index of the oldest of the newest `n` steps at or before `high` and at or after `low` (at least `from`). */
  private begin(stop: number, n: number, low: number): number {
    const bottom = low <= this.from ? this.fromIndex : firstPositionAfter(this.positions, low - 1);
    return Math.max(bottom, stop - n);
  }

  stepsUpTo(high: number, n: number, low = this.from): StepView[] {
    const stop = this.stopAfter(high);
    const begin = this.begin(stop, n, low);
    return this.views.slice(begin, Math.max(begin, stop));
  }

  stepAt(position: number): StepView | undefined {
    const stop = this.stopAfter(position);
    const begin = this.begin(stop, 1, this.from);
    return begin < stop && this.views[begin]!.position === position ? this.views[begin] : undefined;
  }

  firstStepUpTo(high: number, n: number): number {
    const stop = this.stopAfter(high);
    const begin = this.begin(stop, n, this.from);
    return begin < stop ? this.views[begin]!.position : -1;
  }

  same(a: Action, b: Action): boolean {
    return (a as LazyAction).sameAs(b as LazyAction);
  }

  isNew(action: Action): boolean {
    return this.brings(action) !== "nothing";
  }

  brings(action: Action): Brought {
    return judgementsOf(this.timeline, this.views, this.settings).get(action)?.brought ?? "information";
  }

  checkRun(action: Action): CheckRun | undefined {
    return judgementsOf(this.timeline, this.views, this.settings).get(action)?.run;
  }

  keyUsedSince(action: Action, position: number): boolean {
    return ((action as LazyAction).previousSameKey?.position ?? -1) >= position;
  }

  keyOf(action: Action): object {
    return (action as LazyAction).keyRoot;
  }
}

/**
 * Builds the steps view of `timeline.entries[start..end]`: the steps since the user's last
 * real message at or before `end`.
 *
 * @param settings `matchOutput` (whether outputs are part of a call's signature), `ignore`,
 *   and `askingByResult` (see {@link ActionOptions}).
 * @returns the view; never throws on a timeline from buildTimeline.
 */
export function buildStepsView(timeline: Timeline, end: number, settings: ActionOptions, start = 0): StepsView {
  return new Steps(timeline, end, withId(settings), start);
}

/** The view of one compaction (see {@link buildView}); a class for the reason {@link Steps} is. */
class Decision implements DecisionView {
  readonly end: number;
  readonly previous: Compaction | undefined;
  readonly lastUserPosition: number;
  readonly userSteppedIn: boolean;
  readonly from: number;
  private readonly steps: Steps;
  /** Index in `timeline.compactions` just past k. */
  private readonly upTo: number;
  private cycleMemo: readonly StepView[] | undefined;

  constructor(
    readonly timeline: Timeline,
    readonly compaction: Compaction,
    settings: ActionSettings,
    readonly start: number,
  ) {
    this.end = compactionEnd(compaction);
    const compactions = timeline.compactions;
    this.upTo = firstAfter(compactions, compaction.position);
    let previous: Compaction | undefined;
    for (let i = firstAfter(compactions, compaction.position - 1) - 1; i >= 0 && compactions[i]!.position >= start && !previous; i--) {
      if (compactions[i]!.auto) previous = compactions[i];
    }
    this.previous = previous;
    this.steps = new Steps(timeline, this.end, settings, start);
    this.from = this.steps.from;
    this.lastUserPosition = this.steps.lastUserPosition;
    this.userSteppedIn = previous !== undefined && this.lastUserPosition > compactionEnd(previous);
  }

  recentCompactions(n: number): Compaction[] {
    const { compactions } = this.timeline;
    const found: Compaction[] = [];
    for (let i = this.upTo - 1; i >= 0 && compactions[i]!.position >= this.start && found.length < n; i--) {
      if (compactions[i]!.auto) found.push(compactions[i]!);
    }
    return found.reverse();
  }

  get cycle(): readonly StepView[] {
    const { previous } = this;
    return (this.cycleMemo ??= previous
      ? this.steps.stepsUpTo(this.compaction.position - 1, Number.POSITIVE_INFINITY, compactionEnd(previous) + 1)
      : []);
  }

  recentSteps(n: number): StepView[] {
    return this.steps.stepsUpTo(this.end, n);
  }

  isNew(action: Action): boolean {
    return this.steps.isNew(action);
  }

  brings(action: Action): Brought {
    return this.steps.brings(action);
  }

  checkRun(action: Action): CheckRun | undefined {
    return this.steps.checkRun(action);
  }

  same(a: Action, b: Action): boolean {
    return this.steps.same(a, b);
  }

  keyUsedSince(action: Action, position: number): boolean {
    return this.steps.keyUsedSince(action, position);
  }

  keyOf(action: Action): object {
    return this.steps.keyOf(action);
  }
}

/**
 * Builds the view of compaction k (`compaction`) on `timeline.entries[start..end]`, where end
 * is k's summary (or k itself when the summary is missing).
 *
 * @param settings `matchOutput` (whether outputs are part of a call's signature) and `ignore`.
 * @returns the view; never throws on a timeline from buildTimeline.
 */
export function buildView(
  timeline: Timeline,
  compaction: Compaction,
  settings: Pick<GuardSettings, "matchOutput" | "ignore">,
  start = 0,
): DecisionView {
  return new Decision(timeline, compaction, withId(settings), start);
}

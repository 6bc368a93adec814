/**
 * The decision view: what every rule reads at one automatic compaction, built once per
 * decision from the timeline so that rules never re-walk raw messages or reach into each
 * other: the steps since the user last spoke, each step's actions (tool calls, or a
 * text-only answer), whether two actions are the same, and what each brought
 * (./information.ts). A timeline's actions and judgements are worked out once per timeline
 * and settings ({@link TimelineSteps}) and shared by every view of it.
 */
import { isRealUser, isWorkStep, type AssistantEntry, type ToolCall } from "../model/entry.js";
import { compactionEnd, type Compaction, type Timeline } from "../model/timeline.js";
import type { SharedSettings } from "./settings.js";
import { textSignature } from "./signature.js";
import { callKind } from "./tool-kinds.js";
import { InformationState, reportsAlike, type Judgement } from "./information.js";

/**
 * One thing a step did: a tool call (completed or failed), or, in a step without tool calls,
 * its text. Two actions can be the same only when their keys are equal; {@link StepsView.sameAction}
 * tells whether they are, result included.
 */
export class Action {
  /** The latest earlier action of the same key in the timeline, or undefined (linked by {@link TimelineSteps}). */
  previousOfKey: Action | undefined = undefined;
  /** The first action of its key in the timeline: the same object for every action of the key (linked by {@link TimelineSteps}). */
  firstOfKey: Action = this;
  /** The same links by {@link byTool}. */
  previousOfTool: Action | undefined = undefined;
  firstOfTool: Action = this;

  constructor(
    readonly kind: "tool" | "text",
    /** What the action was asked to do: tool, status and canonical input, or the file of a failed edit, or the text's signature. */
    readonly key: string,
    /** The tool call, for a tool action. */
    readonly call: ToolCall | null,
    /** Position of its step in {@link Timeline.entries}. */
    readonly position: number,
    /** Its call's canonical comparable input (model/action.ts `Asked.comparable`); "" for a text. */
    readonly input: string,
    /** Its key under `askingByResult`: an asking call's tool and status alone, else {@link key}. */
    readonly byTool: string,
  ) {}
}

/** A step that did something (non-empty, non-summary assistant message) and its actions. */
export interface StepView {
  readonly entry: AssistantEntry;
  /** Position in {@link Timeline.entries}. */
  readonly position: number;
  /** Its actions in part order; calls matched by the `ignore` setting are left out. */
  readonly actions: readonly Action[];
}

/**
 * Is this call on the user's `ignore` list? An entry matches a tool by name, or a call to the
 * host's shell tool one of whose simple commands (model/action.ts `ShellRun.lines`: split at
 * `&&`, `||`, `;`, `|` and `&` outside quotes, `bash -c` bodies read) is the entry or starts
 * with the entry and a space: `gh pr checks` matches `sleep 30 && gh pr checks 42`.
 */
export function isIgnored(call: ToolCall, ignore: readonly string[]): boolean {
  if (ignore.length === 0) return false;
  const { action } = call;
  const commands = action.kind === "shell" || (action.kind === "wait" && action.shell) ? (action.run?.lines ?? []) : [];
  return ignore.some((item) => item === call.tool || commands.some((part) => part === item || part.startsWith(`${item} `)));
}

/**
 * What shapes actions: `matchOutput` and `ignore`, and `askingByResult` (default true): an
 * asking call is the same as another when the same came back, whatever it asked. The
 * tool-time check turns it off: its notice speaks of "this exact call".
 */
export type ActionOptions = Pick<SharedSettings, "matchOutput" | "ignore"> & { readonly askingByResult?: boolean | undefined };

/** The settings that shape actions, with the id that names what shapes them and their judgements (`matchOutput`, `ignore`). */
type ActionSettings = ActionOptions & { readonly askingByResult: boolean; readonly id: string };

/**
 * The actions of the step at `position` under `settings`. Keys (two actions of one key are
 * the same when they repeat the same run: {@link StepsView.sameAction}):
 * - a call: tool, status and canonical input;
 * - an asking call (when `askingByResult` and `matchOutput`): tool and status alone;
 * - a failed edit (when `matchOutput`): tool, status and its file;
 * - a deliberate wait: a key of its own (never the same as another);
 * - a step without tool calls: its text's signature.
 */
function actionsOf(entry: AssistantEntry, position: number, settings: ActionSettings): Action[] {
  const actions: Action[] = [];
  if (entry.toolParts > 0) {
    const { matchOutput } = settings;
    let index = 0;
    const calls = entry.toolCalls;
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      if (isIgnored(call, settings.ignore)) continue;
      const kind = callKind(call);
      const at = index++;
      if (kind === "plan") continue;
      const head = `${call.tool}\u0000${call.status}`;
      const input = call.action.asked.comparable;
      // A failed edit changed nothing: what it brings is the error it met on that file.
      const file = kind === "change" && call.status === "error" && matchOutput ? call.action.asked.path : null;
      let key: string;
      if (kind === "wait") key = `${head}\u0000wait\u0000${position}\u0000${at}`;
      else if (file !== null) key = `${head}\u0000${file}`;
      else key = `${head}\u0000${input}`;
      // Under `askingByResult`, keyed by the tool alone: a rephrased question is the same ask when the same came back.
      actions.push(new Action("tool", key, call, position, input, kind === "asking" && matchOutput ? head : key));
    }
  } else if (entry.text.trim() !== "") {
    const key = textSignature(entry.text);
    actions.push(new Action("text", key, null, position, "", key));
  }
  return actions;
}

/** The judging of the steps since one real user message: its actions in order, each one's judgement, and the state after the last. */
interface Handover {
  readonly actions: readonly Action[];
  readonly judgements: Judgement[];
  readonly state: InformationState;
}

/** What one timeline's steps brought under one settings id: by action; the real user messages whose steps were judged (positions, −1: none); and the judging of its newest steps. */
interface Judged {
  readonly byAction: Map<Action, Judgement>;
  readonly users: Set<number>;
  newest: Handover | undefined;
}

/**
 * Is `action` (of a timeline with `entries`) the same run as `other` (of another read of the
 * session, with `otherEntries`): the same position, step (message id) and key, and
 * for a call the same tool, status, whole input and result? What a judgement reads of an
 * action is then the same.
 */
function sameRun(action: Action, entries: Timeline["entries"], other: Action, otherEntries: Timeline["entries"]): boolean {
  if (action.position !== other.position || action.key !== other.key || action.kind !== other.kind) return false;
  if ((entries[action.position] as AssistantEntry).id !== (otherEntries[other.position] as AssistantEntry).id) return false;
  const a = action.call;
  const b = other.call;
  if (a === null || b === null) return a === b;
  return a.tool === b.tool && a.status === b.status && a.output === b.output && a.action.asked.json === b.action.asked.json;
}

/**
 * The work steps of one timeline with their actions, and what each action brought: built
 * once per action settings and shared by every view of the timeline (a replay's decisions at
 * each compaction, the tool-loop walk at each step). One per timeline: `decide` makes its
 * own, a replay one for all its decisions and its tool-loop walk.
 */
export class TimelineSteps {
  /** Positions of the steps that did something ({@link isWorkStep}), in order: walking back n steps reads n numbers. */
  readonly positions: Int32Array;
  /** For each position, the position of the last real user message at or before it (−1: none). */
  readonly lastUser: Int32Array;
  /** The step views, per settings id. */
  private readonly listed = new Map<string, readonly StepView[]>();
  /** What each action brought, per settings id ({@link Judged}). */
  private readonly judged = new Map<string, Judged>();
  /** Each settings object with its id: a replay builds thousands of views with one. */
  private readonly named = new WeakMap<ActionOptions, ActionSettings>();

  /**
   * @param earlier the steps of an earlier read of the same session (the same messages up to
   *   some point, then fewer), whose judging of its newest steps this one takes over where
   *   the steps are the same ({@link judgeNewest}): what each action brought is the same with
   *   or without it, worked out once.
   */
  constructor(
    readonly timeline: Timeline,
    private readonly earlier?: TimelineSteps,
  ) {
    const { entries } = timeline;
    const positions: number[] = [];
    this.lastUser = new Int32Array(entries.length);
    let last = -1;
    for (let position = 0; position < entries.length; position++) {
      const entry = entries[position];
      if (isRealUser(entry)) last = position;
      this.lastUser[position] = last;
      if (isWorkStep(entry)) positions.push(position);
    }
    this.positions = Int32Array.from(positions);
  }

  /**
   * Every work step with its actions, in order (index i: `positions[i]`), built once per
   * settings id. Each action is linked on the way to the latest earlier action of the same key,
   * and of the same {@link Action.byTool} (the only ones that can be the same action): telling
   * whether an action is new then walks the earlier runs of its key alone.
   */
  stepViews(settings: ActionSettings): readonly StepView[] {
    let views = this.listed.get(settings.id);
    if (views) return views;
    const byKey = new Map<string, Action>();
    const byTool = new Map<string, Action>();
    const { positions, timeline } = this;
    views = Array.from(positions, (position) => {
      const entry = timeline.entries[position] as AssistantEntry;
      const actions = actionsOf(entry, position, settings);
      for (const action of actions) {
        const previous = byKey.get(action.key);
        action.previousOfKey = previous;
        action.firstOfKey = previous?.firstOfKey ?? action;
        byKey.set(action.key, action);
        const previousOfTool = byTool.get(action.byTool);
        action.previousOfTool = previousOfTool;
        action.firstOfTool = previousOfTool?.firstOfTool ?? action;
        byTool.set(action.byTool, action);
      }
      return { entry, position, actions };
    });
    this.listed.set(settings.id, views);
    return views;
  }

  /**
   * What `action` brought (an action of {@link stepViews} under `settings`). The steps between
   * two real user messages are judged together, in order, with a state of their own
   * (./information.ts starts afresh when the user speaks), the first time one of their actions
   * is asked about: a decision judges the steps since the user last spoke, never those before.
   */
  judgementOf(settings: ActionSettings, action: Action): Judgement | undefined {
    return this.judgedAt(settings, action.position).byAction.get(action);
  }

  /**
   * Judges the steps since the user last spoke (those a decision at the next compaction
   * reads), so that a later read of the session that holds the same steps, and more, takes
   * the judging over ({@link TimelineSteps} `earlier`).
   */
  judgeNewest(options: ActionOptions): void {
    const last = this.positions[this.positions.length - 1];
    if (last !== undefined) this.judgedAt(this.settingsOf(options), last);
  }

  /**
   * What actions brought under `settings`, the work steps whose last real user message is the
   * one at or before `position` judged first (once, oldest first): from a new state, or from
   * where the earlier read's judging of the same first actions left off.
   */
  private judgedAt(settings: ActionSettings, position: number): Judged {
    let judged = this.judged.get(settings.id);
    if (!judged) this.judged.set(settings.id, (judged = { byAction: new Map(), users: new Set(), newest: undefined }));
    const user = this.lastUser[position];
    if (user === undefined || judged.users.has(user)) return judged;
    judged.users.add(user);
    const views = this.stepViews(settings);
    const actions: Action[] = [];
    for (let s = firstPositionAfter(this.positions, user); s < views.length && this.lastUser[views[s]!.position] === user; s++)
      actions.push(...views[s]!.actions);
    const taken = this.earlier?.handOver(settings.id, actions, this.timeline.entries);
    const state = taken?.state ?? new InformationState(settings.matchOutput);
    const judgements = taken?.judgements ?? [];
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i]!;
      // The judgements handed over come first; each action after them is judged now.
      if (i === judgements.length)
        judgements.push(
          state.judge({
            call: action.call,
            text: action.kind === "text" ? action.key : undefined,
            position: action.position,
            messageID: (this.timeline.entries[action.position] as AssistantEntry).id,
          }),
        );
      judged.byAction.set(action, judgements[i]!);
    }
    // The steps that reach the timeline's end are the only ones a later read can go on from.
    const last = this.positions[this.positions.length - 1];
    if (last !== undefined && this.lastUser[last] === user) judged.newest = { actions, judgements, state };
    return judged;
  }

  /**
   * The judging of this timeline's newest steps, handed over to a later read of the session
   * whose steps since the user last spoke (`actions`, under the same settings id) begin with the
   * same actions (the same steps at the same positions, the same calls and results): each
   * judgement so far, and the state to go on from. It is handed over once.
   */
  private handOver(id: string, actions: readonly Action[], entries: Timeline["entries"]): Handover | undefined {
    const judged = this.judged.get(id);
    const newest = judged?.newest;
    if (!judged || !newest || newest.actions.length > actions.length) return undefined;
    const mine = this.timeline.entries;
    for (let i = 0; i < newest.actions.length; i++) if (!sameRun(newest.actions[i]!, mine, actions[i]!, entries)) return undefined;
    judged.newest = undefined;
    return newest;
  }

  /** `settings` with the id that names what shapes their actions (see {@link ActionOptions}). */
  settingsOf(settings: ActionOptions): ActionSettings {
    let named = this.named.get(settings);
    if (!named) {
      const id = `${settings.matchOutput}\u0000${settings.ignore.join("\u0000")}`;
      this.named.set(settings, (named = { ...settings, askingByResult: settings.askingByResult !== false, id }));
    }
    return named;
  }
}

/** Binary search: the first index of `list` (sorted by `positionAt`) whose position is > `after`. */
function firstIndexAfter<T>(list: ArrayLike<T>, after: number, positionAt: (item: T) => number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (positionAt(list[middle]!) <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}

const firstPositionAfter = (positions: Int32Array, after: number): number => firstIndexAfter(positions, after, (p) => p);
const firstAfter = (compactions: readonly Compaction[], after: number): number => firstIndexAfter(compactions, after, (c) => c.position);

/**
 * Does a compaction (automatic or manual) lie strictly between positions `after` and
 * `before`? `compactions` are in position order (as Timeline holds them).
 */
export function compactionBetween(compactions: readonly Compaction[], after: number, before: number): boolean {
  const i = firstAfter(compactions, after);
  return i < compactions.length && compactions[i]!.position < before;
}

/** What was judged of an action the views do not hold: information, as a call never seen. */
const UNJUDGED: Judgement = { brought: "information" };

/**
 * The steps of a timeline up to one position, as every judgement of "the same action" and
 * "new work" reads them: the part of {@link DecisionView} that needs no compaction. The
 * decision view is built on it; so is the tool-loop check (./tool-loop.ts), which looks at
 * the call just completed rather than at a compaction. A class, so that a replay's thousands
 * of views share their methods: each view is a few numbers and arrays it shares with every
 * other view of the timeline.
 */
export class StepsView {
  /** Position of the user's last real message at or before `end`, or −1 (none in view). */
  readonly lastUserPosition: number;
  /** Where the steps that count begin: after the user's last message, within view. */
  readonly from: number;
  /** Positions of the timeline's work steps. */
  private readonly positions: Int32Array;
  /** The timeline's work steps with their actions. */
  private readonly views: readonly StepView[];
  /** Index (in `positions`) of the first work step at or after `from`. */
  private readonly fromIndex: number;
  private readonly settings: ActionSettings;

  /**
   * The steps view of `timeline.entries[start..end]` (the timeline of `steps`): the steps
   * since the user's last real message at or before `end`, their actions shaped by `options`
   * ({@link ActionOptions}). Never throws on a timeline from buildTimeline.
   */
  constructor(
    private readonly steps: TimelineSteps,
    end: number,
    options: ActionOptions,
    start = 0,
  ) {
    const settings = (this.settings = steps.settingsOf(options));
    const user = steps.lastUser[end] ?? -1;
    this.lastUserPosition = user >= start ? user : -1;
    this.from = Math.max(start, this.lastUserPosition + 1);
    this.positions = steps.positions;
    this.views = steps.stepViews(settings);
    this.fromIndex = firstPositionAfter(this.positions, this.from - 1);
  }

  /** Index of the oldest of the newest `n` steps before index `stop` and at or after `low` (at least `from`). */
  private begin(stop: number, n: number, low: number): number {
    const bottom = low <= this.from ? this.fromIndex : firstPositionAfter(this.positions, low - 1);
    return Math.max(bottom, stop - n);
  }

  /** The newest `n` steps at or before `high` and at or after `low` (default and at least `from`), oldest first. */
  stepsUpTo(high: number, n: number, low = this.from): StepView[] {
    const stop = firstPositionAfter(this.positions, high);
    const begin = this.begin(stop, n, low);
    return this.views.slice(begin, Math.max(begin, stop));
  }

  /** The step at `position`, if it is a work step at or after `from`. */
  stepAt(position: number): StepView | undefined {
    const stop = firstPositionAfter(this.positions, position);
    const begin = this.begin(stop, 1, this.from);
    return begin < stop && this.views[begin]!.position === position ? this.views[begin] : undefined;
  }

  /** Position of the oldest of `stepsUpTo(high, n)`, without listing them; −1 when there are none. */
  firstStepUpTo(high: number, n: number): number {
    const stop = firstPositionAfter(this.positions, high);
    const begin = this.begin(stop, n, this.from);
    return begin < stop ? this.views[begin]!.position : -1;
  }

  /**
   * What the action brought since the user's last message (new information, a new effect, a
   * wait, new text, or nothing) and, for a check (a test run, a build, a linter), its run up
   * to it: see ./information.ts.
   */
  judgementOf(action: Action): Judgement {
    return this.steps.judgementOf(this.settings, action) ?? UNJUDGED;
  }

  /**
   * Is `other` the same action as `action`, result included? The same key, and both repeat
   * the same run (./information.ts `Judgement.first`); or, under `askingByResult`, a task
   * asked of a read-only subagent again whose report (`action`'s) `other`'s says again in other words.
   */
  sameAction(action: Action, other: Action): boolean {
    if (this.keyOf(action) !== this.keyOf(other)) return false;
    if (action.call === null || other.call === null) return true;
    const first = this.judgementOf(action).first;
    if (first !== undefined && first === this.judgementOf(other).first) return true;
    return (
      this.settings.askingByResult && action.byTool !== action.key && action.input === other.input && reportsAlike(other.call, action.call)
    );
  }

  /** The first action of `action`'s key under these settings (by {@link Action.byTool} under `askingByResult`): one object per key. */
  keyOf(action: Action): Action {
    return this.settings.askingByResult ? action.firstOfTool : action.firstOfKey;
  }

  /** Was an action of `action`'s key (see {@link keyOf}) done before it, in its own step or further back, at or after `position`? */
  keyUsedSince(action: Action, position: number): boolean {
    return ((this.settings.askingByResult ? action.previousOfTool : action.previousOfKey)?.position ?? -1) >= position;
  }

  /** Did the action bring anything since the user's last message? A repeat, however spelled, did not. */
  isNew(action: Action): boolean {
    return this.judgementOf(action).brought !== "nothing";
  }
}

/** Everything a rule may read about one decision: compaction k and the steps before it. Positions index `timeline.entries`. */
export class DecisionView extends StepsView {
  readonly timeline: Timeline;
  /** Last position in view: k's summary (the history as it stood when the summary finished). */
  readonly end: number;
  /** The previous automatic compaction in view, k−1, if any. */
  readonly previous: Compaction | undefined;
  /** The user spoke after k−1's summary: k−1's cycle is not the model's alone. */
  readonly userSteppedIn: boolean;
  /** The steps of k−1's cycle (after k−1's summary, before k; since `from`), oldest first. */
  readonly cycle: readonly StepView[];
  /** Index in `timeline.compactions` just past k. */
  private readonly upTo: number;

  /** The view of k on `timeline.entries[start..end]` (the timeline of `steps`); never throws on a timeline from buildTimeline. */
  constructor(
    steps: TimelineSteps,
    /** The automatic compaction being decided: compaction k. */
    readonly compaction: Compaction,
    settings: ActionOptions,
    /** First position in view (the hook reads only the newest messages). */
    readonly start: number,
  ) {
    const end = compactionEnd(compaction);
    super(steps, end, settings, start);
    this.timeline = steps.timeline;
    this.end = end;
    const compactions = this.timeline.compactions;
    this.upTo = firstAfter(compactions, compaction.position);
    let previous: Compaction | undefined;
    for (let i = firstAfter(compactions, compaction.position - 1) - 1; i >= 0 && compactions[i]!.position >= start && !previous; i--) {
      if (compactions[i]!.auto) previous = compactions[i];
    }
    this.previous = previous;
    this.userSteppedIn = previous !== undefined && this.lastUserPosition > compactionEnd(previous);
    this.cycle = previous ? this.stepsUpTo(compaction.position - 1, Number.POSITIVE_INFINITY, compactionEnd(previous) + 1) : [];
  }

  /**
   * Up to `n` cycles before k−1's, newest first: the steps after each automatic compaction's
   * summary (or since `from`) up to the next one; the oldest may start at `from`.
   */
  earlierCycles(n: number): StepView[][] {
    const compactions = this.recentCompactions(n + 2);
    const cycles: StepView[][] = [];
    for (let i = compactions.length - 2; i >= 0 && cycles.length < n; i--) {
      const end = compactions[i]!;
      const start = i > 0 ? compactionEnd(compactions[i - 1]!) + 1 : this.from;
      if (end.position <= this.from) break;
      cycles.push(this.stepsUpTo(end.position - 1, Number.POSITIVE_INFINITY, Math.max(this.from, start)));
      if (start <= this.from) break;
    }
    return cycles;
  }

  /** The newest `n` automatic compactions in view up to and including k, oldest first. */
  recentCompactions(n: number): Compaction[] {
    const { compactions } = this.timeline;
    const found: Compaction[] = [];
    for (let i = this.upTo - 1; i >= 0 && compactions[i]!.position >= this.start && found.length < n; i--) {
      if (compactions[i]!.auto) found.push(compactions[i]!);
    }
    return found.reverse();
  }
}

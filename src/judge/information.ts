/**
 * What each action brought: new information, a new effect, a wait, or nothing (or, for a
 * step's text, new text). New work is new information or a new effect, not a new string: a
 * call is judged by its answer and what it changed, never by how it was spelled. The
 * judgement walks the steps since the user's last real message in order, with what was seen
 * since the last effect ({@link InformationState}): a question brings information when its
 * answer holds a content line not seen, or, asked again, when its answer moves in substance;
 * an effect is new unless it redoes an earlier one or brings the world back (./world.ts); a
 * deliberate wait always brings something. The rules, with what this can still get wrong:
 * docs/how-it-decides.md "What counts as new".
 */
import type { ShellRun } from "../model/action.js";
import type { ToolCall } from "../model/entry.js";
import { answerText, contentLines, forEachContentLine, mayHold, REPORT_WRAPPER } from "../hosts/answers.js";
import { pathSegments } from "../shell/role.js";
import { ComparableOutput, normalizeOutput, reportContent, sameReport, sameTask, SUBSTANTIAL_CHARS } from "./signature.js";
import { callKind, runOf } from "./tool-kinds.js";
import { World, type Next } from "./world.js";
import { answerItems } from "./items.js";

/** What one action brought (see the module's comment). */
export type Brought = "nothing" | "information" | "effect" | "wait" | "text";

/** What a question asks: its tool and what it asked for; a delegated task by its agent and prompt alone. */
function questionOf(call: ToolCall): string {
  const { action } = call;
  if (action.kind === "delegate") return `task\u0000${action.agent}\u0000${action.prompt}`;
  return `${call.tool}\u0000${action.asked.comparable}`;
}

/** A short answer that names nothing is information for a new question even when its lines were seen (signature.ts `SUBSTANTIAL_CHARS`). */
const saysTooLittle = (answer: Answer): boolean =>
  answer.text.length < SUBSTANTIAL_CHARS && ![...answer.facts].some((fact) => !fact.startsWith("#"));

/** Content shorter than this (characters) is too little to be "the same content under a new name". */
const SUBSTANTIAL_CONTENT = 64;

/**
 * What an effect does, as two effects are compared: a write by its content (and its file when
 * the content is short), an edit by its file and change, a shell command with the files it
 * redirects into left out (`cat > notes-1.md <<EOF` and `cat > notes-2.md <<EOF` write the
 * same); a delegated task by its agent and prompt; anything else by its tool and canonical input.
 */
function effectOf(call: ToolCall): string {
  const { action } = call;
  if (action.kind === "write" && action.content !== undefined) {
    const content = action.content.trim();
    return content.length >= SUBSTANTIAL_CONTENT ? `write\u0000${content}` : `write\u0000${action.asked.path}\u0000${content}`;
  }
  if (action.kind === "delegate") return questionOf(call);
  const command = runOf(action)?.text;
  if (command !== undefined) {
    const anonymous = command.replace(/(>>?|&>)\s*[^\s;&|<>]+/g, "$1 _");
    return `shell\u0000${anonymous.length >= SUBSTANTIAL_CONTENT ? anonymous : command}`;
  }
  return `${call.tool}\u0000${action.asked.comparable}`;
}

/** A number an answer states (`87`, `41M`, `12.5%`, the `45` of `shard.ts:45`), not one inside a name. */
const NUMBER = /(?<![\w$/-])(?<!\w\.)\d+(?:[.,]\d+)*[kKmMgG%]?(?![\w.]\w)/g;
/** A list marker at a line's start (`1)`, `2.`): a report's layout, not its substance. */
const LIST_MARKER = /^\s*\d+[.)]\s/gm;

/**
 * The substance of an answer: the names it states (signature.ts `reportContent`) and its
 * numbers, noise removed. Two wordings of one report state the same names and numbers.
 */
export function factsOf(output: unknown): Set<string> {
  return factsOfNormalized(normalizeOutput(output));
}

/** {@link factsOf} of an output already normalised (signature.ts `normalizeOutput`). */
function factsOfNormalized(normalized: string): Set<string> {
  const text = normalized.replace(LIST_MARKER, "");
  const facts = new Set<string>();
  // An abbreviation (`i.e`, `e.g`) names nothing.
  for (const name of reportContent(text).named) if (!/^(?:[a-z]\.)+[a-z]?$/.test(name)) facts.add(name);
  // A JSON field's word value is a fact: `"reviewDecision":"APPROVED"` after `"REVIEW_REQUIRED"` moved.
  for (const [, key, value] of text.matchAll(/"(\w+)"\s*:\s*"([A-Za-z_][\w-]{0,39})"/g))
    facts.add(`${key!.toLowerCase()}=${value!.toLowerCase()}`);
  // A number stated twice is two facts: `3 of 3 passed` says more than `1 of 3 passed` did.
  for (const number of text.replace(REPORT_WRAPPER, " ").match(NUMBER) ?? []) {
    let fact = `#${number}`;
    for (let times = 2; facts.has(fact); times++) fact = `#${number}#${times}`;
    facts.add(fact);
  }
  return facts;
}

/** `ids` with `id` last, once. */
const withLast = (ids: readonly string[], id: string): readonly string[] => (ids[ids.length - 1] === id ? ids : [...ids, id]);

/** One answer to a question: its text with noise removed, and its substance, each worked out when first needed. */
class Answer {
  private textMemo: string | undefined;
  private factsMemo: Set<string> | undefined;
  readonly output: unknown;

  constructor(
    private readonly call: ToolCall,
    public first: number,
  ) {
    this.output = call.output;
  }

  /** It answers as `earlier` did, to the same question: it brought nothing, and repeats the same run. */
  repeats(earlier: Answer): Brought {
    this.first = earlier.first;
    return "nothing";
  }

  get text(): string {
    return (this.textMemo ??= normalizeOutput(this.output));
  }

  /** Does it read as `other` does, noise removed? Lines equal as shown are not normalised (signature.ts `ComparableOutput`). */
  sameAs(other: Answer): boolean {
    return this.output === other.output || ComparableOutput.of(this.call).sameAs(ComparableOutput.of(other.call));
  }

  get facts(): ReadonlySet<string> {
    return (this.factsMemo ??= factsOfNormalized(this.text));
  }
}

/** One action as the judgement reads it. */
export interface Judged {
  /** The tool call, or null for a step's text. */
  readonly call: ToolCall | null;
  /** For a step's text: its signature (see signature.ts `textSignature`). */
  readonly text?: string;
  /** Position of its step in the timeline's entries. */
  readonly position: number;
  /** Id of its step's assistant message. */
  readonly messageID: string;
}

/**
 * A check (a test run, a build, a linter) asked again and again with the same answer in
 * substance and no effect since its first run, as it stood at one of its runs.
 */
export interface CheckRun {
  /** Runs so far, this one included (≥ 1). */
  readonly count: number;
  /** Position of the step of its first run. */
  readonly firstPosition: number;
  /** Ids of the assistant messages holding its runs so far, oldest first, each once. */
  readonly messageIDs: readonly string[];
}

/** What one action brought, and for a check, its run so far. */
export interface Judgement {
  readonly brought: Brought;
  readonly run?: CheckRun;
  /**
   * For a call but a wait, the run it repeats: the ordinal (among the actions judged since the
   * user's last message) of the first that answered the same ({@link InformationState} `firstOf`),
   * or its own. Two calls that repeat the same run did the same, result included.
   */
  readonly first?: number;
}

/**
 * The files answers were about, told apart by their paths however written: a relative path
 * and an absolute one ending with the same segments are one file (`src/a.ts`,
 * `/home/me/p/src/a.ts`), `packages/a/tsconfig.json` and `packages/b/tsconfig.json` are two.
 */
class Files {
  private readonly byName = new Map<string, string[][]>();
  /** The key given to each path so far: a path's key never changes, since spellings are only added. */
  private readonly byPath = new Map<string, string>();

  /** A key for the file at `path`: the same key for every spelling of one file. */
  key(path: string): string {
    let key = this.byPath.get(path);
    if (key === undefined) this.byPath.set(path, (key = this.spellingOf(path)));
    return key;
  }

  /** The first known spelling of the file at `path` (one ending with the other's segments), or `path` as a new spelling. */
  private spellingOf(path: string): string {
    const segments = pathSegments(path);
    const name = segments.at(-1) ?? "";
    let known = this.byName.get(name);
    if (!known) this.byName.set(name, (known = []));
    const endsWith = (long: string[], short: string[]) => short.every((part, i) => long[long.length - short.length + i] === part);
    for (const other of known) {
      if (endsWith(other, segments) || endsWith(segments, other)) return other.join("/");
    }
    known.push(segments);
    return segments.join("/");
  }
}

/** What was shown of one file: its numbered lines (line number → text), and every text shown for it, with whether it was ever shown without a number. */
interface FileSeen {
  readonly numbered: Map<number, string>;
  readonly texts: Map<string, boolean>;
}

/** An answer whose lines count as seen, not yet entered in the maps (see {@link Seen}): its text as {@link forEachContentLine} reads it. */
interface Shown {
  readonly file: string | undefined;
  readonly text: string;
  readonly numbered: boolean;
}

/** How many characters of answers {@link Seen} keeps unentered at most: each line checked is looked for in all of them. */
const MAX_KEPT_CHARS = 1 << 17;

/**
 * The content lines seen since the last new effect. A line is seen when the same line of the
 * same file was shown (by number, when the read tool numbered it), when its text was shown
 * for that file without a number, or, for an answer about no one file, anywhere.
 *
 * Answers are kept whole, and their lines entered in the maps only when a line checked may be
 * among them ({@link mayHold}) or may be replaced by them: most answers are never read line by
 * line. docs/how-it-decides.md shows why every check reads as if all were entered when shown.
 */
export class Seen {
  private readonly files = new Map<string, FileSeen>();
  /** Texts of lines from answers about no one file (searches, listings, reports). */
  private readonly anonymous = new Set<string>();
  /** Answers shown, oldest first, not yet entered in the maps, and their length in characters. */
  private pending: Shown[] = [];
  private pendingChars = 0;

  /**
   * Counts the content lines of `output` (about `file`; undefined: no one file) as seen, one by
   * one; when `check`, tells whether one of them was not seen before it was counted (else false).
   */
  show(file: string | undefined, output: unknown, numbered: boolean, check: boolean): boolean {
    const shown = { file, text: answerText(output), numbered };
    if (!check) {
      this.keep(shown);
      return false;
    }
    // An answer kept about the same file may have shown one of its line numbers with another
    // text; and a line checked is looked for in every answer kept, so they are kept up to
    // MAX_KEPT_CHARS in all.
    if (this.pendingChars > MAX_KEPT_CHARS || (file !== undefined && this.pending.some((kept) => kept.numbered && kept.file === file)))
      this.enterPending();
    return this.enter(shown, true);
  }

  /** Keeps an answer, its lines not entered. */
  private keep(shown: Shown): void {
    this.pending.push(shown);
    this.pendingChars += shown.text.length;
  }

  /** Enters every kept answer in the maps, oldest first. */
  private enterPending(): void {
    const pending = this.pending;
    this.pending = [];
    this.pendingChars = 0;
    for (const shown of pending) this.enter(shown, false);
  }

  /**
   * Enters an answer's lines in the maps, in order. With `check`, each is first told seen or not
   * as if every answer kept were entered (those that may hold it are, first), and at the first
   * not seen it stops, keeps the answer whole and returns true: the lines entered now are
   * entered again with it, which changes nothing, as a file's numbered lines are still
   * entered in the order shown (see {@link show}).
   */
  private enter(shown: Shown, check: boolean): boolean {
    let byFile: FileSeen | undefined;
    if (shown.file !== undefined && (byFile = this.files.get(shown.file)) === undefined)
      this.files.set(shown.file, (byFile = { numbered: new Map(), texts: new Map() }));
    let unseen = false;
    forEachContentLine(shown.text, shown.numbered, (text, n) => {
      if (check) {
        if (this.pending.some((kept) => mayHold(kept.text, text))) this.enterPending();
        if (!this.seenBefore(byFile, text, n)) return (unseen = true);
      }
      if (byFile === undefined) this.anonymous.add(text);
      else if (n !== -1) {
        byFile.numbered.set(n, text);
        if (!byFile.texts.has(text)) byFile.texts.set(text, false);
      } else if (byFile.texts.get(text) !== true) byFile.texts.set(text, true);
    });
    if (unseen) this.keep(shown);
    return unseen;
  }

  /** Is a line (`text`, read-tool line number `n` or −1) seen, for an answer about the file `byFile` or (undefined) about no one file? */
  private seenBefore(byFile: FileSeen | undefined, text: string, n: number): boolean {
    if (this.anonymous.has(text)) return true;
    if (byFile === undefined) {
      for (const shown of this.files.values()) if (shown.texts.has(text)) return true;
      return false;
    }
    const unnumbered = byFile.texts.get(text);
    return n !== -1 ? byFile.numbered.get(n) === text || unnumbered === true : unnumbered !== undefined;
  }
}

/** Answers to one question: per world state (./world.ts) those given in it, and the last one given in any. */
interface Asked {
  readonly byWorld: Map<number, Answer[]>;
  last: Answer;
}

/** An answer, and the run it repeats (see {@link Judgement} `first`): its own until an earlier one reads as it does. */
interface Reading {
  first: number;
  sameAs(other: Reading): boolean;
}

/**
 * A task handed to a subagent that may change things: its agent and prompt, the epoch after
 * its last run, whether everything asked since brought nothing (undefined: nothing asked
 * yet), and its runs in a row with nothing else changed between.
 */
interface Delegation {
  readonly agent: string;
  readonly prompt: string;
  epoch: number;
  quiet: boolean | undefined;
  runs: number;
}

/**
 * Runs in a row of one task, with nothing changed between, from which a run brings nothing
 * when nothing was learned since the run before it: the second may be the subagent's second
 * try (it reports a fix), the third is a loop.
 */
const SAME_TASK_RUNS = 3;

/** One effect as done: its answer, when, and the file it changed (undefined: not known). */
interface Done {
  readonly answer: EffectAnswer;
  readonly epoch: number;
  readonly target: string | undefined;
  /** The world state it reached. */
  readonly reached: Next;
}

/** An effect's answer as two are compared: its content lines, noise removed, worked out when first compared. */
class EffectAnswer {
  private memo: string | undefined;

  constructor(
    private readonly output: unknown,
    public first: number,
  ) {}

  get text(): string {
    return (this.memo ??= normalizeOutput(contentLines(this.output).join("\n")));
  }

  sameAs(other: EffectAnswer): boolean {
    return this.text === other.text;
  }
}

/** What the judgement carries from one action to the next (see the module's comment). */
export class InformationState {
  private readonly files = new Files();
  private readonly world = new World();
  /** The lines seen in the current world state, and in each state the world had. */
  private seen = new Seen();
  private readonly seenIn = new Map<number, Seen>([[0, this.seen]]);
  /** Per question, its answers since the user's last message. */
  private asked = new Map<string, Asked>();
  /** The first answer of each reading since the user's last message: per question, per effect, and per asking tool (see {@link firstOf}). */
  private readonly readings = new Map<string, Reading[]>();
  /** Per effect, each time it was done since the user's last message. */
  private done = new Map<string, Done[]>();
  /** Effects that moved the world since the user's last message; the epoch of the last that changed each file, or an unknown one. */
  private epoch = 0;
  private touched = new Map<string, number>();
  private lastUnknown = 0;
  /** Texts said since the user's last message. */
  private said = new Set<string>();
  /** Per check, its run since the last new effect (or since its answer last moved). */
  private runs = new Map<string, CheckRun>();
  /** The tasks handed to subagents that may change things since the user's last message (see {@link Delegation}). */
  private readonly delegated: Delegation[] = [];
  /** How many actions were judged since the user's last message. */
  private judged = 0;
  /** How many observations brought something (information or a wait) since the user's last message. */
  private learned = 0;
  /** Per world state the world left, {@link learned} when it left it last. */
  private leftAt = new Map<string, number>();
  /** Per world state, how many times an effect brought the world back to it. */
  private returns = new Map<string, number>();

  constructor(
    /** Whether answers enter the judgement (`matchOutput`); off, a call is new exactly when its input is. */
    private readonly byAnswer: boolean,
  ) {}

  /** Judges one action, then remembers it. */
  judge(action: Judged): Judgement {
    const { call } = action;
    const run = this.judged++;
    if (call === null) {
      const text = action.text ?? "";
      if (this.said.has(text)) return { brought: "nothing" };
      this.said.add(text);
      return { brought: "text" };
    }
    const kind = callKind(call);
    if (kind === "wait") {
      this.observed("wait");
      return { brought: "wait" };
    }
    const shell = runOf(call.action);
    // A failed call changed nothing: it is a question, whose answer is its error.
    if (call.status !== "error" && (kind === "change" || kind === "effect")) return this.effect(call, run);
    const ask = call.status === "error" && kind === "change" ? `${call.tool}\u0000${call.action.asked.path}` : questionOf(call);
    const answer = new Answer(call, run);
    const brought = this.question(call, ask, shell, answer);
    const judgement: Judgement = { brought, first: answer.first };
    this.observed(brought);
    if (shell?.role !== "check") return judgement;
    // A check whose answer moved starts a new run; so does one after a new effect (runs are cleared).
    const before = brought === "nothing" ? this.runs.get(ask) : undefined;
    const check: CheckRun = before
      ? { count: before.count + 1, firstPosition: before.firstPosition, messageIDs: withLast(before.messageIDs, action.messageID) }
      : { count: 1, firstPosition: action.position, messageIDs: [action.messageID] };
    this.runs.set(ask, check);
    return { ...judgement, run: check };
  }

  /** The file an effect changes, when known: the path an edit, a write or a patch names. */
  private targetOf(call: ToolCall): string | undefined {
    const file = callKind(call) === "change" ? call.action.asked.path : null;
    return file === null ? undefined : this.files.key(file);
  }

  /**
   * Is the effect new? Not when it was done before with the same answer and, for an effect
   * on a known file, nothing changed that file since (another effect on it, or one whose
   * files are not known): an effect on files not known that answers exactly as before
   * changed nothing the session can see. Nor when it brings the world back, for the second
   * time or more, to a state it had since the user's last message with nothing learned since
   * it left it (./world.ts): what was seen in that state holds again. Nor a task handed
   * {@link SAME_TASK_RUNS} times in a row with nothing else changed between and nothing
   * learned since its last run, however its report is worded. A new one starts afresh.
   */
  private effect(call: ToolCall, run: number): Judgement {
    const what = effectOf(call);
    const answer = new EffectAnswer(this.byAnswer ? call.output : "", run);
    this.repeatsIn(`=${what}`, answer);
    const nothing: Judgement = { brought: "nothing", first: answer.first };
    const target = this.targetOf(call);
    const earlier = this.done.get(what) ?? [];
    const since = (file: string | undefined, epoch: number) => (this.touched.get(file ?? "") ?? 0) > epoch;
    // Done again with the same answer: on a known file that nothing changed since, or on files
    // not known from the very state that run left (a command that fails the same way again).
    const repeated = earlier.find(
      (done) =>
        done.answer.sameAs(answer) &&
        (done.target === undefined
          ? this.world.name === done.reached.name
          : this.lastUnknown <= done.epoch && !since(done.target, done.epoch) && !since(target, done.epoch)),
    );
    if (repeated) return nothing;
    // The same task handed again with nothing changed since its last run; by its third run in
    // a row, with nothing learned since the last, it brings nothing.
    const task = call.action.kind === "delegate" ? call.action : undefined;
    const delegation = task === undefined ? undefined : this.delegationOf(task);
    const again = delegation !== undefined && delegation.epoch === this.epoch;
    if (again && delegation.quiet === true && delegation.runs + 1 >= SAME_TASK_RUNS) return nothing;
    const next = this.world.next(call, target);
    // Back to a state left with nothing learned since brings nothing from its second return on
    // (`foo`→`bar`→`foo`→`bar`→`foo`); a first return (an attempt undone), or one after what an
    // attempt showed (a revert after a failed test), is a step of its own.
    const returns = next.had ? (this.returns.get(next.name) ?? 0) + 1 : 0;
    if (next.had) this.returns.set(next.name, returns);
    const back = returns >= 2 && (this.leftAt.get(next.name) ?? -1) >= this.learned;
    this.enter(next, target);
    if (back) return nothing;
    earlier.push({ answer, epoch: this.epoch, target, reached: next });
    this.done.set(what, earlier);
    if (delegation !== undefined) Object.assign(delegation, { epoch: this.epoch, quiet: undefined, runs: again ? delegation.runs + 1 : 1 });
    else if (task !== undefined)
      this.delegated.push({ agent: task.agent, prompt: task.prompt, epoch: this.epoch, quiet: undefined, runs: 1 });
    // A check may answer otherwise now.
    this.runs = new Map();
    return { brought: "effect", first: answer.first };
  }

  /**
   * Moves the world to the state `next` (changing the file `target`; undefined: files not
   * known), with the lines seen in that state. Each move is an epoch, also one back to a
   * state the world had: the same effect again is not "nothing changed its file since".
   */
  private enter(next: Next, target: string | undefined): void {
    if (next.name === this.world.name) return;
    this.leftAt.set(this.world.name, this.learned);
    const world = this.world.enter(next);
    let seen = this.seenIn.get(world);
    if (seen === undefined) this.seenIn.set(world, (seen = new Seen()));
    this.seen = seen;
    this.epoch += 1;
    if (target === undefined) this.lastUnknown = this.epoch;
    else this.touched.set(target, this.epoch);
  }

  /** What an observation brought, for the delegations since which nothing changed: all quiet while each brings nothing. */
  private observed(brought: Brought): void {
    if (brought !== "nothing") this.learned += 1;
    for (const run of this.delegated) if (run.epoch === this.epoch) run.quiet = (run.quiet ?? true) && brought === "nothing";
  }

  /**
   * The task handed before that `task` hands again: the same agent given the same prompt, or
   * one that names the same things (./signature.ts `sameTask`); undefined for a new one.
   */
  private delegationOf(task: { readonly agent: string; readonly prompt: string }): Delegation | undefined {
    return this.delegated.find((d) => d.agent === task.agent && (d.prompt === task.prompt || sameTask(d.prompt, task.prompt)));
  }

  /** The file a question's answer shows, when it shows one: a file read's, or a reading command's. */
  private fileOf(call: ToolCall, run: ShellRun | undefined): string | undefined {
    const path = run !== undefined ? run.shows : call.action.kind === "read" ? call.action.file : undefined;
    return typeof path === "string" ? this.files.key(path) : undefined;
  }

  /** Counts the call's answer (a structured one by its items, ./items.ts) as seen; when `check`, tells first whether it holds a line not seen before (else false). */
  private shown(call: ToolCall, run: ShellRun | undefined, check: boolean): boolean {
    const file = this.fileOf(call, run);
    const numbered = call.action.kind === "read" && call.action.numbered;
    const output = answerItems(call.output, call.action.asked);
    return this.seen.show(file, output, numbered, check);
  }

  /** What a question brought (see the module's comment), its `answer` given the run it repeats; `shell`: the command it runs. */
  private question(call: ToolCall, ask: string, shell: ShellRun | undefined, answer: Answer): Brought {
    const asked = this.asked.get(ask);
    if (!this.byAnswer) {
      if (asked) return answer.repeats(asked.last);
      this.asked.set(ask, { byWorld: new Map(), last: answer });
      return "information";
    }
    const world = this.world.id;
    const current = asked?.byWorld.get(world);
    // The same answer as its last in this world state: its lines are seen already.
    const again = current !== undefined && current[current.length - 1]!.output === call.output;
    const unseen = !again && this.shown(call, shell, asked === undefined);
    if (asked === undefined) {
      this.asked.set(ask, { byWorld: new Map([[world, [answer]]]), last: answer });
      this.firstOf(call, ask, answer);
      return unseen || saysTooLittle(answer) ? "information" : "nothing";
    }
    const before = asked.last;
    asked.last = answer;
    if (current === undefined) {
      // First asked in this world state: any change from its last answer is news, since an effect may have made it.
      asked.byWorld.set(world, [answer]);
      if (before.sameAs(answer)) return answer.repeats(before);
      this.firstOf(call, ask, answer);
      return "information";
    }
    // Asked again in this world state: only an answer that moved in substance is news (a
    // name or number that neither an earlier answer nor the question itself stated; any
    // change, for an answer that states none).
    const same = current.find((known) => known.sameAs(answer));
    const moved = same === undefined && (answer.facts.size === 0 || this.statesNews(answer, current, call));
    current.push(answer);
    if (same !== undefined) return answer.repeats(same);
    this.firstOf(call, ask, answer);
    return moved ? "information" : "nothing";
  }

  /** Gives `answer` to `ask` the run of the first answer to it that read the same; else, when asking, of its tool's first substantial one that did. */
  private firstOf(call: ToolCall, ask: string, answer: Answer): void {
    if (this.repeatsIn(`?${ask}`, answer) || callKind(call) !== "asking" || answer.text.length < SUBSTANTIAL_CHARS) return;
    this.repeatsIn(`!${call.tool}\u0000${call.status}`, answer);
  }

  /** Gives `answer` the run of the first reading under `key` that reads as it does, if any (then true); else it is one. */
  private repeatsIn(key: string, answer: Reading): boolean {
    const known = this.readings.get(key);
    const same = known?.find((other) => other.sameAs(answer));
    if (same !== undefined) answer.first = same.first;
    else if (known) known.push(answer);
    else this.readings.set(key, [answer]);
    return same !== undefined;
  }

  /** Does `answer` state a name or number that no earlier answer, nor the question, did? */
  private statesNews(answer: Answer, earlier: readonly Answer[], call: ToolCall): boolean {
    let asked: Set<string> | undefined;
    for (const fact of answer.facts) {
      if (earlier.some((known) => known.facts.has(fact))) continue;
      asked ??= factsOf(call.action.asked.json);
      if (!asked.has(fact)) return true;
    }
    return false;
  }
}

/**
 * Is `earlier` a read-only subagent's report that `later`, its answer to the same task,
 * says again in other words (signature.ts `sameReport`)? The caller tells that the task is the same.
 */
export const reportsAlike = (earlier: ToolCall, later: ToolCall): boolean =>
  callKind(earlier) === "asking" && earlier.action.kind === "delegate" && sameReport(String(earlier.output), String(later.output));

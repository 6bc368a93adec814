/**
 * What two tool calls are compared by besides what they asked for (model/action.ts
 * `Asked.comparable`, made by the host): a call's output with the noise removed, a text's
 * signature, what a subagent's report or prompt names. JSON is compared with its keys sorted
 * (shared/canonical-json.ts), never as raw `JSON.stringify` (opencode's doom-loop check in
 * session/processor.ts is key-order sensitive).
 */
import type { Hash } from "node:crypto";
import { canonicalJson } from "../shared/canonical-json.js";
import { builtin } from "../shared/builtin.js";
import { REPORT_WRAPPER, RUN_IDS } from "../hosts/answers.js";

let crypto: typeof import("node:crypto") | undefined;

/** A sha256 hash; node:crypto is loaded on first use (shared/builtin.ts). */
function sha256(): Hash {
  crypto ??= builtin<typeof import("node:crypto")>("node:crypto");
  return crypto.createHash("sha256");
}

/** The sha256 digest of `text`, in hex: a name for a content without keeping it. */
export function digestOf(text: string): string {
  return sha256().update(text).digest("hex");
}

/**
 * What changes between two runs of the same call without saying anything about progress
 * (docs/how-it-decides.md "Noise" lists it with examples): timestamps, clock times, measured
 * durations, process ids, temporary paths, addresses, UUIDs and long hex ids, a local port,
 * the ids a host's tool writes anew on every call (hosts/answers.ts `RUN_IDS`), ids told by
 * their look ({@link looksRandom}), docker's container ids and elapsed-time prefixes. Counts,
 * percentages, plain numbers, whole seconds and minutes (a wait's "about 4 minutes remaining")
 * and short hex ids (a git commit's) stay: they are progress.
 */
const NOISE_PARTS = [
  /\d{4}-\d{2}-\d{2}[T ]\d{2}[:_]\d{2}(?:[:_]\d{2}(?:[._]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?/, // 2026-11-30T09:00:00Z, 2026-11-30T16_08_58_367Z
  /\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b/, // 09:00:00
  /\d+(?:\.\d+)?[^\S\n]?(?:ns|µs|us|ms)\b|\d+\.\d+[^\S\n]?(?:s|secs?|seconds?)\b|\d+m\d+(?:\.\d+)?s\b/, // 31 ms, 0.42s, 0m3.217s
  /(?:[Ii]n|[Tt]ook|[Aa]fter|[Ee]lapsed:?|[Dd]uration:?|ETA:?|[Ee]ta:?)[^\S\n]+\d+(?:\.\d+)?[^\S\n]?(?:h|hrs?|hours?|s|secs?|seconds?|m|mins?|minutes?)\b(?:[^\S\n]?\d+(?:\.\d+)?[^\S\n]?(?:s|secs?|seconds?|m|mins?|minutes?)\b)*/, // BUILD FAILED in 7s, ETA: 2m 10s
  /[Pp][Ii][Dd][ =:]+\d+|node:\d+/, // pid 26594, PID=26594, (node:41872)
  /0x[0-9a-fA-F]{6,}/, // 0x7f3a9c2e10
  /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b|[0-9a-fA-F]{32,}\b/, // UUIDs, sha256
  /(?:localhost|127\.0\.0\.1|0\.0\.0\.0):\d+/, // a local address's port
  ...RUN_IDS,
  /[A-Za-z]{2,10}_(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{10,}\b/, // req_0e93b7d15a2c48f6e911
  /(?:Running in|container|--->) [0-9a-f]{12}\b/, // docker build's intermediate containers
];
const NOISE = new RegExp(`\\b(?:${NOISE_PARTS.map((part) => part.source).join("|")})`, "g");
/** A job or process number at the start of a line: `[104] FATAL …`, `[1] 26594`. */
const JOB_NUMBER = /^\[\d+\](?: \d+)?/gm;
/** A process number in brackets after other text on its line (`UTC [48207] FATAL`). */
const BRACKETED_PID = /(?<![\w\]])\[\d{3,7}\]/g;
/**
 * An elapsed-time prefix at a line's start: BuildKit's `#7 1.330` (and `1.330` alone where
 * it echoes a failed step's log), the kernel's `[   12.345678]`.
 */
const ELAPSED_PREFIX = /^(?:#\d+ \d+\.\d+|\d+\.\d{3}|\[[^\S\n]*\d+\.\d+\])(?= |$)/gm;
/** A run of 8+ letters and digits, with both in it: a candidate random id (see {@link looksRandom}). */
const MIXED_TOKEN = /(?<![A-Za-z0-9])(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9]{8,}(?![A-Za-z0-9])/g;

/**
 * Does a token of letters and digits look generated rather than written? It switches
 * between letters and digits 3+ times (`utf8mb4` and `x86` do not; `7c41e0a9` does), and is
 * not a short all-hex id (a git commit's, under 16 characters, whose change is progress).
 */
function looksRandom(token: string): boolean {
  if (token.length < 16 && /^[0-9a-f]+$/i.test(token)) return false;
  let switches = 0;
  for (let i = 1; i < token.length; i++) {
    if (isDigit(token.charCodeAt(i)) !== isDigit(token.charCodeAt(i - 1))) switches += 1;
  }
  return switches >= 3;
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

/** Paths under the system's temporary directories. */
const TEMP_PATH = /(?:\/tmp|\/var\/tmp|\/private\/var\/folders|\/var\/folders)\/[^\s'"`)\]]+/g;
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * A tool output with run-to-run noise replaced (see {@link NOISE_PARTS}), for comparing results.
 * Every replacement stays within a line (no pattern matches a line feed, none writes one), so
 * the result has the output's lines, each normalised alone: {@link ComparableOutput}
 * relies on it.
 */
export function normalizeOutput(output: unknown): string {
  return normalizeText(typeof output === "string" ? output : canonicalJson(output));
}

/** Longest run of letters, digits and underscores the noise patterns read (see {@link withoutLongRuns}). */
const LONGEST_RUN = 4096;

/** The stand-in for a long run: its length and digest, the digest written in the letters g–v, which no pattern reads as an id. */
function longRunStandIn(run: string): string {
  const letters = digestOf(run).replace(/[0-9a-f]/g, (c) => String.fromCharCode(103 + Number.parseInt(c, 16)));
  return `«${run.length} letters and digits ${letters.slice(0, 16)}»`;
}

/** A letter, digit or underscore (the characters of a run, see {@link withoutLongRuns}). */
const isWordCode = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/**
 * `text` with every run of letters, digits and underscores longer than {@link LONGEST_RUN}
 * replaced by a stand-in naming its length and digest (content: no id or timestamp is that
 * long): equal runs stay equal, different ones differ. Found by a scan of the runs through
 * every LONGEST_RUN-th position, since on such runs regular expressions overflow V8's stack.
 */
function withoutLongRuns(text: string): string {
  let out = "";
  let copied = 0;
  for (let at = 0; at < text.length; at += LONGEST_RUN) {
    if (!isWordCode(text.charCodeAt(at))) continue;
    let start = at;
    while (start > copied && isWordCode(text.charCodeAt(start - 1))) start -= 1;
    let end = at + 1;
    while (end < text.length && isWordCode(text.charCodeAt(end))) end += 1;
    if (end - start <= LONGEST_RUN) continue;
    out += text.slice(copied, start) + longRunStandIn(text.slice(start, end));
    copied = end;
    // The next position to look at is the first multiple of LONGEST_RUN past the run.
    at = Math.floor(end / LONGEST_RUN) * LONGEST_RUN;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function normalizeText(text: string): string {
  if (text.length > LONGEST_RUN) text = withoutLongRuns(text);
  // Each pass only when its marker is there: most outputs skip three of the four.
  if (text.includes("\x1b")) text = text.replace(ANSI, "");
  if (text.includes("/tmp/") || text.includes("/var/")) text = text.replace(TEMP_PATH, "/tmp/~");
  if (text.includes("[")) text = text.replace(JOB_NUMBER, "[~]").replace(BRACKETED_PID, "[~]");
  text = text.replace(ELAPSED_PREFIX, "~");
  const denoised = BENCHMARK_LINE.test(text)
    ? text
        .split("\n")
        .map((line) => (BENCHMARK_LINE.test(line) ? line : line.replace(NOISE, "~")))
        .join("\n")
    : text.replace(NOISE, "~");
  return denoised.replace(MIXED_TOKEN, (token) => (looksRandom(token) ? "~" : token));
}

/**
 * A benchmark's result line, whose durations are the measurement, not noise: Go's
 * `1203 ns/op`, criterion's `time: [12.3 ms 12.4 ms 12.5 ms]`, a `mean ± σ`, `ops/sec`.
 */
const BENCHMARK_LINE = /\d[^\S\n]?(?:ns|µs|us|ms|s)\/(?:op|iter|call)\b|\btime:[^\S\n]+\[|±|\b(?:mean|median)\b|\bops\/s(?:ec)?\b/;

/**
 * Results shorter than this (characters, noise removed) say too little to stand for the call
 * that got them: `ok`, `0` or "No results found." answers many questions.
 */
export const SUBSTANTIAL_CHARS = 120;

const BY_CALL = new WeakMap<object, ComparableOutput>();

/**
 * A tool output as results are compared: `a.sameAs(b)` is
 * `normalizeOutput(a) === normalizeOutput(b)`, told line by line (exact, since normalisation
 * is line-local): lines equal as they stand are not normalised, the first that differs ends
 * the comparison, and each line is normalised at most once however often it is compared.
 */
export class ComparableOutput {
  /** The output as text: itself, or its canonical JSON. */
  readonly text: string;
  /** End offset of each line found so far (its line feed, or the text's length for the last). */
  private readonly ends: number[] = [];
  private readonly normalized: Array<string | undefined> = [];

  constructor(output: unknown) {
    this.text = typeof output === "string" ? output : canonicalJson(output);
  }

  /** The comparable output of `call`, made once per call: every comparison of its output shares what was read of it. */
  static of(call: { readonly output: unknown }): ComparableOutput {
    let comparable = BY_CALL.get(call);
    if (comparable === undefined) BY_CALL.set(call, (comparable = new ComparableOutput(call.output)));
    return comparable;
  }

  /** End offset of line `i`, or −1 when the text has no line `i`. */
  private end(i: number): number {
    const { ends, text } = this;
    while (ends.length <= i) {
      const last = ends.length === 0 ? -1 : ends[ends.length - 1]!;
      if (last >= text.length) return -1;
      const next = text.indexOf("\n", last + 1);
      ends.push(next === -1 ? text.length : next);
    }
    return ends[i]!;
  }

  private line(i: number): string {
    return this.text.slice(i === 0 ? 0 : this.ends[i - 1]! + 1, this.ends[i]);
  }

  private normalizedLine(i: number): string {
    return (this.normalized[i] ??= normalizeText(this.line(i)));
  }

  /** Characters this output's line walks have read so far; past {@link walkBudget} it is compared by a digest instead. */
  private walked = 0;
  private digestMemo: string | undefined;

  /** Four readings of the whole text and 4,096 characters more. */
  private get walkBudget(): number {
    return 4 * this.text.length + 4096;
  }

  /** sha256 of the whole normalised text. */
  private get digest(): string {
    if (this.digestMemo === undefined) {
      this.digestMemo = sha256().update(normalizeText(this.text)).digest("hex");
      this.normalized.length = 0;
    }
    return this.digestMemo;
  }

  /** Do the two outputs read the same, noise removed? */
  sameAs(other: ComparableOutput): boolean {
    if (this.text === other.text) return true;
    if (this.walked > this.walkBudget && other.walked > other.walkBudget) return this.digest === other.digest;
    let read = 0;
    try {
      for (let i = 0; ; i++) {
        const a = this.end(i);
        const b = other.end(i);
        if (a === -1 || b === -1) return a === b;
        read = a;
        if (this.line(i) !== other.line(i) && this.normalizedLine(i) !== other.normalizedLine(i)) return false;
      }
    } finally {
      this.walked += read + 1;
      other.walked += read + 1;
    }
  }
}

/**
 * The signature of a step's text (for steps without tool calls): sha256 of the text with
 * whitespace runs collapsed, case folded and the noise of {@link normalizeOutput} removed.
 */
export function textSignature(text: string): string {
  return digestOf(normalizeOutput(text).replace(/\s+/g, " ").trim().toLowerCase());
}

/** Words too common to say what a report is about. */
const STOPWORDS = new Set(
  "the and for that this with from are was were can not but its into than then there their which what when also only have has had been will would should could does did our your they them these those here just more most some such very each other about after before over under".split(
    " ",
  ),
);

/** What a subagent's report says, for comparing two answers to one question. */
export interface ReportContent {
  /**
   * The identifiers, paths and file names in it (a token with `_`, `/`, `::`, a dot inside
   * it, or a lower-to-upper case change; a path by its last segment, without a `:line`
   * suffix), lowercased.
   */
  readonly named: ReadonlySet<string>;
  /** Its words of 4+ letters, lowercased, less the common ones. */
  readonly words: ReadonlySet<string>;
  /** The numbers it states (`87`, `41M`, `12.5%`), not those inside a name or a `$1` placeholder. */
  readonly numbers: ReadonlySet<string>;
}

/** Reads a report (the tags a host writes around it, hosts/answers.ts `REPORT_WRAPPER`, left out). */
export function reportContent(text: string): ReportContent {
  const body = text.replace(REPORT_WRAPPER, " ");
  const named = new Set<string>();
  for (const raw of body.match(/[A-Za-z0-9_$.:/-]+/g) ?? []) {
    const token = raw.replace(/^[.:/-]+|[.:-]+$/g, "").replace(/(?::\d+)+$/, "");
    if (!/[_/]|::|[A-Za-z0-9]\.[A-Za-z]|[a-z][A-Z]/.test(token)) continue;
    // A path counts by its last segment: one report writes `internal/store/export.sql:12`, the next `export.sql`.
    named.add((token.includes("/") && !token.endsWith("/") ? token.slice(token.lastIndexOf("/") + 1) : token).toLowerCase());
  }
  const words = new Set((body.toLowerCase().match(/[a-z]{4,}/g) ?? []).filter((word) => !STOPWORDS.has(word)));
  const numbers = new Set(body.match(/(?<![\w$.:/-])\d+(?:[.,]\d+)*[kKmMgG%]?(?![\w.]\w)/g) ?? []);
  return { named, words, numbers };
}

/** How much two reports must share (|A ∩ B| / |A ∪ B|, more than this) to say the same thing by what they name. */
export const SAME_REPORT_NAMED = 0.6;
/** The same by their words alone, for reports that name fewer than 3 things: nearly the same words. */
export const SAME_REPORT_WORDS = 0.8;

/** |a ∩ b| / |a ∪ b|; 1 for two empty sets. */
function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let both = 0;
  for (const item of a) if (b.has(item)) both += 1;
  const either = a.size + b.size - both;
  return either === 0 ? 1 : both / either;
}

/**
 * Do two prompts hand a subagent the same task, in other words? They name the same things
 * (the same identifiers, paths and file names, at least one) and state the same numbers. Two
 * prompts that name nothing are the same task only word for word: a template filled with
 * another module's name is another task.
 */
export function sameTask(a: string, b: string): boolean {
  const x = reportContent(a);
  const y = reportContent(b);
  const same = (p: ReadonlySet<string>, q: ReadonlySet<string>) => p.size === q.size && [...p].every((item) => q.has(item));
  return x.named.size > 0 && same(x.named, y.named) && same(x.numbers, y.numbers);
}

/**
 * Does `later` bring back what `earlier` already said? Meant for two answers to the same
 * delegated question, which a subagent words anew each time. They say the same thing when
 * `later` states no number `earlier` did not (a count that moved, 87 → 63 errors left, is
 * news), and they name the same things (more than {@link SAME_REPORT_NAMED} of the
 * identifiers, paths and file names of the two together are in both), or, when either names
 * fewer than 3, use nearly the same words ({@link SAME_REPORT_WORDS}). A report that names
 * other files or functions, or the same ones in other words and other numbers, is news.
 */
export function sameReport(earlier: string, later: string): boolean {
  const before = reportContent(earlier);
  const after = reportContent(later);
  for (const number of after.numbers) if (!before.numbers.has(number)) return false;
  if (before.named.size >= 3 && after.named.size >= 3) return overlap(before.named, after.named) > SAME_REPORT_NAMED;
  return overlap(before.words, after.words) >= SAME_REPORT_WORDS;
}

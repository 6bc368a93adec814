/**
 * How the hosts' tools lay out their answers, every host together, and an answer's content
 * lines read through those layouts: the seam through which the judge (judge/information.ts,
 * judge/signature.ts) reads a tool's answer without naming a host. Every layout applies to every answer, whichever host wrote it: a wrapper line of one
 * host's tool holds no content in another's answer either, and a replay reads an export
 * without asking its host. Of the hosts read today only opencode's tools wrap their answers
 * (./opencode/answers.ts); a host whose tools do adds its layout here. Pure.
 */
import * as opencode from "./opencode/answers.js";

/** What ends a line number before a line's text: each host's read tool's, and `cat -n`'s tab (any host's shell). */
const LINE_NUMBER_ENDS = [...opencode.LINE_NUMBER_ENDS, "\t"];

/**
 * A line number before a line's text, as a read tool or `cat -n` writes it (`12: `, `    12\t`):
 * white space, digits, then one of the ends above. Anchored; it begins with white space or a
 * digit, so a line opening with any other character holds none.
 */
export const LINE_NUMBER = new RegExp(
  `^\\s*\\d+(?:${LINE_NUMBER_ENDS.map((end) => end.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`,
);

/** Is `line` (trimmed, not empty) one that wraps an answer's content rather than holds it (a tag line, a trailer, a match count)? */
export const isWrapperLine: (line: string) => boolean = opencode.isWrapperLine;

/** The path a search tool's file heading names (the line above that file's hits), or undefined for any other line (trimmed). */
export const headingPath: (line: string) => string | undefined = opencode.headingPath;

/** The text of a hit written under a file heading (untrimmed), or undefined for any other line (trimmed). */
export const headedHitText: (line: string) => string | undefined = opencode.headedHitText;

/** The tags a host writes around a subagent's report; global, for `replace`. */
export const REPORT_WRAPPER: RegExp = opencode.TASK_WRAPPER;

/** Ids a host writes anew on every run of a tool: output noise, never progress. */
export const RUN_IDS: readonly RegExp[] = opencode.RUN_IDS;

/** A search hit as grep -n, rg and git grep write it: `src/a.ts:12:text`. */
const HIT = /^(?:\.\/)?[\w@.\/-]*\.\w+:\d+:.*$/;

const basename = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

/** An answer as text: a string as it is, anything else as indented JSON, nothing as "". */
export const answerText = (output: unknown): string =>
  typeof output === "string" ? output : output === undefined || output === null ? "" : JSON.stringify(output, null, 1);

/**
 * Calls `visit` with each content line of an answer: trimmed, as shown (run-to-run noise is
 * left in: reading every answer's noise out would cost a replay several times its parse; a
 * repeated question is compared without it, judge/information.ts), without line numbers (the
 * read tool's is passed on when `numbered`, else −1) or the lines a tool wraps content in
 * ({@link isWrapperLine}), without a trailing comma (a search result moved to the
 * end of a JSON list), empty lines left out; a search hit as its file's name and its text,
 * however the search tool wrote it (grep -n's `file:12:text`, or under a file heading). Two answers
 * showing the same lines of a file, or the same hits, give the same lines, however asked.
 * Stops when `visit` returns true.
 */
export function forEachContentLine(output: unknown, numbered: boolean, visit: (text: string, n: number) => boolean | void): void {
  const raw = answerText(output);
  let file = "";
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf("\n", start);
    if (end === -1) end = raw.length;
    const whole = raw.slice(start, end);
    start = end + 1;
    // A line number begins with a digit or white space (every character `\s` matches is below "0" or not ASCII).
    const first = whole.charCodeAt(0);
    const mayBeNumbered = first <= 57 || first >= 128;
    const number = numbered && mayBeNumbered ? LINE_NUMBER.exec(whole) : null;
    let line = (number ? whole.slice(number[0].length) : mayBeNumbered ? whole.replace(LINE_NUMBER, "") : whole).trim();
    if (line.endsWith(",")) line = line.slice(0, -1);
    if (line === "" || isWrapperLine(line)) continue;
    const heading = headingPath(line);
    if (heading !== undefined) {
      file = basename(heading);
      continue;
    }
    const headed = headedHitText(line);
    const n = number ? Number.parseInt(number[0], 10) : -1;
    let text = line;
    if (headed !== undefined) text = `${file}\u0000${headed.trim()}`;
    else if (line.includes(":") && HIT.test(line)) {
      // A hit's file is all before its first colon, its text all after the second (the line number has none).
      const fileEnd = line.indexOf(":");
      const name = line.slice(line.lastIndexOf("/", fileEnd) + 1, fileEnd);
      text = `${name}\u0000${line.slice(line.indexOf(":", fileEnd + 1) + 1).trim()}`;
    }
    if (visit(text, n) === true) return;
  }
}

/** The content lines of an answer as texts (see {@link forEachContentLine}): the same lines of a file, or the same hits, however asked. */
export function contentLines(output: unknown): string[] {
  const lines: string[] = [];
  forEachContentLine(output, false, (text) => {
    lines.push(text);
  });
  return lines;
}

/** May `answer` (an answer's text) hold a line that {@link forEachContentLine} gives as `text`? Only when it holds the text after its last NUL (a search hit's own text). */
export const mayHold = (answer: string, text: string): boolean => answer.includes(text.slice(text.lastIndexOf("\u0000") + 1));

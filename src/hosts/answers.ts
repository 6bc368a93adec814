/**
 * How the hosts' tools lay out their answers, every host together: the seam through which the
 * judge (judge/information.ts, judge/signature.ts) reads a tool's answer without naming a
 * host. Every layout applies to every answer, whichever host wrote it: a wrapper line of one
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

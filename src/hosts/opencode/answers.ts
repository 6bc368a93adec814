/**
 * How opencode's built-in tools lay out their answers (tool/read.ts, tool/grep.ts,
 * tool/glob.ts, tool/task.ts, tool/truncate.ts): the lines that wrap content rather than hold
 * it, the read tool's line numbers, the grep tool's hits under a file heading, and the ids a
 * run writes anew. Plain data and
 * pure functions; the judge reads them through ../answers.ts, never from here.
 */

/**
 * Lines that wrap content rather than hold it: the read tool's `<path>`, `<type>` and
 * `<content>` lines and its trailer (`(Showing lines 1-66 of 9866. …)`), the task tool's
 * `<task id=…>` and `<task_result>` lines, the grep tool's `Found 3 matches`.
 */
const WRAPPER =
  /^(?:<\/?(?:path|type|content|file|task_result|task_metadata)>.*|<\/?task\b[^>]*>|\((?:End of file|Showing lines|File has more lines|Output truncated)\b.*\)|Found \d+ (?:match|file|result)\w*)$/;
/** What ends the read tool's line number before a line's text: `12: `, in older versions `00012| `. */
export const LINE_NUMBER_ENDS: readonly string[] = [": ", "| "];

/** The grep tool's file heading (`/abs/src/a.ts:`) and the hits under it (`  Line 12: text`). */
const HEADING = /^(\S*\.\w+):$/;
const HEADED_HIT = /^Line \d+:(.*)$/;

/** Is `line` (trimmed) a wrapper line (see {@link WRAPPER})? Only a line opening with `<`, `(` or `Found ` is tried. */
export function isWrapperLine(line: string): boolean {
  const first = line.charCodeAt(0);
  return (first === 60 || first === 40 || line.startsWith("Found ")) && WRAPPER.test(line);
}

/** The path a grep tool's file heading names (`/abs/src/a.ts` of `/abs/src/a.ts:`), or undefined for any other line (trimmed). */
export function headingPath(line: string): string | undefined {
  return line.endsWith(":") ? HEADING.exec(line)?.[1] : undefined;
}

/** The text of a grep tool's hit under a heading (` f()` of `Line 12: f()`, untrimmed), or undefined for any other line (trimmed). */
export function headedHitText(line: string): string | undefined {
  return line.startsWith("Line ") ? HEADED_HIT.exec(line)?.[1] : undefined;
}

/** The task tool's tags around a subagent's report (`<task id="ses_…" …>`, `<task_result>` and their ends); global, for `replace`. */
export const TASK_WRAPPER = /<\/?task(?:_result)?\b[^>]*>/g;

/**
 * Ids written anew on every run: the file id in the truncation notice for big outputs ("Full
 * output saved to: …/tool-output/tool_<id>", tool/truncate.ts), and the fresh child session id
 * the task tool writes (`<task id="ses_…">`).
 */
export const RUN_IDS: readonly RegExp[] = [/tool-output\/tool_[A-Za-z0-9]+/, /ses_[A-Za-z0-9]+/];

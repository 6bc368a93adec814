/** opencode's tools' answer layouts (src/hosts/opencode/answers.ts), as the judge reads them through src/hosts/answers.ts. */
import { describe, expect, it } from "vitest";
import { headedHitText, headingPath, isWrapperLine, LINE_NUMBER, REPORT_WRAPPER, RUN_IDS } from "../../../src/hosts/answers.js";

describe("opencode's answer layouts", () => {
  it("tells the read, task and grep tools' wrapper lines from content", () => {
    for (const line of [
      "<path>/home/me/p/src/a.ts</path>",
      "<type>file</type>",
      "<content>",
      "</content>",
      "(Showing lines 1-66 of 9866. Use offset=67 to continue.)",
      "(End of file - total 12 lines)",
      '<task id="ses_1a2b" state="completed">',
      "<task_result>",
      "</task>",
      "Found 3 matches",
      "Found 12 files",
    ])
      expect(isWrapperLine(line), line).toBe(true);
    for (const line of ["<div>", "(see below)", "Found the bug in a.ts", "const x = 1;", "Found 3 matches in a.ts"])
      expect(isWrapperLine(line), line).toBe(false);
  });

  it("reads the read tool's line numbers, old and new, and cat -n's", () => {
    expect(LINE_NUMBER.exec("12: const x = 1;")?.[0]).toBe("12: ");
    expect(LINE_NUMBER.exec("00012| const x = 1;")?.[0]).toBe("00012| ");
    expect(LINE_NUMBER.exec("    12\tconst x = 1;")?.[0]).toBe("    12\t");
    for (const line of ["12:const x", "a12: x", "12 x", "src/a.ts:12: x"]) expect(LINE_NUMBER.exec(line), line).toBeNull();
  });

  it("reads the grep tool's file heading and the hits under it", () => {
    expect(headingPath("/home/me/p/src/a.ts:")).toBe("/home/me/p/src/a.ts");
    expect(headingPath("Summary:")).toBeUndefined();
    expect(headingPath("/home/me/p/src/a.ts:12:")).toBeUndefined();
    expect(headedHitText("Line 12: export function f() {")).toBe(" export function f() {");
    expect(headedHitText("Line of sight: clear")).toBeUndefined();
    expect(headedHitText("line 12: f()")).toBeUndefined();
  });

  it("leaves a report's task tags out and names the ids a run writes anew", () => {
    expect('<task id="ses_9f" state="completed">\n<task_result>\nall 3 pass\n</task_result>\n</task>'.replace(REPORT_WRAPPER, "")).toBe(
      "\n\nall 3 pass\n\n",
    );
    const ids = "Full output saved to: /home/me/.local/share/opencode/tool-output/tool_9c2fQ1 in ses_4b7XkA";
    expect(RUN_IDS.reduce((text, id) => text.replace(id, "~"), ids)).toBe("Full output saved to: /home/me/.local/share/opencode/~ in ~");
  });
});

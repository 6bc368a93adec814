/**
 * What an action brought (src/judge/information.ts): new information, a new effect, a wait,
 * or nothing, judged by answers and effects rather than by how a call was spelled.
 */
import { describe, expect, it } from "vitest";
import { commandRole } from "../../src/shell/role.js";
import fc from "fast-check";
import { factsOf, InformationState, Seen, type Brought } from "../../src/judge/information.js";
import { contentLines } from "../../src/hosts/answers.js";
import { FILE, plain, readOutput } from "../support/answers.js";
import { callKind, type CallKind } from "../../src/judge/tool-kinds.js";
import type { ToolCall } from "../../src/model/entry.js";
import { toolCall } from "../support/calls.js";

const call = (tool: string, input: unknown, output: unknown = "ok\n", status: ToolCall["status"] = "completed"): ToolCall =>
  toolCall(tool, input, output, status);
const bash = (command: string, output: unknown = "ok\n") => call("bash", { command }, output);
const read = (filePath: string, output: string, extra: object = {}) => call("read", { filePath, ...extra }, output);

/** What each call of `calls` brought, judged in order from a fresh start. */
const judged = (calls: readonly (ToolCall | string)[], byAnswer = true): Brought[] => {
  const state = new InformationState(byAnswer);
  return calls.map(
    (item, i) =>
      state.judge(
        typeof item === "string"
          ? { call: null, text: item, position: i, messageID: `m${i}` }
          : { call: item, position: i, messageID: `m${i}` },
      ).brought,
  );
};

describe("commandRole: what a shell line does", () => {
  it.each<[string, "read" | "check" | "effect"]>([
    ["sed -n '1,120p' src/a.ts", "read"],
    ["head -n 120 src/a.ts", "read"],
    ["awk 'NR<=120' src/a.ts", "read"],
    ["cd test && head -38 a.test.ts", "read"],
    ["git show HEAD:src/a.ts | head -n 30", "read"],
    ["cat < src/a.ts", "read"],
    ["grep -rn 'x' src 2>&1", "read"],
    ["wc -l src/a.ts >/dev/null", "read"],
    ["for f in a.ts b.ts; do head -5 $f; done", "read"],
    ["bash -c 'cat src/a.ts | grep x'", "read"],
    ["bash -c 'sed -i s/a/b/ src/a.ts'", "effect"],
    ["if npm test; then echo ok > status.txt; fi", "effect"],
    ["npx eslint . --max-warnings 0", "check"],
    ["go test ./internal/notify/...", "check"],
    ["python -m pytest -q tests", "check"],
    ["uv build", "check"],
    ["golangci-lint run", "check"],
    ["flake8 src", "check"],
    ["npm run test:unit", "check"],
    ["sed -i 's/a/b/g' src/a.ts", "effect"],
    ["perl -pi -e 's/a/b/' src/a.ts", "effect"],
    ["npx eslint . --fix", "effect"],
    ["cat > notes.md <<'EOF'\nsome notes\nEOF", "effect"],
    ["echo done >> log.txt", "effect"],
    ["grep -rl x src | xargs sed -i 's/x/y/'", "effect"],
    ["kubectl -n default set image deploy/web web=img:2", "effect"],
    ["curl -s -X POST https://api.example.com/v1/deploy", "effect"],
    ["npm install left-pad", "effect"],
    ["./scripts/migrate.sh", "effect"],
  ])("%s: %s", (command, role) => {
    expect(commandRole(command)).toBe(role);
  });
});

describe("callKind: tools that read are questions, any other is an effect", () => {
  it.each<[ToolCall, CallKind]>([
    [read("a.ts", "x"), "question"],
    [call("grep", { pattern: "x" }), "question"],
    [call("docs_search", { query: "x" }), "asking"],
    [call("github_get_issue", { number: 1 }), "question"],
    [call("task", { subagent_type: "explore", prompt: "find x" }), "asking"],
    [call("task", { subagent_type: "general", prompt: "fix x" }), "effect"],
    [call("write", { filePath: "a", content: "x" }), "change"],
    [call("github_create_issue", { title: "x" }), "effect"],
    [bash("head -5 a.ts"), "question"],
    [bash("rm -rf build"), "effect"],
  ])("%j: %s", (c, kind) => {
    expect(callKind(c)).toBe(kind);
  });
});

describe("factsOf: the names and numbers an answer states", () => {
  it("two wordings of one report state the same facts", () => {
    const a = "There are 9 callers of format_money. `parse_rule` calls it (src/app/order.py:32).";
    const b = "format_money is still called in 9 places: in src/app/order.py at line 32 (inside parse_rule).";
    expect([...factsOf(a)].sort()).toEqual([...factsOf(b)].sort());
  });

  it("a number stated twice is two facts, list markers and abbreviations none", () => {
    expect([...factsOf("3 of 3 passed")].sort()).toEqual(["#3", "#3#2"]);
    expect([...factsOf("1) the merge, i.e. the sort")]).toEqual([]);
    expect([...factsOf("...264 problems...")]).toEqual(["#264"]);
  });
});

describe("InformationState: what each action brought", () => {
  it("the same lines read by four spellings bring information once", () => {
    const calls = [
      read("/p/src/a.ts", readOutput(1, 12)),
      bash("sed -n '1,12p' src/a.ts", plain(1, 12)),
      bash("head -n 12 src/a.ts", plain(1, 12)),
      read("/p/src/a.ts", readOutput(1, 12), { offset: 1, limit: 12 }),
    ];
    expect(judged(calls)).toEqual(["information", "nothing", "nothing", "nothing"]);
  });

  it("a shifted window inside lines already read brings nothing; reading further does", () => {
    const calls = [
      read("/p/src/a.ts", readOutput(1, 6), { offset: 1, limit: 6 }),
      read("/p/src/a.ts", readOutput(2, 5), { offset: 2, limit: 4 }),
      read("/p/src/a.ts", readOutput(5, 9), { offset: 5, limit: 5 }),
    ];
    expect(judged(calls)).toEqual(["information", "nothing", "information"]);
  });

  it("an edit starts afresh: the same lines read after it are information again", () => {
    const calls = [
      read("/p/src/a.ts", readOutput(1, 12)),
      call("edit", { filePath: "/p/src/a.ts", oldString: "a", newString: "b" }, "Edit applied successfully."),
      bash("cat src/a.ts", plain(1, 12)),
    ];
    expect(judged(calls)).toEqual(["information", "effect", "information"]);
  });

  it("the same question asked again brings nothing unless its answer moves in substance", () => {
    const check = (output: string) => bash("npm test", output);
    expect(
      judged([
        check("FAIL a.test.ts (31 ms)\n2 failed"),
        read("b.ts", "x = 1\n".repeat(40)),
        check("FAIL a.test.ts (44 ms)\n2 failed"),
        check("FAIL a.test.ts\n1 failed"),
      ]),
    ).toEqual(["information", "information", "nothing", "information"]);
  });

  it("a paraphrased report to the same delegated prompt brings nothing; a new count does", () => {
    const task = (description: string, report: string) =>
      call("task", { description, prompt: "Find the callers of legacyAuth.", subagent_type: "explore" }, report);
    expect(
      judged([
        task(
          "find callers",
          '<task id="ses_1">\n7 call sites: src/api/orders.ts:4 (createOrder), src/api/refunds.ts:19 (issueRefund)\n</task>',
        ),
        task(
          "locate usages",
          '<task id="ses_2">\nIn issueRefund (refunds.ts line 19) and createOrder (orders.ts line 4): 7 call sites.\n</task>',
        ),
        task(
          "list sites",
          '<task id="ses_3">\n6 call sites: src/api/orders.ts:4 (createOrder), src/api/refunds.ts:19 (issueRefund)\n</task>',
        ),
      ]),
    ).toEqual(["information", "nothing", "information"]);
  });

  it("the same content written under a new name, or the same edit re-sent, brings nothing", () => {
    const notes = "# Analysis\n\n- `npm test` fails: expected 3, got 103.\n- fetchSession in src/sessions/shard.ts, line 45.\n";
    const write = (filePath: string) => call("write", { filePath, content: notes }, "Wrote file successfully.");
    expect(judged([write("notes/a-0901.md"), write("notes/a-0932.md")])).toEqual(["effect", "nothing"]);
    const heredoc = (name: string) => bash(`mkdir -p notes && cat > notes/${name}.md <<'EOF'\n${notes}EOF`, "");
    expect(judged([heredoc("a-1"), heredoc("a-2")])).toEqual(["effect", "nothing"]);
    const failedEdit = call("edit", { filePath: "a.ts", oldString: "x", newString: "y" }, "Could not find oldString in the file.", "error");
    expect(judged([failedEdit, failedEdit])).toEqual(["information", "nothing"]);
  });

  it("short content written to two files is two effects (an empty __init__.py each)", () => {
    const init = (dir: string) => call("write", { filePath: `${dir}/__init__.py`, content: "" }, "Wrote file successfully.");
    expect(judged([init("a"), init("b")])).toEqual(["effect", "effect"]);
  });

  it("a short answer that names nothing is information for a new question", () => {
    expect(
      judged([
        call("websearch", { query: "flag one" }, "No results found."),
        call("websearch", { query: "flag two" }, "No results found."),
      ]),
    ).toEqual(["information", "information"]);
  });

  it("a deliberate wait always brings something; text brings something once", () => {
    const poll = bash("sleep 30 && gh run view 42", "in_progress\n");
    expect(judged([poll, poll, "Still waiting.", "Still waiting."])).toEqual(["wait", "wait", "text", "nothing"]);
  });

  it("with matchOutput off, a call is new exactly when its input is", () => {
    expect(judged([bash("npm test", "1 failed"), bash("npm test", "0 failed"), bash("cat a.ts", "x")], false)).toEqual([
      "information",
      "nothing",
      "information",
    ]);
  });

  it("counts a check's runs with the same answer, afresh after an effect", () => {
    const state = new InformationState(true);
    const at = (c: ToolCall, i: number) => state.judge({ call: c, position: i, messageID: `m${i}` });
    const lint = bash("npx eslint .", "a.ts\n  3:1 error no-unused-vars\n1 problem");
    expect(at(lint, 0).run?.count).toBe(1);
    expect(at(read("b.ts", "y = 2\n".repeat(40)), 1).run).toBeUndefined();
    expect(at(lint, 2).run).toEqual({ count: 2, firstPosition: 0, messageIDs: ["m0", "m2"] });
    at(call("edit", { filePath: "a.ts", oldString: "x", newString: "y" }, "Edit applied successfully."), 3);
    expect(at(lint, 4).run).toEqual({ count: 1, firstPosition: 4, messageIDs: ["m4"] });
  });
});

describe("InformationState: lines counted as seen in the order shown", () => {
  const x = "export const alpha = computeTheFirstValue(input, options); // the line as it stands now";
  const y = "export const alpha = computeTheOtherValue(input, options); // the line as it stood before";

  it("an answer whose two lines bear one number: the later is checked after the earlier replaced that number's text", () => {
    // Line 5 was shown as y (numbered) and x was shown without a number; a read showing
    // line 5 as x and then as y shows y anew: x took line 5's place first.
    expect(
      judged([read("/p/src/a.ts", `5: ${y}`), bash("cat /p/src/a.ts", `${x}\n`), read("/p/src/a.ts", `5: ${x}\n5: ${y}`, { offset: 5 })]),
    ).toEqual(["information", "information", "information"]);
  });

  it("the same read with its lines in the other order brings nothing: each was seen as it stands", () => {
    expect(
      judged([read("/p/src/a.ts", `5: ${y}`), bash("cat /p/src/a.ts", `${x}\n`), read("/p/src/a.ts", `5: ${y}\n5: ${x}`, { offset: 5 })]),
    ).toEqual(["information", "information", "nothing"]);
  });

  it("a line without a number counts as seen for the numbered lines with its text after it in the same answer", () => {
    // Line 3 was read as x; a read showing x without a number and then as line 5 shows
    // nothing new: x, once counted without a number, is seen at every number.
    expect(judged([read("/p/src/a.ts", `3: ${x}`), read("/p/src/a.ts", `${x}\n5: ${x}`, { offset: 5 })])).toEqual([
      "information",
      "nothing",
    ]);
  });

  it("a line number shown with another text since counts as that text only", () => {
    // Line 5 read as y, then as x: reading it as y again shows y anew. (The search between
    // them names the start of y's text, so line 5 as y is already entered when x is read.)
    expect(
      judged([
        read("/p/src/a.ts", `5: ${y}`),
        bash("grep -rn alpha tests", "tests/z.ts:1:export const alpha\n"),
        read("/p/src/a.ts", `5: ${x}`, { offset: 5 }),
        read("/p/src/a.ts", `5: ${y}`, { offset: 4 }),
      ]),
    ).toEqual(["information", "information", "information", "information"]);
  });

  it("answers kept past their bound are entered, and count as seen as before", () => {
    // Four searches of 40,000 characters each: more than Seen keeps unentered.
    const big = (name: string) =>
      Array.from({ length: 800 }, (_, i) => `src/${name}.ts:${i + 1}:const ${name}${i} = compute(${i}); // padded line`).join("\n");
    const searches = ["a", "b", "c", "d"].map((name) => bash(`grep -rn ${name} src`, big(name)));
    expect(
      judged([
        ...searches,
        bash("rg -n c src/c.ts", "src/c.ts:7:const c6 = compute(6); // padded line\n"),
        bash("rg -n e src/e.ts", "src/e.ts:7:const e6 = compute(6);\n"),
      ]),
    ).toEqual(["information", "information", "information", "information", "nothing", "information"]);
  });

  it("a question asked after others sees every earlier answer's lines, whichever were checked", () => {
    // The grep for beta asked again shows a new hit: its lines are not checked (a repeated
    // question is judged by its facts, here new ones), yet they count as seen for the search after it.
    expect(
      judged([
        bash("grep -rn beta src", `src/b.ts:9:${y}\n`),
        bash("grep -rn beta src", `src/b.ts:9:${y}\nsrc/b.ts:12:${x}\n`),
        bash("rg -n alpha src/b.ts", `src/b.ts:12:${x}\n`),
      ]),
    ).toEqual(["information", "information", "nothing"]);
  });
});

/**
 * The seen lines as the module's comment defines them, every answer entered as it is shown:
 * the oracle for {@link Seen}, which keeps answers and enters them only when needed.
 */
class EveryAnswerEntered {
  private readonly files = new Map<string, { numbered: Map<number, string>; unnumbered: Set<string>; texts: Set<string> }>();
  private readonly anonymous = new Set<string>();
  private readonly anywhere = new Set<string>();

  add(file: string | undefined, output: string, numbered: boolean): boolean {
    let unseen = false;
    let shown = file === undefined ? undefined : this.files.get(file);
    if (file !== undefined && !shown) this.files.set(file, (shown = { numbered: new Map(), unnumbered: new Set(), texts: new Set() }));
    for (const { text, n } of numberedLines(output, numbered)) {
      let seen: boolean;
      if (shown === undefined) {
        seen = this.anywhere.has(text);
        this.anonymous.add(text);
      } else if (n !== -1) {
        seen = shown.numbered.get(n) === text || shown.unnumbered.has(text) || this.anonymous.has(text);
        shown.numbered.set(n, text);
        shown.texts.add(text);
      } else {
        seen = shown.texts.has(text) || this.anonymous.has(text);
        shown.unnumbered.add(text);
        shown.texts.add(text);
      }
      this.anywhere.add(text);
      if (!seen) unseen = true;
    }
    return unseen;
  }
}

/** The content lines of an answer with the read tool's line numbers (−1 without), as Seen reads them. */
function numberedLines(output: string, numbered: boolean): { text: string; n: number }[] {
  // contentLines reads no numbers: a numbered answer's lines are "<n>: <text>" (or a text that begins as one), and a line number is all digits.
  return contentLines(output).map((text, i) => {
    const raw = output.split("\n").filter((line) => line.trim() !== "")[i]!;
    const match = numbered ? /^\s*(\d+)(?:: |\| |\t)/.exec(raw) : null;
    return { text, n: match ? Number(match[1]) : -1 };
  });
}

describe("Seen: answers kept until needed read as every answer entered when shown", () => {
  // Few files, texts and numbers, so that lines meet, repeat and replace each other often.
  const texts = [
    "alpha()",
    "beta = 1",
    "src/a.ts:3:alpha()",
    "Line 3: beta = 1",
    "export const alpha",
    "export const alpha = 1",
    "alpha(),",
    "\t12| beta = 1 ",
    "",
  ];
  const answer = fc.record({
    file: fc.constantFrom(undefined, "src/a.ts", "src/b.ts"),
    numbered: fc.boolean(),
    lines: fc.array(fc.record({ n: fc.integer({ min: 1, max: 2 }), bare: fc.boolean(), text: fc.constantFrom(...texts) }), {
      maxLength: 5,
    }),
    checked: fc.boolean(),
  });

  it("a kept answer about the same file is entered before a check, though it holds none of its lines", () => {
    const seen = new Seen();
    seen.show("src/a.ts", "1: alpha()\n2: beta = 1", true, false);
    // A line the kept read may hold: that read is entered, line 1 is alpha().
    expect(seen.show("src/b.ts", "beta = 1", false, true)).toBe(true);
    seen.show("src/a.ts", "1: export const alpha", true, false);
    // Line 1 is no longer alpha(), though no kept answer holds that text.
    expect(seen.show("src/a.ts", "1: alpha()", true, true)).toBe(true);
  });

  it("tells the same of every checked answer", () => {
    fc.assert(
      fc.property(fc.array(answer, { maxLength: 12 }), (answers) => {
        const seen = new Seen();
        const oracle = new EveryAnswerEntered();
        for (const { file, numbered, lines, checked } of answers) {
          // A numbered answer may hold lines without a number (`bare`).
          const output = lines.map(({ n, bare, text }) => (numbered && !bare ? `${n}: ${text}` : text)).join("\n");
          // Without text a numbered line is not a content line: such answers are left out.
          if (numbered && lines.some(({ text }) => text === "")) continue;
          const expected = oracle.add(file, output, numbered);
          const unseen = seen.show(file, output, numbered, checked);
          if (checked) expect(unseen).toBe(expected);
        }
      }),
      { numRuns: 5000 },
    );
  });
});

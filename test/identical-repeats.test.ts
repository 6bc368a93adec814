/**
 * Identical repeats always count: after any healthy session of the fixtures, k compaction
 * cycles that each redo the same completed calls (not waits) with the same results are
 * denied by the threshold, whatever the calls' kinds: reads, searches, checks, failing
 * commands, commands that change things, writes, edits that undo each other, MCP tools,
 * subagents.
 */
import { readdirSync, readFileSync, existsSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replaySession } from "../src/guard/replay.js";
import { sessionInputs } from "../src/sources/sources.js";
import { exportedSession } from "../src/hosts/opencode/session.js";
import { DEFAULT_SETTINGS } from "../src/config/settings.js";
import { toolCall } from "./support/calls.js";
import { SessionBuilder, type Message, type ToolSpec } from "./support/session.js";

interface Expected {
  readonly firstDeny: number | null | "any";
  readonly accept?: readonly (number | null)[];
  readonly flags?: readonly string[];
}

/** A session export of the fixtures, by its file. */
interface Healthy {
  readonly name: string;
  readonly info: Record<string, unknown>;
  readonly messages: Message[];
}

/** The replay's rows of an export, as the replay command reads it. */
const rowsOf = (info: Record<string, unknown>, messages: Message[]) => {
  const session = exportedSession({ info, messages } as never);
  return replaySession(session, sessionInputs(session, { settings: DEFAULT_SETTINGS }), { toolLoop: false }).rows;
};

/** Every healthy session of fixtures/ (no denial is right, no model limits needed), by its file. */
function healthySessions(): Healthy[] {
  const root = new URL("../fixtures/", import.meta.url);
  const dirs = ["judgement", "judgement2", "held/sessions", "held/bugs2", "held/real-adv", "held/bugs3"];
  const found: Healthy[] = [];
  for (const dir of dirs) {
    const folder = new URL(`${dir}/`, root);
    if (!existsSync(new URL("expect.json", folder))) continue;
    const expected = JSON.parse(readFileSync(new URL("expect.json", folder), "utf8")) as Record<string, Expected>;
    for (const file of readdirSync(folder)) {
      const name = file.replace(/\.json$/, "");
      const want = expected[name];
      if (want === undefined || want.firstDeny !== null || (want.accept ?? []).some((a) => a !== null) || (want.flags ?? []).length > 0)
        continue;
      const { info, messages } = JSON.parse(readFileSync(new URL(file, folder), "utf8")) as Omit<Healthy, "name">;
      found.push({ name: `${dir}/${name}`, info, messages });
    }
  }
  return found;
}

const HEALTHY = healthySessions();

const word = fc.stringMatching(/^[a-z][a-z0-9]{1,8}$/);
const path = fc
  .tuple(fc.constantFrom("src", "lib", "test", "docs"), word, fc.constantFrom("ts", "py", "md", "json"))
  .map(([d, n, e]) => `/home/dev/app/${d}/${n}.${e}`);
const lines = fc.array(fc.stringMatching(/^[A-Za-z0-9 _().;:='"-]{0,40}$/), { minLength: 1, maxLength: 6 }).map((l) => l.join("\n"));

/** One kind of completed call, and for some the calls a cycle needs to redo it physically (an edit and its undo). */
const call: fc.Arbitrary<ToolSpec[]> = fc.oneof(
  fc.tuple(path, lines).map(([filePath, text]) => [
    {
      tool: "read",
      input: { filePath },
      output: `<path>${filePath}</path>\n<content>\n${text
        .split("\n")
        .map((l, i) => `${i + 1}: ${l}`)
        .join("\n")}\n</content>`,
    },
  ]),
  fc.tuple(word, lines).map(([pattern, text]) => [{ tool: "grep", input: { pattern }, output: `Found 1 matches\n${text}` }]),
  fc
    .tuple(
      fc.constantFrom(
        "npm test",
        "cargo build",
        "git status --short",
        "ls -la",
        "make",
        "python scripts/update.py",
        "./deploy.sh",
        "gh pr view 12",
      ),
      word,
      lines,
    )
    .map(([command, arg, output]) => [{ tool: "bash", input: { command: `${command} ${arg}` }, output }]),
  fc
    .tuple(word, lines)
    .map(([name, output]) => [{ tool: "bash", input: { command: `python ${name}.py` }, status: "error" as const, output }]),
  fc.tuple(path, lines).map(([filePath, content]) => [{ tool: "write", input: { filePath, content }, output: "Wrote file successfully." }]),
  fc
    .tuple(path, word, word)
    .filter(([, a, b]) => a !== b)
    .map(([filePath, a, b]) => [
      { tool: "edit", input: { filePath, oldString: a, newString: b }, output: "Edit applied successfully." },
      { tool: "edit", input: { filePath, oldString: b, newString: a }, output: "Edit applied successfully." },
    ]),
  fc
    .tuple(fc.constantFrom("github_create_issue", "linear_update_issue", "tool_search", "browser_snapshot"), word, lines)
    .map(([tool, q, output]) => [{ tool, input: { query: q }, output }]),
  fc.tuple(fc.constantFrom("general", "explore"), word, lines).map(([agent, task, report]) => [
    {
      tool: "task",
      input: { subagent_type: agent, prompt: `check ${task}`, description: task },
      output: `<task id="ses_c">\n<task_result>\n${report}\n</task_result>\n</task>`,
    },
  ]),
);

/** The files a group of calls writes or edits. */
const changes = (specs: readonly ToolSpec[]) =>
  new Set(
    specs.filter((spec) => spec.tool === "edit" || spec.tool === "write").map((spec) => (spec.input as { filePath: string }).filePath),
  );

/**
 * A cycle: one to four steps of calls, none a deliberate wait. Each file is changed by one
 * step at most: redoing a change of a file after another change of it would not succeed the
 * same way, so such a cycle could not repeat.
 */
const cycle = fc
  .array(call, { minLength: 1, maxLength: 4 })
  .map((steps) => steps.map((specs) => specs.filter((spec) => toolCall(spec.tool, spec.input, spec.output).action.kind !== "wait")))
  .filter((steps) => steps.every((specs) => specs.length > 0))
  .filter((steps) => {
    const files = steps.flatMap((specs) => [...changes(specs)]);
    return new Set(files).size === files.length;
  });

/** Does the session end with a finished answer (then only a message of the user's can start more work)? */
const endsFinished = (messages: readonly Message[]): boolean => {
  const last = messages.at(-1)?.info as { role?: string; finish?: string } | undefined;
  return last?.role === "assistant" && last.finish === "stop";
};

/** `healthy` followed (after a message of the user's, when `afterUser`) by `k` compaction cycles, each running `steps`. */
function appended(healthy: readonly Message[], steps: readonly ToolSpec[][], k: number, afterUser: boolean): Message[] {
  const builder = new SessionBuilder("ses_appended", "zzzz");
  if (afterUser || endsFinished(healthy)) builder.user("carry on with the task");
  for (let i = 0; i < k; i++) {
    // The context grows with each step and each compaction cuts it by half or more: no-progress has nothing to see.
    steps.forEach((specs, j) => builder.step(specs, 20_000 + j * 15_000));
    builder.compact();
  }
  const sessionID = (healthy[0]?.info as { sessionID?: string } | undefined)?.sessionID ?? "ses_appended";
  const tail = builder.messages.map((m) => ({ ...m, info: { ...m.info, sessionID } }));
  return [...healthy, ...tail];
}

describe("identical repeats always count", () => {
  it("holds healthy sessions to append to", () => {
    expect(HEALTHY.length).toBeGreaterThan(30);
  });

  it("k cycles of the same completed calls with the same results after any healthy session: denied by the threshold", () => {
    const threshold = DEFAULT_SETTINGS.threshold;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: HEALTHY.length - 1 }),
        cycle,
        fc.integer({ min: threshold, max: threshold + 2 }),
        fc.boolean(),
        (index, steps, k, afterUser) => {
          const healthy = HEALTHY[index]!;
          const messages = appended(healthy.messages, steps, k, afterUser);
          const before = rowsOf(healthy.info, healthy.messages).length;
          const rows = rowsOf(healthy.info, messages);
          const deny = rows.find((row) => row.decision === "deny");
          // The healthy part is never denied; the first denial comes by the threshold's appended compaction.
          expect(deny, `${healthy.name}: no denial`).toBeDefined();
          expect(deny!.compaction.index - before, `${healthy.name}: denied at ${deny!.rule}`).toBeGreaterThan(0);
          expect(deny!.compaction.index - before, `${healthy.name}: denied at ${deny!.rule}`).toBeLessThanOrEqual(threshold);
        },
      ),
      // A fixed seed keeps the suite reproducible; FC_SEED and FC_RUNS sweep others (30,000 runs pass).
      { numRuns: Number(process.env.FC_RUNS ?? 300), seed: Number(process.env.FC_SEED ?? 20261207) },
    );
  });
});

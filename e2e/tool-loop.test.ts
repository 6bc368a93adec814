/**
 * The tool-loop check in the real opencode 1.18.33: the same `echo` every step with the
 * context far from full (no compaction ever comes). By default the notice reaches the model
 * (the model server sees it in the request after the third identical call); with `stop` the
 * fifth identical call is refused, the session is aborted, the note is left and opencode exits
 * (no deadlock, no crash); three different calls and a final answer are untouched; the
 * healthy scenario never gets a notice.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { runScenario, type ScenarioRun } from "./harness.js";
import { HEALTHY_FINAL_TEXT, TOOL_LOOP_VARIED_FINAL_TEXT } from "./scenarios.js";

/** What the guard appends (model/entry.ts TOOL_LOOP_NOTICE_MARK, without its leading newlines). */
const MARK = "[compaction-guard: tool loop]";

interface Seen {
  kind: string;
  /** The tool results in the request, oldest first. */
  toolResults: string[];
}

/** A run whose every request's tool results are kept. */
async function observed(options: Parameters<typeof runScenario>[0]): Promise<{ run: ScenarioRun; seen: Seen[] }> {
  const seen: Seen[] = [];
  const run = await runScenario({
    ...options,
    onRequest: (kind, body) => {
      const messages = (body as { messages?: Array<{ role?: string; content?: unknown }> }).messages ?? [];
      const toolResults = messages
        .filter((m) => m.role === "tool")
        .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
      seen.push({ kind, toolResults });
    },
  });
  return { run, seen };
}

const chats = (seen: Seen[]) => seen.filter((s) => s.kind === "chat" || s.kind === "continue");

let warn: { run: ScenarioRun; seen: Seen[] };
let stop: { run: ScenarioRun; seen: Seen[] };
let varied: { run: ScenarioRun; seen: Seen[] };
let healthy: { run: ScenarioRun; seen: Seen[] };
/** The other healthy scenarios (firstDeny null in fixtures/expect.json) that make tool calls. */
const OTHER_HEALTHY = ["unchanged-poll-one-cycle", "poll-with-eta", "tdd-same-failure-between-edits", "double-compaction"] as const;
const others = new Map<string, { run: ScenarioRun; seen: Seen[] }>();

beforeAll(async () => {
  [warn, stop] = await Promise.all([
    observed({ scenario: "tool-loop-echo", guard: true, maxRequests: 6 }),
    observed({ scenario: "tool-loop-echo", guard: true, maxRequests: 12, pluginOptions: { toolLoop: "stop" } }),
  ]);
  [varied, healthy] = await Promise.all([
    observed({ scenario: "tool-loop-varied", guard: true }),
    observed({ scenario: "healthy", guard: true }),
  ]);
  for (let i = 0; i < OTHER_HEALTHY.length; i += 2) {
    const pair = OTHER_HEALTHY.slice(i, i + 2);
    const runs = await Promise.all(pair.map((scenario) => observed({ scenario, guard: true, replay: false })));
    pair.forEach((scenario, k) => others.set(scenario, runs[k]!));
  }
}, 600_000);

describe("warn (the default): the same echo every step, no compaction", () => {
  it("the model server sees the notice after the third identical call, the output kept before it", () => {
    const requests = chats(warn.seen);
    // Request n carries the results of the n − 1 calls before it.
    const withNotice = requests.findIndex((r) => r.toolResults.some((t) => t.includes(MARK)));
    expect(withNotice).toBe(3);
    const results = requests[3]!.toolResults;
    expect(results).toHaveLength(3);
    expect(results.slice(0, 2).every((t) => !t.includes(MARK))).toBe(true);
    expect(results[2]!.startsWith("hi\n")).toBe(true);
    expect(results[2]).toContain(`${MARK} This exact call has now returned the same result 3 times in a row`);
    expect(results[2]).toContain("stop and tell the user");
    expect(warn.run.figures!.compactionCycles).toBe(0);
  });

  it("one warn line for the chain, naming the session; replay names the same calls", () => {
    const lines = warn.run.guardLines.filter((l) => l.level === "WARN" && l.message.includes("tool loop in session"));
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toContain(`tool loop in session ${warn.run.sessionID}`);
    expect(lines[0]!.message).toContain("the same bash call (echo hi) returned the same result 3 times");
    const toolCalls = warn.run.figures!.toolCalls.length;
    expect(toolCalls).toBeGreaterThanOrEqual(4);
  });
});

describe("stop: the chain goes on", () => {
  it("the 5th identical call is refused, the session stopped with the note left, and opencode exits", () => {
    expect(stop.run.timedOut).toBe(false);
    expect(stop.run.signal).toBeNull();
    // opencode's own answer to an abort: exit 0 when it lands between two steps, exit 1 with
    // one "Aborted" error event when it lands during the next model request (both seen).
    expect([0, 1]).toContain(stop.run.exitCode);
    expect(stop.run.errorEvents).toEqual(stop.run.exitCode === 0 ? [] : ["Aborted"]);
    const requests = chats(stop.seen);
    // Four runs and the refusal; then the model may ask again while the abort is on its way (it
    // lands between steps, later on a loaded machine) and each repeat is refused too. Stopped,
    // not run to the model server's cap of 12.
    expect(requests.length).toBeGreaterThanOrEqual(5);
    expect(requests.length).toBeLessThan(12);
    const messages = stop.run.export!.messages as Array<{
      info: { role: string };
      parts: Array<{ type: string; tool?: string; state?: { status: string; error?: string }; text?: string; ignored?: boolean }>;
    }>;
    const tools = messages.flatMap((m) => m.parts.filter((p) => p.type === "tool"));
    expect(tools.slice(0, 4).map((p) => p.state!.status)).toEqual(["completed", "completed", "completed", "completed"]);
    expect(tools[4]!.state!.status).toBe("error");
    expect(tools[4]!.state!.error).toContain("compaction-guard refused this bash call");
    // A repeat asked for before the abort landed is refused too, or cut off by the abort itself.
    for (const late of tools.slice(5)) {
      expect(late.state!.status).toBe("error");
      expect(late.state!.error).toMatch(/compaction-guard refused this bash call|aborted/i);
    }
    // Nothing identical ran after the refusal.
    expect(tools.filter((p) => p.state!.status === "completed")).toHaveLength(4);
    const note = messages.flatMap((m) => m.parts).find((p) => p.type === "text" && p.ignored === true);
    expect(note?.text).toMatch(/^Tool loop stopped by compaction-guard: the same bash call \(echo hi\) returned the same result 4 times/);
    const stopped = stop.run.guardLines.filter((l) => l.level === "WARN" && l.message.includes("stopped a tool loop"));
    expect(stopped).toHaveLength(1);
    expect(stop.run.guardLines.filter((l) => l.level === "WARN" && l.message.includes("could not"))).toEqual([]);
  });
});

describe("healthy work is untouched", () => {
  it("three different calls and a final answer: no notice, the final answer reached", () => {
    expect(varied.run.exitCode).toBe(0);
    expect(varied.run.stdout).toContain(TOOL_LOOP_VARIED_FINAL_TEXT);
    expect(varied.run.figures!.toolCalls).toHaveLength(3);
    expect(varied.seen.flatMap((s) => s.toolResults).filter((t) => t.includes(MARK))).toEqual([]);
    expect(varied.run.guardLines.filter((l) => l.level === "WARN")).toEqual([]);
  });

  it("the healthy scenario (compactions, eleven steps) never gets a notice", () => {
    expect(healthy.run.stdout).toContain(HEALTHY_FINAL_TEXT);
    expect(healthy.seen.flatMap((s) => s.toolResults).filter((t) => t.includes(MARK))).toEqual([]);
    expect(healthy.run.guardLines.filter((l) => l.message.includes("tool loop"))).toEqual([]);
  });

  it.each(OTHER_HEALTHY)("%s: tool calls made, no notice, no tool-loop line", (scenario) => {
    const { run, seen } = others.get(scenario)!;
    expect(run.figures!.toolCalls.length).toBeGreaterThan(0);
    expect(seen.flatMap((s) => s.toolResults).filter((t) => t.includes(MARK))).toEqual([]);
    expect(run.guardLines.filter((l) => l.message.includes("tool loop"))).toEqual([]);
  });
});

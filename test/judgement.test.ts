/**
 * Judgement: every kind of compaction loop people report is stopped, and healthy work is
 * left alone. The handed cases in fixtures/judgement/ (with their right answers in
 * expect.json), then cases of our own for each kind.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { replayMessages } from "../src/core.js";
import { type ReplayRow } from "../src/guard/replay.js";
import { DEFAULT_SETTINGS, type GuardSettings } from "../src/config/settings.js";
import type { DecideOptions } from "../src/core.js";
import { bash, SessionBuilder, type ToolSpec } from "./support/session.js";

const DIR = new URL("../fixtures/judgement/", import.meta.url);
const expected = JSON.parse(readFileSync(new URL("expect.json", DIR), "utf8")) as Record<
  string,
  { firstDeny: number | null; accept?: number[] }
>;
const load = (name: string) => JSON.parse(readFileSync(new URL(`${name}.json`, DIR), "utf8")) as { messages: unknown[] };

const settings = (over: Partial<GuardSettings> = {}): GuardSettings => ({ ...DEFAULT_SETTINGS, ...over });
const firstDeny = (rows: readonly ReplayRow[]) => rows.find((r) => r.decision === "deny") ?? null;
const replay = (session: SessionBuilder, over: Partial<GuardSettings> = {}, options: DecideOptions = {}) =>
  replayMessages(session.messages, settings(over), options);
/** [index, rule] of the first deny, or null. */
const stop = (rows: readonly ReplayRow[]) => {
  const row = firstDeny(rows);
  return row ? [row.compaction.index, row.rule] : null;
};
const read = (filePath: string, output = `<file>\n00001| contents of ${filePath}\n</file>`): ToolSpec => ({
  tool: "read",
  input: { filePath },
  output,
});

describe("the handed cases (fixtures/judgement, answers in expect.json)", () => {
  /** The rule each first denial must name, so the answer is right for the right reason. */
  const RULE: Record<string, string | null> = {
    "four-read-cycle": "no-new-work",
    "back-to-back-compactions": "back-to-back-compactions",
    "pid-in-output": "repeated-tool-call",
    "truncated-big-output": "repeated-tool-call",
    "errored-repeat": "repeated-tool-call",
    "overflow-resend": "no-new-work",
    "same-text-every-step": "no-new-work",
    "finished-then-restarted": "turn-finished",
    "tdd-same-failure-between-edits": null,
    "poll-with-eta": null,
    "unchanged-poll-one-cycle": null,
    "reasoning-heavy-first-step": null,
  };

  it("holds all twelve", () => {
    expect(Object.keys(expected).sort()).toEqual(Object.keys(RULE).sort());
  });

  it.each(Object.keys(RULE))("%s", async (name) => {
    const rows = replayMessages(load(name).messages, settings());
    const deny = firstDeny(rows);
    const want = expected[name]!;
    const got = deny?.compaction.index ?? null;
    expect(want.accept ?? [want.firstDeny]).toContain(got);
    expect(deny?.rule ?? null).toBe(RULE[name]);
    // The replay command gives the same answer.
    let out = "";
    const code = await main(
      ["replay", new URL(`${name}.json`, DIR).pathname, "--json"],
      (t) => void (out += t),
      () => {},
      {},
    );
    expect(code).toBe(0);
    expect(JSON.parse(out).firstDeny).toBe(got);
  });
});

describe("1. cycles longer than the window: deny by the third compaction whatever the cycle's length", () => {
  it.each([4, 5, 6, 10, 20])("the same %i reads after every compaction, compaction cutting the context", (length) => {
    const session = new SessionBuilder().user("review the module");
    for (let cycle = 0; cycle < 4; cycle++) {
      for (let i = 0; i < length; i++) session.step(read(`/p/f${i}.ts`), 9_000 + i * 1_000);
      session.compact();
    }
    expect(stop(replay(session))).toEqual([2, "no-new-work"]);
  });

  it("a cycle that re-reads and then does one new thing is work, not a loop", () => {
    const session = new SessionBuilder().user("review the module");
    for (let cycle = 0; cycle < 4; cycle++) {
      for (let i = 0; i < 5; i++) session.step(read(`/p/f${i}.ts`), 9_000 + i * 1_000);
      session.step(
        { tool: "edit", input: { filePath: `/p/f${cycle}.ts`, oldString: "a", newString: "b" }, output: "Edit applied successfully." },
        20_000,
      );
      session.compact();
    }
    expect(stop(replay(session))).toBeNull();
  });
});

describe("2. compaction after compaction with no step between", () => {
  it("denies at the third in a row", () => {
    const session = new SessionBuilder().user("task").step(read("/p/a.ts"), 100_000);
    for (let i = 0; i < 4; i++) session.compact();
    const rows = replay(session);
    expect(stop(rows)).toEqual([3, "back-to-back-compactions"]);
    expect(rows[2]!.evidence["back-to-back-compactions"]).toEqual({ inARow: 3, limit: 3 });
  });

  it("never denies a double fire followed by normal work (opencode#27468)", () => {
    const session = new SessionBuilder().user("task");
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 3; i++) session.step(read(`/p/r${round}-${i}.ts`), 20_000 + i * 10_000);
      session.compact().compact();
    }
    const rows = replay(session);
    expect(rows).toHaveLength(6);
    expect(stop(rows)).toBeNull();
    expect(rows.map((r) => r.evidence["back-to-back-compactions"].inARow)).toEqual([1, 2, 1, 2, 1, 2]);
  });
});

describe("3. outputs that differ only in noise; numbers that are the progress stay", () => {
  const loop = (output: (run: number) => string, command = "./start.sh") => {
    const session = new SessionBuilder().user("start it");
    let run = 0;
    for (let cycle = 0; cycle < 3; cycle++) {
      for (let i = 0; i < 2; i++) session.step(bash(command, output(run++)), 30_000 + i * 5_000);
      session.compact();
    }
    return stop(replay(session));
  };

  it.each([
    ["a job number", (n: number) => `[${100 + n}] FATAL: lock file "postmaster.pid" already exists`],
    ["a pid", (n: number) => `server exited (pid ${26_594 + n})`],
    ["a mktemp path", (n: number) => `wrote /tmp/tmp.${"Xa81kQz9Lp".slice(n % 5)}${n}/report.txt\nerror: disk full`],
    ["ANSI colours", (n: number) => (n % 2 ? "\u001b[31mFAIL\u001b[0m a.test.ts" : "FAIL a.test.ts")],
    ["a timestamp and a duration", (n: number) => `2026-11-30T09:0${n}:00Z build failed in 1.${n}s`],
    [
      "opencode's truncation notice",
      (n: number) =>
        `...output truncated...\n\nFull output saved to: /home/dev/.local/share/opencode/tool-output/tool_22ce4${n}902001F2bk\n\nerror: undefined symbol`,
    ],
  ])("denies a loop whose output differs only in %s", (_, output) => {
    expect(loop(output)).toEqual([2, "repeated-tool-call"]);
  });

  it.each([
    ["a falling ETA", (n: number) => `deploy web-1: rolling, about ${9 - n} minutes remaining`],
    ["a count of steps done", (n: number) => `${n} of 6 done`],
    ["a percentage", (n: number) => `downloading: ${10 * n}%`],
  ])("never denies a poll whose output shows %s", (_, output) => {
    expect(loop(output, "./status.sh")).toBeNull();
  });
});

describe("4. the same call failing the same way", () => {
  it.each([
    [
      "a permission rule refusing ./deploy.sh",
      bash("./deploy.sh"),
      "The user has specified a rule which prevents you from using this specific tool call.",
    ],
    [
      "an edit whose oldString is never found",
      { tool: "edit", input: { filePath: "/p/a.ts", oldString: "teh", newString: "the" } },
      "Error: oldString not found in content",
    ],
  ])("denies %s", (_, call, error) => {
    const session = new SessionBuilder().user("go");
    const failing = { ...(call as ToolSpec), status: "error" as const, output: error };
    for (let cycle = 0; cycle < 3; cycle++) session.step(failing, 30_000).step(failing, 40_000).compact();
    expect(stop(replay(session))).toEqual([2, "repeated-tool-call"]);
  });

  it("never counts errored calls interleaved with succeeding new work", () => {
    const session = new SessionBuilder().user("fix the lint errors");
    const lint = { ...bash("npm run lint"), status: "error" as const };
    for (let cycle = 0; cycle < 4; cycle++) {
      for (let i = 0; i < 3; i++) {
        session.step(lint, 20_000 + i * 10_000);
        session.step(
          {
            tool: "edit",
            input: { filePath: `/p/f${cycle}-${i}.ts`, oldString: "var", newString: "let" },
            output: "Edit applied successfully.",
          },
          25_000 + i * 10_000,
        );
      }
      session.compact();
    }
    expect(stop(replay(session))).toBeNull();
  });
});

describe("5. text-only loops", () => {
  it("denies the same text every step at compaction 2, whitespace and case aside", () => {
    const session = new SessionBuilder().user("design the schema");
    const texts = ["Still thinking about the approach.", "Still thinking about  the approach.\n", "still thinking about the approach."];
    for (let cycle = 0; cycle < 3; cycle++) {
      texts.forEach((text, i) => session.say(text, 20_000 + i * 15_000, "unknown"));
      session.compact();
    }
    expect(stop(replay(session))).toEqual([2, "no-new-work"]);
  });

  it("never denies text that moves on", () => {
    const session = new SessionBuilder().user("design the schema");
    for (let cycle = 0; cycle < 3; cycle++) {
      for (let i = 0; i < 3; i++) session.say(`Table ${cycle * 3 + i}: columns id, name.`, 20_000 + i * 15_000, "unknown");
      session.compact();
    }
    expect(stop(replay(session))).toBeNull();
  });
});

describe("6. a finished turn restarted (opencode#15533, #18941)", () => {
  it("skips the continue turn after a finished answer, quietly (severity info)", () => {
    const session = new SessionBuilder()
      .user("fix the typo")
      .step(read("/p/README.md"), 30_000)
      .say("All done: the typo is fixed.", 52_000)
      .compact();
    const [row] = replay(session);
    expect(row).toMatchObject({ decision: "deny", rule: "turn-finished", severity: "info" });
    expect(row!.evidence["turn-finished"]).toMatchObject({ finish: "stop", toolParts: 0 });
  });

  it.each([
    ["a tool call", (s: SessionBuilder) => s.step(read("/p/a.ts"), 52_000)],
    ["text cut off by the output limit", (s: SessionBuilder) => s.say("The plan is", 52_000, "length")],
    ["text that did not end the turn", (s: SessionBuilder) => s.say("Reading the next file.", 52_000, "unknown")],
  ])("allows when the step before the compaction ended with %s", (_, last) => {
    const session = last(new SessionBuilder().user("go")).compact();
    expect(replay(session)[0]!.decision).toBe("allow");
  });

  it("a loop that restarts finished work is a stopped loop (warning) once it repeats, whatever the turn did", () => {
    const session = new SessionBuilder().user("fix the typo");
    for (let cycle = 0; cycle < 2; cycle++) session.step(read("/p/README.md"), 30_000).say("All done.", 52_000).compact();
    const rows = replay(session);
    expect(rows[1]).toMatchObject({ rule: "no-new-work", severity: "warning" });
    expect(rows[1]!.fired).toEqual(["no-new-work", "turn-finished"]);
  });
});

describe("7. overflow loops with tool calls", () => {
  it("the message opencode re-sends after an overflow compaction does not reset the counts, and refused steps use no window", () => {
    const session = new SessionBuilder().user("hi").user("take a snapshot");
    const snapshot: ToolSpec = { tool: "snapshot", input: {}, output: "huge page dump" };
    session.step(snapshot, 140_000).refused().compact({ overflow: true, continueTurn: false });
    session.user("take a snapshot"); // opencode's replay of the last real message
    for (let cycle = 0; cycle < 3; cycle++) session.step(snapshot, 140_000).refused().compact({ overflow: true });
    const rows = replay(session, { window: 3 });
    expect(stop(rows)).toEqual([2, "no-new-work"]);
    // Window 3 still holds three snapshots: the refused steps take no place in it.
    expect(rows[2]!.evidence["repeated-tool-call"]).toMatchObject({ tool: "snapshot", count: 3, messagesRead: 3 });
    expect(rows[2]!.fired).toContain("repeated-tool-call");
  });

  it("a real user message after the overflow compaction still re-arms", () => {
    const session = new SessionBuilder().user("take a snapshot");
    const snapshot: ToolSpec = { tool: "snapshot", input: {}, output: "huge page dump" };
    session.step(snapshot, 140_000).refused().compact({ overflow: true });
    session.user("try a smaller page this time");
    session.step(snapshot, 140_000).refused().compact({ overflow: true });
    expect(stop(replay(session))).toBeNull();
  });
});

describe("8. a command re-run between edits", () => {
  it("never denies `npm test` with the same failure after each new file, over several compactions", () => {
    const session = new SessionBuilder().user("make the tests pass");
    let part = 0;
    for (let cycle = 0; cycle < 4; cycle++) {
      for (let i = 0; i < 3; i++) {
        session.step(
          {
            tool: "write",
            input: { filePath: `/p/src/part${part}.ts`, content: `export const p = ${part++};\n` },
            output: "Wrote file successfully.",
          },
          17_000 + i * 9_000,
        );
        session.step(bash("npm test", "FAIL test/all.test.ts\n  1 failing: expected 10 parts, got fewer\n"), 21_000 + i * 9_000);
      }
      session.compact();
    }
    expect(stop(replay(session))).toBeNull();
  });
});

describe("9. polling before any compaction, and polls that move", () => {
  it("never denies on evidence that lies wholly before the first compaction", () => {
    const session = new SessionBuilder().user("poll the job every 5 minutes for 15 minutes");
    for (let i = 0; i < 6; i++) session.step(bash("sleep 300 && curl -s localhost:8080/job/42", "running"), 50_000 + i);
    expect(stop(replay(session.compact()))).toBeNull();
  });

  it("denies the same poll once it repeats after the compaction too (the ignore setting exempts it)", () => {
    const session = new SessionBuilder().user("wait for CI");
    for (let cycle = 0; cycle < 2; cycle++) {
      for (let i = 0; i < 3; i++) session.step(bash("gh pr checks 42", "build\tpending"), 30_000 + i * 10_000);
      session.compact();
    }
    expect(stop(replay(session))).toEqual([2, "repeated-tool-call"]);
    expect(stop(replay(session, { ignore: ["gh pr checks"] }))).toBeNull();
  });

  it.each(["sleep 30 && gh pr checks 42", "gh run watch 42", "gh pr checks 42 --watch", "sleep 2m; curl -s localhost:8080/job/42"])(
    "never counts a poll that waits on purpose as a repeat: %s",
    (command) => {
      const session = new SessionBuilder().user("wait for CI");
      for (let cycle = 0; cycle < 3; cycle++) {
        for (let i = 0; i < 3; i++) session.step(bash(command, "build\tpending"), 30_000 + i * 10_000);
        session.compact();
      }
      expect(stop(replay(session))).toBeNull();
    },
  );

  it("a short sleep is no wait for the world: the same start-and-check after every compaction is denied", () => {
    const session = new SessionBuilder().user("get the server up");
    for (let cycle = 0; cycle < 3; cycle++) {
      session.step(bash("npm start & sleep 2 && curl -s localhost:3000", "curl: (7) Failed to connect"), 30_000);
      session.step(read("/p/server.ts"), 40_000);
      session.compact();
    }
    expect(stop(replay(session))?.[0]).toBe(2);
  });
});

describe("10. a reasoning-heavy first step after the summary", () => {
  it("measures what the compaction left by the prompt, not the step's total", () => {
    const session = new SessionBuilder().user("implement the parser");
    const heavy = { total: 5_500, input: 3_500, output: 2_000, reasoning: 1_800, cache: { read: 0, write: 0 } };
    for (let cycle = 0; cycle < 3; cycle++) {
      session.step(read(`/p/p${cycle}a.ts`), heavy);
      for (const [i, size] of [3_650, 4_450, 5_250, 6_050].entries()) session.step(read(`/p/p${cycle}${"bcde"[i]}.ts`), size);
      session.compact();
    }
    const rows = replay(session);
    expect(stop(rows)).toBeNull();
    expect(rows[1]!.evidence["no-progress"]).toMatchObject({ triggerTokens: 6_050, afterTokens: 3_500, stalled: null });
  });
});

describe("11. compaction.reserved set by the user", () => {
  // A model with an input limit: opencode's line is input − reserved (session/overflow.ts).
  const limits = { context: 8_000, input: 6_500, output: 2_000 };
  const session = new SessionBuilder().user("go");
  for (let cycle = 0; cycle < 3; cycle++) {
    session
      .step(read(`/p/c${cycle}-a.ts`), 5_000)
      .step(read(`/p/c${cycle}-b.ts`), 5_600)
      .step(read(`/p/c${cycle}-c.ts`), 6_100);
    session.compact();
  }

  it("with reserved 500 the line is 6,000 and a compaction down to 5,000 made room", () => {
    const rows = replay(session, {}, { limits, reserved: 500 });
    expect(stop(rows)).toBeNull();
    expect(rows[1]!.evidence["no-progress"]).toMatchObject({ usableTokens: 6_000, afterTokens: 5_000, stalled: null });
  });

  it("assuming opencode's default (2,000) would put the line at 4,500 and deny", () => {
    expect(stop(replay(session, {}, { limits }))).toEqual([2, "no-progress"]);
  });
});

describe("every recorded export (fixtures/expect.json: the real opencode runs and the earlier fixtures)", () => {
  const FIXTURES = new URL("../fixtures/", import.meta.url);
  const cases = JSON.parse(readFileSync(new URL("expect.json", FIXTURES), "utf8")) as Record<
    string,
    { firstDeny: number | null; accept?: number[]; flags: string[] }
  >;

  it.each(Object.entries(cases))("%s", async (name, want) => {
    let out = "";
    const code = await main(
      ["replay", new URL(`${name}.json`, FIXTURES).pathname, "--json", ...want.flags],
      (t) => void (out += t),
      () => {},
      {},
    );
    expect(code).toBe(0);
    expect(want.accept ?? [want.firstDeny]).toContain(JSON.parse(out).firstDeny);
  });
});

describe("found by review: loops that hid behind what changes between runs", () => {
  const cycles = (n: number, step: (s: SessionBuilder, cycle: number) => void) => {
    const s = new SessionBuilder().user("fix the build");
    for (let cycle = 0; cycle < n; cycle++) {
      step(s, cycle);
      s.compact();
    }
    return s;
  };

  it("the same build, its bash `description` reworded each time", () => {
    const labels = ["Build the project", "Run the TypeScript build", "Compile again", "Build"];
    const s = cycles(4, (s, c) => {
      s.step(read("/p/tsconfig.json"), 20_000);
      s.step({ tool: "bash", input: { command: "npm run build", description: labels[c] }, output: "error TS2304\n" }, 30_000);
    });
    expect(stop(replay(s))).toEqual([2, "no-new-work"]);
  });

  it.each([
    ["Node's pid", (n: number) => `(node:${41_872 + n}) [DEP0040] DeprecationWarning: punycode\nerror`],
    ["npm's debug log name", (n: number) => `npm error A complete log is in: /home/u/.npm/_logs/2026-11-30T16_0${n}_58_367Z-debug-0.log`],
    ["a memory address", (n: number) => `TypeError at <User object at 0x7f3a9c2e1${n}d0>`],
    ["a request id", (n: number) => `500 request 9b2f4c1e-5a7d-4e3b-8c9a-1d2e3f4a5b6${n} failed`],
    ["a random local port", (n: number) => `EADDRINUSE 127.0.0.1:5432${n}`],
    ["`time`'s real", (n: number) => `FAIL\nreal\t0m3.21${n}s`],
    ["a past elapsed time in whole seconds", (n: number) => `BUILD FAILED in ${7 + n}s`],
  ])("the same failing command, its output differing only in %s", (_, output) => {
    let run = 0;
    const s = cycles(4, (s) => s.step(bash("./gradlew build", output(run++)), 20_000).step(bash("./gradlew build", output(run++)), 30_000));
    expect(stop(replay(s))).toEqual([2, "repeated-tool-call"]);
  });

  it("the same 70 reads per cycle on a big model", () => {
    const big = new SessionBuilder().user("review everything");
    for (let c = 0; c < 3; c++) {
      for (let i = 0; i < 70; i++) big.step(read(`/p/f${i}.ts`), 20_000 + i * 1_000);
      big.compact();
    }
    expect(stop(replay(big))).toEqual([2, "no-new-work"]);
  });

  it("compaction after compaction where each step between holds only reasoning", () => {
    const s = new SessionBuilder().user("task").step(read("/p/a.ts"), 100_000);
    for (let i = 0; i < 4; i++)
      s.compact().think({ total: 6_200, input: 4_200, output: 0, reasoning: 2_000, cache: { read: 0, write: 0 } });
    expect(stop(replay(s))).toEqual([3, "back-to-back-compactions"]);
  });

  it("the ignore setting matches a command after `&&`", () => {
    const s = cycles(3, (s) => {
      for (let i = 0; i < 3; i++) s.step(bash("cd web && gh pr checks 42", "pending"), 20_000 + i * 5_000);
    });
    expect(stop(replay(s))).toEqual([2, "repeated-tool-call"]);
    expect(stop(replay(s, { ignore: ["gh pr checks"] }))).toBeNull();
  });
});

describe("found by review: a reply after a denied overflow compaction", () => {
  it("is you speaking, not opencode's copy of your message: it re-arms the guard", () => {
    const snapshot: ToolSpec = { tool: "snapshot", input: {}, output: "huge page dump" };
    const s = new SessionBuilder().user("hi").user("take a snapshot");
    s.step(snapshot, 140_000).refused().compact({ overflow: true, continueTurn: false });
    s.user("take a snapshot"); // opencode's copy
    s.step(snapshot, 140_000).refused().compact({ overflow: true, continueTurn: false }); // denied here
    s.user("take a smaller one, just the header"); // you
    s.step(snapshot, 40_000).step(read("/p/header.html"), 50_000).compact();
    const rows = replay(s);
    expect(rows.map((r) => r.decision)).toEqual(["allow", "deny", "allow"]);
  });
});

describe("found by review: a subagent's final answer", () => {
  it("keeps its continue turn: without it, the caller would get the summary instead of the report", () => {
    const s = new SessionBuilder("ses_child")
      .user("map the codebase")
      .step(read("/p/a.ts"), 30_000)
      .say("Report: the codebase has 3 modules.", 52_000)
      .compact();
    expect(replay(s)[0]).toMatchObject({ decision: "deny", rule: "turn-finished" });
    const [row] = replayMessages(s.messages, DEFAULT_SETTINGS, { subagent: true });
    expect(row).toMatchObject({ decision: "allow", rule: null });
    expect(row!.evidence["turn-finished"]).toMatchObject({ finish: "stop", subagent: true });
  });
});

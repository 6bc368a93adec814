import { describe, expect, it } from "vitest";
import { replayMessages } from "../../../src/core.js";
import { DEFAULT_SETTINGS, type GuardSettings } from "../../../src/config/settings.js";
import { bash, SessionBuilder, type ToolSpec } from "../../support/session.js";

const settings = (over: Partial<GuardSettings> = {}): GuardSettings => ({ ...DEFAULT_SETTINGS, ...over });

describe("repeated-tool-call: threshold, window, chains and compactions", () => {
  const read = (filePath: string): ToolSpec => ({ tool: "read", input: { filePath } });
  /** Decides the last compaction of a session built by `build`, no token data (no-progress abstains). */
  const last = (build: (s: SessionBuilder) => SessionBuilder, over: Partial<GuardSettings> = {}) =>
    replayMessages(build(new SessionBuilder().user()).messages, settings(over)).at(-1)!;

  // X before a manual compaction; after it, X again (and again). No-new-work compares the
  // cycles of automatic compactions, so at the first automatic one this rule decides alone.
  const runs = (n: number) => (s: SessionBuilder) => {
    s.step(read("a"), null).step(bash("npm test"), null).compact({ auto: false });
    for (let i = 1; i < n; i++) s.step(bash("npm test"), null);
    return s.compact();
  };

  it("one below the threshold allows, exactly at it denies", () => {
    const two = last(runs(2));
    const three = last(runs(3));
    expect(two.decision).toBe("allow");
    expect(two.evidence["repeated-tool-call"]).toMatchObject({ count: 2, acrossCompaction: true });
    expect(three.fired).toEqual(["repeated-tool-call"]);
    expect(three.evidence["repeated-tool-call"]).toMatchObject({
      tool: "bash",
      count: 3,
      threshold: 3,
      acrossCompaction: true,
      movedOn: false,
    });
    expect(last(runs(3), { threshold: 4 }).decision).toBe("allow");
  });

  it("a chain followed by new work does not deny: the model moved on", () => {
    const row = last((s) =>
      runs(3)(s.step(read("b"), null))
        .step(read("c"), null)
        .step(read("d"), null)
        .compact(),
    );
    const moved = last((s) => {
      s.step(read("a"), null).step(bash("npm test"), null).compact();
      s.step(bash("npm test"), null).step(bash("npm test"), null);
      return s.step({ tool: "edit", input: { filePath: "a.ts", oldString: "x", newString: "y" } }, null).compact();
    });
    expect(moved.decision).toBe("allow");
    expect(moved.evidence["repeated-tool-call"]).toMatchObject({ count: 3, acrossCompaction: true, movedOn: true });
    expect(row.evidence["repeated-tool-call"]).toMatchObject({ count: 3, movedOn: true });
  });

  it("only the last `window` steps count", () => {
    const run = (window: number) =>
      last(
        (s) =>
          s
            .step(read("first"), null)
            .step(bash("npm test"), null)
            .compact({ auto: false })
            .step(bash("npm test"), null)
            .step(bash("npm test"), null)
            .compact(),
        { window },
      );
    expect(run(4).fired).toEqual(["repeated-tool-call"]);
    // A window of 2 starts after the run before the compaction: 2 runs, all after it.
    expect(run(2).evidence["repeated-tool-call"]).toMatchObject({ count: 2, messagesRead: 2, acrossCompaction: false });
    expect(run(2).decision).toBe("allow");
  });

  it("repeats that lie wholly before the first compaction never deny: a poll looks the same", () => {
    const row = last((s) =>
      s.step(bash("npm test"), null).step(bash("npm test"), null).step(bash("npm test"), null).step(bash("npm test"), null).compact(),
    );
    expect(row.decision).toBe("allow");
    expect(row.evidence["repeated-tool-call"]).toMatchObject({ count: 4, acrossCompaction: false });
  });

  it("repeats wholly inside the newest cycle do not deny either", () => {
    const row = last((s) =>
      s
        .step(read("a"), null)
        .compact()
        .step(read("b"), null)
        .step(bash("ls"), null)
        .step(bash("ls"), null)
        .step(bash("ls"), null)
        .compact(),
    );
    expect(row.decision).toBe("allow");
    expect(row.evidence["repeated-tool-call"]).toMatchObject({ tool: "bash", count: 3, acrossCompaction: false });
  });

  it("a manual compaction between the runs counts as a compaction", () => {
    const row = last((s) =>
      s.step(bash("make"), null).compact({ auto: false }).step(bash("make"), null).step(bash("make"), null).compact(),
    );
    expect(row.rule).toBe("repeated-tool-call");
    expect(row.evidence["no-progress"]).toEqual({ status: "abstain", reason: "no earlier automatic compaction" });
  });

  it("new work between two runs makes the second no repeat (npm test after each new file)", () => {
    const row = last((s) => {
      for (let i = 0; i < 3; i++)
        s.step({ tool: "write", input: { filePath: `p${i}.ts`, content: `${i}` } }, null).step(bash("npm test", "1 failing\n"), null);
      s.compact();
      for (let i = 3; i < 6; i++)
        s.step({ tool: "write", input: { filePath: `p${i}.ts`, content: `${i}` } }, null).step(bash("npm test", "1 failing\n"), null);
      return s.compact();
    });
    expect(row.decision).toBe("allow");
    expect(row.evidence["repeated-tool-call"]).toMatchObject({ count: 1 });
    expect(row.evidence["no-new-work"]).toMatchObject({ actions: 6, firstNew: 0 });
  });

  it("a step with several tool parts counts each part, and names each message once", () => {
    const row = last((s) =>
      s
        .step(read("a"), null)
        .step([bash("make"), bash("make")], null)
        .compact({ auto: false })
        .step(bash("make"), null)
        .compact(),
    );
    expect(row.fired).toEqual(["repeated-tool-call"]);
    expect(row.evidence["repeated-tool-call"]).toMatchObject({ count: 3 });
    expect(row.evidence["repeated-tool-call"].messageIDs).toHaveLength(2);
  });

  it("catches an A,B,A,B,A,B cycle (opencode#47759)", () => {
    const row = last((s) => {
      for (let i = 0; i < 3; i++) s.step(bash("git status"), null).step(read("a.ts"), null).compact();
      return s;
    });
    expect(row.fired).toEqual(["repeated-tool-call", "no-new-work"]);
    expect(row.evidence["repeated-tool-call"]).toMatchObject({ tool: "read", count: 3 });
  });

  it("counts a call that fails the same way; pending and running parts never count", () => {
    const failing: ToolSpec = { ...bash("./deploy.sh"), status: "error" };
    const row = last((s) =>
      s.step(read("a"), null).step(failing, null).compact({ auto: false }).step(failing, null).step(failing, null).compact(),
    );
    expect(row.fired).toEqual(["repeated-tool-call"]);
    for (const status of ["pending", "running"] as const) {
      const open = last((s) =>
        s
          .step(read("a"), null)
          .step({ ...bash("npm test"), status }, null)
          .compact()
          .step({ ...bash("npm test"), status }, null)
          .step({ ...bash("npm test"), status }, null)
          .step(read("b"), null)
          .compact(),
      );
      expect(open.evidence["repeated-tool-call"]).toMatchObject({ tool: "read", count: 1 });
    }
  });

  it("errored calls interleaved with succeeding new work never count", () => {
    const failing: ToolSpec = { ...bash("npm run lint"), status: "error" };
    const row = last((s) => {
      for (let i = 0; i < 6; i++)
        s.step(failing, null)
          .step({ tool: "edit", input: { filePath: `f${i}.ts`, oldString: "a", newString: "b" } }, null)
          .compact();
      return s;
    });
    expect(row.decision).toBe("allow");
    expect(row.evidence["repeated-tool-call"].count).toBe(1);
  });

  it("the ignore setting takes calls out of every count, by tool name or bash command start", () => {
    const watch = bash("gh pr checks 123", "in progress\n");
    const build = (s: SessionBuilder) => {
      for (let i = 0; i < 3; i++) s.step(watch, null).compact();
      return s;
    };
    expect(last(build).rule).toBe("repeated-tool-call");
    expect(last(build, { ignore: ["gh pr checks"] }).decision).toBe("allow");
    expect(last(build, { ignore: ["bash"] }).decision).toBe("allow");
    // A command start matches whole words only.
    expect(last(build, { ignore: ["gh pr check"] }).decision).toBe("deny");
  });
});

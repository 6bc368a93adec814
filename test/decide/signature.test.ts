import { describe, expect, it } from "vitest";
import { canonicalJson, normalizeOutput, toolCallSignature } from "../../src/decide/signature.js";

describe("canonicalJson", () => {
  it("sorts object keys at every depth and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it("survives cycles, bigints and undefined", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(canonicalJson(cyclic)).toBe('{"a":1,"self":"[Circular]"}');
    expect(canonicalJson({ n: 10n })).toBe('{"n":10}');
    expect(canonicalJson(undefined)).toBe("null");
  });
});

describe("toolCallSignature", () => {
  const call = (input: unknown, output: unknown = "ok", tool = "bash") => ({ tool, input, output, status: "completed" as const });

  it("is a sha256 hex digest", () => {
    expect(toolCallSignature(call({ command: "ls" }), true)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("ignores key order, and the output only when matchOutput is off", () => {
    const a = call({ command: "ls", description: "x" }, "a\n");
    const b = call({ description: "x", command: "ls" }, "b\n");
    expect(toolCallSignature(a, false)).toBe(toolCallSignature(b, false));
    expect(toolCallSignature(a, true)).not.toBe(toolCallSignature(b, true));
  });

  it("separates a call that failed from one that completed with the same text", () => {
    const failed = { ...call({ command: "./deploy.sh" }, "denied"), status: "error" as const };
    expect(toolCallSignature(failed, true)).not.toBe(toolCallSignature(call({ command: "./deploy.sh" }, "denied"), true));
  });

  it("separates tools and cannot be fooled by joining fields", () => {
    expect(toolCallSignature(call({ x: 1 }, "o", "read"), true)).not.toBe(toolCallSignature(call({ x: 1 }, "o", "grep"), true));
    expect(toolCallSignature(call("a", "bc"), true)).not.toBe(toolCallSignature(call("ab", "c"), true));
  });
});

describe("normalizeOutput", () => {
  it.each([
    ["Duration 2.13s\n", "Duration ~\n"],
    ["at 2026-11-30T09:00:00Z ok", "at ~ ok"],
    ["12:01:02 done", "~ done"],
    ['<task id="ses_child3" state="completed">', '<task id="~" state="completed">'],
    ["Build success in 31 ms", "Build success in ~"],
    ['[104] FATAL: lock file "postmaster.pid" already exists', '[~] FATAL: lock file "postmaster.pid" already exists'],
    ["[1] 26594\nstarted", "[~]\nstarted"],
    ["server (pid 26594) listening", "server (~) listening"],
    ["PID=31337 exited", "~ exited"],
    ["(node:41872) [DEP0040] DeprecationWarning", "(~) [DEP0040] DeprecationWarning"],
    ["see /home/u/.npm/_logs/2026-11-30T16_08_58_367Z-debug-0.log", "see /home/u/.npm/_logs/~-debug-0.log"],
    ["<User object at 0x7f3a9c2e10d0>", "<User object at ~>"],
    ["request 9b2f4c1e-5a7d-4e3b-8c9a-1d2e3f4a5b6c failed", "request ~ failed"],
    ["listening on 127.0.0.1:54321", "listening on ~"],
    ["real\t0m3.217s", "real\t~"],
    ["BUILD FAILED in 7s", "BUILD FAILED ~"],
    ["Done in 3.2s, retrying in 30s", "Done ~, retrying ~"],
    ["wrote /tmp/tmp.Xa81kQz9Lp/out.json", "wrote /tmp/~"],
    ["cache at /var/folders/x1/abc_123/T/tmp.q8 ready", "cache at /tmp/~ ready"],
    ["\u001b[31mFAIL\u001b[0m test/a.test.ts", "FAIL test/a.test.ts"],
    [
      "...output truncated...\n\nFull output saved to: /home/dev/.local/share/opencode/tool-output/tool_22ce41902001F2bkSBdwHK7XZ1\n\nerror",
      "...output truncated...\n\nFull output saved to: /home/dev/.local/share/opencode/~\n\nerror",
    ],
  ])("takes the noise out of %j", (output, normalized) => {
    expect(normalizeOutput(output)).toBe(normalized);
  });

  it.each([
    "2 of 3 passed",
    "version 1.2.3",
    "exit 1",
    "3 files changed",
    "3 of 6 done",
    "deploy web-1: rolling, about 5 minutes remaining",
    "about 4 minutes remaining, 30s left",
    "commit 3f2a9c1d",
    "array[3] = 7",
  ])("keeps %j: counts are progress", (output) => {
    expect(normalizeOutput(output)).toBe(output);
  });
});

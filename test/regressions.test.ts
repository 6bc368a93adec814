/**
 * Regressions found in review: healthy sessions the guard once denied, loops it once
 * missed, passwords it once showed, replay flags it once misread. Each case failed before
 * its fix.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cli } from "./support/cli.js";
import { createGuard } from "../src/plugin/opencode-v1/guard.js";
import { DEFAULT_SETTINGS } from "../src/config/settings.js";
import { previewCall } from "../src/redact/preview.js";
import { replayMessages } from "../src/core.js";
import { fakeClient, newestMessages } from "./support/client.js";
import { bash, SessionBuilder, type Message } from "./support/session.js";

const HEALTHY = fileURLToPath(new URL("../fixtures/e2e-healthy.json", import.meta.url));

/** Runs the hook once on `messages` (the last compaction is the one being decided). */
async function hook(messages: Message[], limit: Record<string, number> = { context: 128_000, output: 16_000 }, options?: unknown) {
  const fake = fakeClient(newestMessages(messages));
  const hooks = createGuard({ client: fake.client as never }, options, { env: {} });
  const compaction = [...messages].reverse().find((m) => m.parts.some((p) => p.type === "compaction"))!;
  const overflow = compaction.parts.some((p) => p.type === "compaction" && p.overflow === true);
  const output = { enabled: true };
  await hooks["experimental.compaction.autocontinue"]!(
    {
      sessionID: "ses_test",
      agent: "build",
      model: { id: "m", providerID: "p", limit },
      provider: { source: "config", info: {}, options: {} },
      message: compaction.info,
      overflow,
    } as never,
    output,
  );
  return { ...fake, output };
}

/** What a provider that reports no usage (many OpenAI-compatible local servers) leaves in tokens. */
const NO_USAGE = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };

describe("no-progress false positives", () => {
  it("a provider without usage data: an overflow compaction that bought 20 productive steps is not 'no room'", async () => {
    // One-prompt session (opencode calls the hook on overflow compactions). The provider never
    // reports usage, so every step has zero tokens; it refuses once, compaction 1 makes room,
    // the model works through 20 different calls, then the provider refuses again.
    const s = new SessionBuilder().user("refactor the repo");
    s.step(bash("ls"), NO_USAGE);
    s.step([], NO_USAGE); // refused by the provider: no tool call, no tokens
    s.compact({ overflow: true });
    for (let i = 0; i < 20; i++) s.step(bash(`sed -n ${i}p src/file${i}.ts`, `line ${i}\n`), NO_USAGE);
    s.step([], NO_USAGE); // refused again
    s.compact({ overflow: true });
    const { output, logs } = await hook(s.messages);
    // Missing token data is not a refusal: only empty steps with no size are.
    expect(output.enabled, logs.at(-1)?.message).toBe(true);
  });

  it("a stall long ago, then a real reply and 40 steps of progress on a larger model, is not a stall now", async () => {
    // Compaction 1 stalled on a small model; the guard (rightly) denied compaction 2. The
    // user followed the advice ("a model with a larger context"), switched model and replied.
    // The session then grew over 40 different steps to the new model's line and compacted.
    const s = new SessionBuilder().user("fix the build");
    s.step(bash("make"), 7020).compact();
    s.step(bash("make", "again\n"), 7020).compact({ continueTurn: false }); // denied by the guard
    s.user("I switched to a 128K model, continue");
    for (let i = 0; i < 40; i++) s.step(bash(`cat part${i}.txt`, `part ${i}\n`), 7_100 + i * 2_700);
    s.compact();
    const { output, logs } = await hook(s.messages, { context: 128_000, output: 16_000 });
    // The user stepped in after compaction 2: compaction 2 is not judged by a step on another model.
    expect(output.enabled, logs.at(-1)?.message).toBe(true);
  });
});

describe("repeats the output noise once hid", () => {
  const replay = (messages: unknown[], limits = { context: 65_536, output: 16_384 }) =>
    replayMessages(messages, { ...DEFAULT_SETTINGS }, { limits });
  const firstDeny = (messages: unknown[]) => replay(messages).find((r) => r.decision === "deny")?.compaction.index ?? null;

  it("`npm test` re-emitted after every continue turn, only the timing lines differ", () => {
    const s = new SessionBuilder().user("make the tests pass");
    for (let c = 0; c < 6; c++) {
      s.step(bash("npm test", `Tests  1 failed | 41 passed\nDuration  ${(2.1 + c / 100).toFixed(2)}s\n`), 20_000);
      s.step(bash("npm run build", `dist/index.js 41.2 KB\n⚡ Build success in ${30 + c}ms\n`), 52_000);
      s.compact();
    }
    // Each compaction cuts 52K to 20K (no-progress allows). Up to the timings, the cycle
    // after compaction 1 redid both calls: no-new-work at 2 (with the timings counted as
    // output, both runs were new and this allowed). The third identical run of each lands
    // before compaction 3: repeated-tool-call.
    const rows = replay(s.messages);
    expect(firstDeny(s.messages)).toBe(2);
    expect(rows.slice(0, 3).map((r) => [r.compaction.index, r.rule])).toEqual([
      [1, null],
      [2, "no-new-work"],
      [3, "repeated-tool-call"],
    ]);
    expect(rows[1]!.evidence["no-new-work"]).toMatchObject({ status: "measured", steps: 2, actions: 2, firstNew: null });
    expect(rows[2]!.evidence["repeated-tool-call"]).toMatchObject({ tool: "bash", count: 3, acrossCompaction: true });
  });

  it("the same subagent task re-dispatched after every continue turn (a new child session id each time)", () => {
    const s = new SessionBuilder().user("audit the repo");
    for (let c = 0; c < 6; c++) {
      s.step(
        {
          tool: "task",
          input: { description: "explore", prompt: "Map the codebase", subagent_type: "explore" },
          output: `<task id="ses_child${c}" state="completed">\n<task_result>\nsame map\n</task_result>\n</task>`,
        },
        null,
      ).compact();
    }
    // The re-dispatch after compaction 1 is no new work (2); the third dispatch is a repeat (3).
    const rows = replay(s.messages);
    expect(firstDeny(s.messages)).toBe(2);
    expect(rows.slice(0, 3).map((r) => [r.compaction.index, r.rule])).toEqual([
      [1, null],
      [2, "no-new-work"],
      [3, "repeated-tool-call"],
    ]);
    expect(rows[2]!.evidence["repeated-tool-call"]).toMatchObject({ tool: "task", count: 3 });
  });

  it("a moving count is still progress", () => {
    const s = new SessionBuilder().user("wait for the migration");
    for (let c = 1; c <= 6; c++) s.step(bash("./migrate --status", `${c} of 6 batches done in 1.${c}s\n`), null).compact();
    expect(firstDeny(s.messages)).toBeNull();
  });
});

describe("user messages no person wrote", () => {
  it("a synthetic user message that is not a continue turn (a background task's result) re-arms neither rule", () => {
    // opencode 1.18.33 injects a finished background task as a user message whose only part
    // is a synthetic text part (TaskTool.injectBackgroundResult).
    const s = new SessionBuilder().user("go");
    for (let c = 0; c < 4; c++) {
      s.step(bash("echo hi", "hi\n"), 7_020).compact();
      const id = `msg_bg_${c}`;
      s.messages.push({
        info: { id, sessionID: "ses_test", role: "user", agent: "build" },
        parts: [
          { id: `prt_bg_${c}`, messageID: id, type: "text", synthetic: true, text: `<task id="ses_bg${c}" state="completed">ok</task>` },
        ],
      });
    }
    const rows = replayMessages(s.messages, { ...DEFAULT_SETTINGS }, { limits: { context: 8_000, output: 2_000 } });
    // no-progress is checked first and denies from compaction 2 on; what shows that the
    // synthetic messages re-armed nothing is every rule that fired, and the repeat count
    // growing across them.
    expect(rows.map((r) => [r.decision, r.rule, r.fired])).toEqual([
      ["allow", null, []],
      ["deny", "no-progress", ["no-progress", "no-new-work"]],
      ["deny", "no-progress", ["no-progress", "repeated-tool-call", "no-new-work"]],
      ["deny", "no-progress", ["no-progress", "repeated-tool-call", "no-new-work"]],
    ]);
    expect(rows.map((r) => r.evidence["repeated-tool-call"].count)).toEqual([1, 2, 3, 4]);
  });
});

describe("a hook input opencode would never send", () => {
  it("a sessionID whose toString throws: the hook still returns, enabled untouched", async () => {
    const s = new SessionBuilder().user().step(bash("ls"), 9_000).compact();
    const fake = fakeClient(newestMessages(s.messages));
    const hook = createGuard({ client: fake.client as never }, undefined, { env: {} })["experimental.compaction.autocontinue"]!;
    const bad = {
      toString: () => {
        throw new Error("no");
      },
    };
    const output = { enabled: true };
    await expect(hook({ sessionID: bad, message: { id: "x" } } as never, output)).resolves.toBeUndefined();
    expect(output.enabled).toBe(true);
  });
});

describe("secrets in the toast and the warn line", () => {
  it.each([
    "docker login -u ci --password S3cretPass42",
    "curl -u admin:S3cretPass42 https://api.example.com",
    "git clone https://deploy:S3cretPass42@example.com/r.git",
    "mysql -uroot -pS3cretPass42 app",
    "psql postgres://app:S3cretPass42@db/app",
  ])("%s", async (command) => {
    // No token data, so no-progress abstains and the denial shows the command's preview:
    // no-new-work's example at compaction 2, repeated-tool-call's call at compaction 3.
    const cycles = (n: number) => {
      const s = new SessionBuilder().user("deploy");
      for (let i = 0; i < n; i++) s.step(bash(command), null).compact({ continueTurn: i < n - 1 });
      return s.messages;
    };
    const preview = previewCall("bash", bash(command).input);
    expect(preview).not.toContain("S3cretPass42");
    for (const [n, rule] of [
      [2, "no-new-work"],
      [3, "repeated-tool-call"],
    ] as const) {
      const { output, logs, toasts } = await hook(cycles(n), { context: 8000, output: 2000 });
      expect(output.enabled).toBe(false);
      expect(logs[0]!.extra!.rule).toBe(rule);
      expect(logs[0]!.message).toContain(`(${preview})`);
      // The toast is short: it names what happened, never the input.
      expect(toasts[0]!.message).not.toContain("command=");
      expect(JSON.stringify({ logs, toasts })).not.toContain("S3cretPass42");
    }
  });
});

describe("replay CLI model limits", () => {
  it("--context-limit without --output-limit does not turn a healthy session into a deny", async () => {
    const { code, stdout, stderr } = await cli(["replay", HEALTHY, "--context-limit", "8000"]);
    // Once: "usable context 0 tokens" (no output limit counts as 32,000) and compaction 2 denied.
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr).toContain("--context-limit needs --output-limit too");
  });

  it("--output-limit or --input-limit without --context-limit is not silently ignored", async () => {
    const { code, stdout, stderr } = await cli(["replay", HEALTHY, "--output-limit", "2000", "--input-limit", "6000"]);
    // Once: exit 0, the limits silently ignored.
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr).toContain("--output-limit needs --context-limit too");
  });
});

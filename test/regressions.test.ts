/**
 * Regressions found in review: healthy sessions the guard once denied, passwords it once
 * showed, replay flags it once misread. Each case failed before its fix.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../src/cli.js";
import { createGuard } from "../src/index.js";
import { fakeClient, newestMessages } from "./support/client.js";
import { bash, SessionBuilder, type Message, type ToolSpec } from "./support/session.js";

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

async function cli(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, (t) => (stdout += t), (t) => (stderr += t), env);
  return { code, stdout, stderr };
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

describe("repeated-tool-call false positives the README says are allowed", () => {
  const tsc: ToolSpec = { tool: "bash", input: { command: "npx tsc --noEmit", description: "type check" }, output: "src/a.ts(3,1): error TS2322\n" };
  const edit = (file: string): ToolSpec => ({ tool: "edit", input: { filePath: file, oldString: "x", newString: "y" }, output: "Edit applied successfully." });

  it("re-running the type check after edits elsewhere (same output) at a healthy first compaction", async () => {
    const s = new SessionBuilder().user("fix the type errors");
    s.step(tsc, 90_000).step(edit("src/b.ts"), 95_000).step(tsc, 100_000).step(edit("src/c.ts"), 105_000).step(tsc, 112_500);
    s.compact();
    const { output, logs } = await hook(s.messages);
    // First compaction of the session: there is no compaction loop yet, and edits happened between.
    expect(output.enabled, logs.at(-1)?.message).toBe(true);
  });

  it("polling a CI run that is still in progress (unchanged output) at a healthy first compaction", async () => {
    const poll = bash("sleep 60 && gh run view 123 --json status", '{"status":"in_progress"}\n');
    const s = new SessionBuilder().user("wait for CI and then merge");
    s.step(poll, 100_000).step(poll, 105_000).step(poll, 112_500).compact();
    const { output, logs } = await hook(s.messages);
    expect(output.enabled, logs.at(-1)?.message).toBe(true);
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
    const s = new SessionBuilder().user("deploy");
    s.step(bash(command), 7020).compact().step(bash(command), 7020).compact().step(bash(command), 7020).compact();
    const { output, logs, toasts } = await hook(s.messages, { context: 8000, output: 2000 });
    expect(output.enabled).toBe(false);
    expect(JSON.stringify({ logs, toasts })).not.toContain("S3cretPass42");
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

/**
 * The harness's own pieces, without running opencode: request classification, the scripted
 * server's SSE and cap, log-line parsing, export figures and path sanitising.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { guardLogLines, liveDecisions, parseLogLine } from "./guard-log.js";
import { classifyRequest, startModelServer, type ModelServer } from "./model-server.js";
import { createSandbox, opencodeConfig, PROJECT_ROOT, writeProjectFiles } from "./sandbox.js";
import { LOOP_PROMPT_TOKENS, scenarioSetup } from "./scenarios.js";
import { exportFigures, sanitizeExport, type SessionExport } from "./session-export.js";

const tools = [{ type: "function", function: { name: "bash", parameters: {} } }];

describe("classifyRequest", () => {
  it("tells title, compaction, continue and chat apart as opencode 1.18.33 sends them", () => {
    const title = {
      messages: [
        { role: "system", content: "You are a title generator. You output ONLY a thread title." },
        { role: "user", content: "run echo hi" },
      ],
    };
    const compaction = {
      messages: [
        { role: "system", content: "You are a context summarization agent." },
        { role: "user", content: "Here is the conversation so far:\n\n<conversation>\n[User]: hi\n</conversation>" },
      ],
    };
    const chat = {
      tools,
      messages: [
        { role: "system", content: "You are opencode" },
        { role: "user", content: [{ type: "text", text: "run echo hi" }] },
      ],
    };
    const cont = {
      tools,
      messages: [
        ...chat.messages,
        { role: "user", content: "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed." },
      ],
    };
    expect([title, compaction, chat, cont].map(classifyRequest)).toEqual(["title", "compaction", "chat", "continue"]);
  });
});

describe("the scripted model server", () => {
  let server: ModelServer | undefined;
  afterEach(async () => server?.close());

  const post = (body: unknown) =>
    fetch(`${server!.baseURL}/chat/completions`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    });
  const chat = { tools, messages: [{ role: "user", content: "run echo hi" }] };

  it("streams a tool call, a finish chunk and a usage chunk", async () => {
    server = await startModelServer({ scenario: "fixed-point", readPath: "/x/notes.txt" });
    const res = await post(chat);
    expect(res.status).toBe(200);
    const events = (await res.text())
      .split("\n\n")
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ""));
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks[0].choices[0].delta.tool_calls[0].function).toEqual({
      name: "bash",
      arguments: '{"command":"echo hi","description":"echo hi"}',
    });
    expect(chunks[1].choices[0].finish_reason).toBe("tool_calls");
    expect(chunks[2].usage).toEqual({ prompt_tokens: LOOP_PROMPT_TOKENS, completion_tokens: 20, total_tokens: LOOP_PROMPT_TOKENS + 20 });
    expect(server.requests).toMatchObject([{ seq: 1, kind: "chat", reply: "tool-call", tool: "bash", promptTokens: LOOP_PROMPT_TOKENS }]);
  });

  it("refuses with HTTP 400 (never retried) once the cap is reached; titles do not count", async () => {
    server = await startModelServer({ scenario: "fixed-point", readPath: "/x/notes.txt", maxRequests: 2 });
    const title = {
      messages: [
        { role: "system", content: "You are a title generator." },
        { role: "user", content: "x" },
      ],
    };
    const statuses = [];
    for (const body of [title, chat, chat, chat]) statuses.push((await post(body)).status);
    expect(statuses).toEqual([200, 200, 200, 400]);
    expect(server.requests.map((r) => r.reply)).toEqual(["text", "tool-call", "tool-call", "cap"]);
    expect(server.counts()).toEqual({ title: 1, compaction: 0, continue: 0, chat: 3 });
  });

  it("answers provider-overflow chats with an OpenAI context_length_exceeded 400", async () => {
    server = await startModelServer({ scenario: "provider-overflow", readPath: "/x/notes.txt" });
    const res = await post(chat);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("context_length_exceeded");
  });
});

describe("the scripted server's judgement replies", () => {
  let server: ModelServer | undefined;
  afterEach(async () => server?.close());

  const post = (body: unknown) =>
    fetch(`${server!.baseURL}/chat/completions`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    });
  const chunksOf = async (res: Response) =>
    (await res.text())
      .split("\n\n")
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ""))
      .filter((e) => e !== "[DONE]")
      .map((e) => JSON.parse(e));
  const chat = { tools, messages: [{ role: "user", content: "x" }] };
  const summarize = {
    messages: [
      { role: "system", content: "Summarize." },
      { role: "user", content: "<conversation></conversation>" },
    ],
  };

  it("an empty answer has no content at all, finish length, and reports its hidden reasoning", async () => {
    server = await startModelServer({ scenario: "back-to-back-compactions", readPath: "/x/notes.txt" });
    await post(chat); // the step over the line
    await post(summarize);
    const chunks = await chunksOf(await post(chat));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant" });
    expect(chunks[1].choices[0].finish_reason).toBe("length");
    expect(chunks[2].usage).toMatchObject({
      prompt_tokens: 4200,
      completion_tokens: 2000,
      completion_tokens_details: { reasoning_tokens: 2000 },
    });
    expect(server.requests.map((r) => r.reply)).toEqual(["tool-call", "text", "empty"]);
  });

  it("same-text-no-finish never sends a finish reason", async () => {
    server = await startModelServer({ scenario: "same-text-no-finish", readPath: "/x/notes.txt" });
    const chunks = await chunksOf(await post(chat));
    expect(chunks.filter((c) => c.choices.length > 0).map((c) => c.choices[0].finish_reason)).toEqual([null, null]);
    expect(chunks[0].choices[0].delta.content).toBe("Still thinking about the approach.");
  });

  it("overflow-resend alternates one call and a context_length_exceeded refusal", async () => {
    server = await startModelServer({ scenario: "overflow-resend", readPath: "/x/notes.txt" });
    expect((await post(chat)).status).toBe(200);
    expect((await post(chat)).status).toBe(400);
    await post(summarize);
    expect((await post(chat)).status).toBe(200);
    expect(server.requests.map((r) => r.reply)).toEqual(["tool-call", "error", "text", "tool-call"]);
  });
});

describe("scenario setups", () => {
  it("errored-repeat denies ./deploy.sh by a bash permission rule; compaction-reserved sets an input limit and reserved", () => {
    const errored = scenarioSetup("errored-repeat");
    expect(opencodeConfig({ baseURL: "http://x/v1", ...errored }).permission).toEqual({
      bash: { "*": "allow", "./deploy.sh": "deny" },
      read: "allow",
      edit: "allow",
      external_directory: "allow",
    });
    const reserved = opencodeConfig({ baseURL: "http://x/v1", ...scenarioSetup("compaction-reserved") });
    expect(reserved.compaction).toEqual({ reserved: 500 });
    expect((reserved.provider as { fake: { models: { fakemodel: { limit: unknown } } } }).fake.models.fakemodel.limit).toEqual({
      context: 8000,
      input: 6500,
      output: 2000,
    });
    expect(opencodeConfig({ baseURL: "http://x/v1" })).not.toHaveProperty("compaction");
  });

  it("writes a scenario's files into the project, executable where marked", async () => {
    const sandbox = await createSandbox();
    try {
      await writeProjectFiles(sandbox, scenarioSetup("errored-repeat").files);
      await writeProjectFiles(sandbox, { "src/deep/file.txt": "x\n" });
      const deploy = join(sandbox.project, "deploy.sh");
      expect(readFileSync(deploy, "utf8")).toBe("#!/bin/sh\necho deployed\n");
      expect(statSync(deploy).mode & 0o111).not.toBe(0);
      expect(readFileSync(join(sandbox.project, "src/deep/file.txt"), "utf8")).toBe("x\n");
    } finally {
      await sandbox.dispose();
    }
  });
});

describe("guard log lines", () => {
  // Lines as opencode 1.18.33 printed them for a plugin's client.app.log calls.
  const stderr = [
    "timestamp=2026-11-30T08:31:10.650Z level=INFO run=8867b2bf message=loop session.id=ses_a step=3",
    'timestamp=2026-11-30T08:31:10.690Z level=INFO run=8867b2bf message="compaction-guard allowed auto-continue in session ses_a after compaction 1" sessionID=ses_a compaction=1 messageID=msg_1 decision=allow rule=null elapsedMs=10.37',
    'timestamp=2026-11-30T08:31:11.010Z level=WARN run=8867b2bf message="compaction-guard stopped auto-continue in session ses_a after compaction 2: no-progress — \\"x\\"" sessionID=ses_a compaction=2 messageID=msg_2 decision=deny rule=no-progress elapsedMs=5.57 nested.a=1 list=[1,2]',
  ].join("\n");

  it("parses logfmt with quoted, escaped, null, numeric, dotted and array values", () => {
    const line = parseLogLine(stderr.split("\n")[2]!)!;
    expect(line.level).toBe("WARN");
    expect(line.message).toBe('compaction-guard stopped auto-continue in session ses_a after compaction 2: no-progress — "x"');
    expect(line.fields).toMatchObject({ compaction: 2, rule: "no-progress", elapsedMs: 5.57, "nested.a": 1, list: "[1,2]" });
    expect(parseLogLine("not a log line")).toBeNull();
  });

  it("keeps only the guard's lines and reads one decision per line", () => {
    const lines = guardLogLines(stderr);
    expect(lines).toHaveLength(2);
    expect(liveDecisions(lines).map((d) => [d.index, d.messageID, d.decision, d.rule, d.elapsedMs, d.level])).toEqual([
      [1, "msg_1", "allow", null, 10.37, "INFO"],
      [2, "msg_2", "deny", "no-progress", 5.57, "WARN"],
    ]);
  });
});

describe("export figures", () => {
  const loop = JSON.parse(readFileSync(join(PROJECT_ROOT, "fixtures", "opencode-1.18.33-loop-bash.json"), "utf8")) as SessionExport;

  it("count compactions, continue turns and what followed each compaction in the shared looping export", () => {
    const f = exportFigures(loop);
    expect(f.compactionCycles).toBe(3);
    expect(f.continueTurns).toBe(2);
    expect(f.realUserTurns).toBe(1);
    expect(f.compactions.map((c) => [c.index, c.next, c.hookCalled])).toEqual([
      [1, "continue", true],
      [2, "continue", true],
      [3, "none", true],
    ]);
    expect(f.toolCalls).toHaveLength(3);
  });

  it("sanitise absolute and slash-less sandbox paths", () => {
    const exp = {
      info: { id: "ses_x", directory: "/scratch/ocg-e2e-ab/project", path: "scratch/ocg-e2e-ab/project" },
      messages: [],
    } as unknown as SessionExport;
    const clean = sanitizeExport(exp, [
      ["/scratch/ocg-e2e-ab/project", "/home/dev/project"],
      ["/scratch/ocg-e2e-ab", "/home/dev/.local/e2e"],
    ]);
    expect(clean.info).toEqual({ id: "ses_x", directory: "/home/dev/project", path: "home/dev/project" });
  });
});

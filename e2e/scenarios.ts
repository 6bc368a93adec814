/**
 * Scripted model behaviour for the end-to-end runs: what the fake model answers to each
 * kind of request opencode sends, per named scenario. Pure: no I/O, no clocks.
 *
 * - fixed-point, alternating, reread: loops whose every step is over the usable line, so every
 *   step compacts and the compaction never gets under it (the seed report's fixed point).
 * - healthy: a different call each step; each compaction cuts the context well under the line,
 *   which then grows back over a few steps; a final text answer after 11 steps.
 * - repeat-with-progress: the same call each step while compaction does cut the context
 *   (opencode#31111: work redone after every compaction).
 * - provider-overflow: every chat request is refused with an OpenAI context_length_exceeded 400.
 *
 * The judgement scenarios (one per kind of case the guard must judge; see JUDGEMENT below):
 *
 * - four-read-cycle: the same four reads after every compaction (a cycle longer than
 *   window / threshold).
 * - back-to-back-compactions, double-compaction: compaction after compaction with no step
 *   that did anything between them (opencode 1.18.33 always runs a step between two
 *   compactions; here it is an empty step that spent its output on hidden reasoning and
 *   ended with `length`, see e2e/FINDINGS.md): three in a row, and a benign two in a row
 *   followed by normal work.
 * - summary-over-line: healthy steps, but each summary request reports a prompt over the line
 *   (opencode does not compact a summary again: the evidence for the above).
 * - pid-in-output, truncated-big-output: the same command every step, its output differing
 *   only in noise (a shell pid and a mktemp path; opencode's "Full output saved to" path).
 * - poll-with-eta: a status poll whose output counts down to "live" (healthy).
 * - errored-repeat: the same call failing the same way (a permission rule denies it).
 * - same-text-stop, same-text-no-finish: text-only steps that repeat; with `stop` the answer
 *   ends the turn, without a finish reason opencode carries on (finish "unknown").
 * - finished-then-restarted: the final answer is itself over the line.
 * - overflow-resend: one tool call, then the provider refuses the next request as too long.
 * - tdd-same-failure-between-edits, unchanged-poll-one-cycle, reasoning-heavy-first-step,
 *   compaction-reserved: healthy sessions the guard must not stop.
 *
 * The counted scenarios (COUNTED_SCENARIOS: the model server counts every request's tokens
 * instead of reporting fixed figures; limits 16,000 / 2,000, usable 14,000):
 *
 * - fixed-point-counted: a 30,000-character AGENTS.md puts the system prompt and tools over the
 *   usable context before any work: every step compacts whatever the summary says.
 * - healthy-counted: a different `seq` range each step (~1,360 tokens of output); each
 *   compaction keeps a tail and cuts well under the line; the answer on step 13.
 * - repeat-counted: the same `seq` every step while compaction does cut the context.
 *
 * Where a lower bound of the next prompt is most likely to fail (e2e/token-table.ts runs each
 * under every real tokenizer):
 *
 * - mcp-tools-counted: 40 MCP-style tool schemas (a local stdio MCP server) put the tools
 *   over the usable context: a fixed point.
 * - cjk-counted: a CJK- and emoji-heavy first message (3–4 bytes a character) and the same
 *   `cat` of a CJK notes file every step.
 * - big-tail-counted: the same `seq` of ~14,000 characters every step: the kept tail's last
 *   tool result, which the bound leaves out, is large.
 * - reasoning-counted: a reasoning model (`reasoning: true`, `reasoning_content` in every
 *   answer, the summary's too) in the AGENTS.md fixed point.
 * - input-limit-counted: the AGENTS.md fixed point with a model that has `limit.input`
 *   (16,000) and `compaction.reserved` 2,000: usable 14,000 by the input line.
 * - subagent-counted: the parent's `task` call starts a subagent whose own session runs the
 *   same `seq` every step (the subagent's system prompt, tools and first message).
 *
 * Tool loops with no compaction (1,000 prompt tokens a step, far under the line):
 *
 * - tool-loop-echo: the same `echo hi` every step, until the server's cap.
 * - tool-loop-varied: three different commands, then a final answer.
 *
 * What the guard costs a step (bench/step-cost.ts):
 *
 * - step-cost: a different `cat` of a 45,000-byte file every step (each output is distinct by
 *   the step's number), one automatic compaction after step 2 (so every later request carries a
 *   continue turn), then 1,000 prompt tokens a step, until the server's cap.
 *
 * What each hook of the guard costs in a long session (bench/host-hooks.ts):
 *
 * - host-hooks: healthy work of {@link HOST_HOOKS_STEPS} steps, a different call each (the
 *   45,000-byte file printed, a window of it read, a number range, a listing), an automatic
 *   compaction after each step of {@link HOST_HOOKS_COMPACT_AFTER}, then the final answer.
 *
 * Token figures are chosen against the model limits the harness configures
 * (context 8000, output 2000 → opencode's usable context is 6000 tokens): a step that
 * reports `prompt_tokens + completion_tokens >= 6000` makes opencode compact.
 */

/**
 * The scenarios whose token figures the model server counts from what each request carries
 * (model-server.ts `countPromptTokens`) instead of reporting the scenario's fixed figures.
 */
const COUNTED = [
  "fixed-point-counted",
  "healthy-counted",
  "repeat-counted",
  "mcp-tools-counted",
  "cjk-counted",
  "big-tail-counted",
  "reasoning-counted",
  "input-limit-counted",
  "subagent-counted",
] as const;

/** The scenarios the fake model server can play. */
export const SCENARIOS = [
  "fixed-point",
  "alternating",
  "reread",
  "healthy",
  "repeat-with-progress",
  "provider-overflow",
  "four-read-cycle",
  "back-to-back-compactions",
  "double-compaction",
  "summary-over-line",
  "pid-in-output",
  "truncated-big-output",
  "poll-with-eta",
  "errored-repeat",
  "same-text-stop",
  "same-text-no-finish",
  "finished-then-restarted",
  "overflow-resend",
  "tdd-same-failure-between-edits",
  "unchanged-poll-one-cycle",
  "reasoning-heavy-first-step",
  "compaction-reserved",
  "subagent",
  ...COUNTED,
  "tool-loop-echo",
  "tool-loop-varied",
  "step-cost",
  "host-hooks",
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** {@link COUNTED}, as a set. */
export const COUNTED_SCENARIOS: ReadonlySet<ScenarioName> = new Set<ScenarioName>(COUNTED);

/** How the server classified a request (see `classifyRequest` in model-server.ts). */
export type RequestKind = "title" | "compaction" | "continue" | "chat";

/** Model limits in tokens, as models.dev's `limit` (and opencode.json's) names them. */
export interface ModelLimits {
  context: number;
  output: number;
  input?: number;
}

/** Model limits configured for the fake model, in tokens. */
export const MODEL_LIMITS = { context: 8000, output: 2000 } as const;
/** opencode's usable context for those limits: context − min(output, 32000), in tokens. */
export const USABLE_TOKENS = MODEL_LIMITS.context - MODEL_LIMITS.output;

/** Prompt tokens a looping step reports: always over the usable line. */
export const LOOP_PROMPT_TOKENS = 7000;
/** Completion tokens reported for a tool-call step. */
const STEP_COMPLETION_TOKENS = 20;

/** Healthy scenario: prompt tokens right after a compaction (or at the start), in tokens. */
export const HEALTHY_BASE_TOKENS = 2000;
/** Healthy scenario: growth per step since the last compaction, in tokens. */
export const HEALTHY_STEP_TOKENS = 1500;
/** Healthy scenario: the model answers with its final text on this chat step (1-based). */
export const HEALTHY_FINAL_STEP = 11;
/** The healthy scenario's final answer text. */
export const HEALTHY_FINAL_TEXT = "All eleven steps are done; the scripted work is complete.";

/** The file name the `reread` and `alternating` scenarios read, relative to the project dir. */
export const READ_FILE_NAME = "notes.txt";
/** Its content (written by the harness). */
export const READ_FILE_CONTENT = "line one of the notes\nline two of the notes\n";

/** The four files four-read-cycle reads, relative to the project dir, and their contents. */
export const CYCLE_FILES = ["a.txt", "b.txt", "c.txt", "d.txt"] as const;

/** The commands of the noisy-output scenarios (run by opencode's bash tool in the project dir). */
export const PID_COMMAND = `sh -c 'echo "[$$] FATAL: lock file exists: $(mktemp -u)"'`;
export const BIG_OUTPUT_COMMAND = "seq 1 3000";
export const STATUS_COMMAND = "sh ./status.sh web-1";
export const DEPLOY_COMMAND = "./deploy.sh";
export const TEST_COMMAND = "sh ./test.sh";
export const POLL_COMMAND = "sh ./poll.sh 42";
export const SNAPSHOT_COMMAND = "cat page-dump.txt";

/** Final answers of the scenarios that end with one (the text the run must end on). */
export const FINAL_TEXT = {
  "double-compaction": "Both files are checked; nothing else to do.",
  "poll-with-eta": "Deployed: web-1 is live.",
  "finished-then-restarted": "All done: the typo is fixed.",
  "tdd-same-failure-between-edits": "Parts written; the test still fails on the missing parts, which the user must supply.",
  "unchanged-poll-one-cycle": "The job is still running after three polls; stopping as asked.",
  "reasoning-heavy-first-step": "The parser is implemented.",
  "compaction-reserved": "The seven steps are done.",
} as const;

/** The text every step of the text-only loops answers with. */
export const REPEATED_TEXT = "Still thinking about the approach.";

/** cjk-counted: the first message, CJK and emoji (~330 characters, ~1,000 UTF-8 bytes). */
export const CJK_PROMPT = `请阅读 notes-zh.md，逐条核对部署步骤，并把每一步的结果记录下来。🙏📝✨ ${"每一步都要仔细检查日志，遇到错误先停下来分析原因，再决定下一步怎么做。🔍🚦 ".repeat(8)}`;
/** The prompt `opencode run` gets, per scenario. */
export const PROMPTS: Record<ScenarioName, string> = {
  "fixed-point": "run echo hi",
  alternating: "run echo alpha, then read notes.txt, and keep going",
  reread: "read notes.txt",
  healthy: "run the eleven numbered steps",
  "repeat-with-progress": "run echo hi",
  "provider-overflow": "run echo hi",
  "four-read-cycle": "review the module in a.txt to d.txt",
  "back-to-back-compactions": "think hard about the design",
  "double-compaction": "check both files",
  "summary-over-line": "run the numbered steps",
  "pid-in-output": "start the db",
  "truncated-big-output": "build it",
  "poll-with-eta": "deploy web-1 and wait until it is live",
  "errored-repeat": "deploy",
  "same-text-stop": "design the schema",
  "same-text-no-finish": "design the schema",
  "finished-then-restarted": "fix the typo in README.md",
  "overflow-resend": "take a snapshot",
  "tdd-same-failure-between-edits": "make the tests pass",
  "unchanged-poll-one-cycle": "poll job 42 three times",
  "reasoning-heavy-first-step": "implement the parser",
  "compaction-reserved": "run the seven steps",
  subagent: "ask a subagent for the first line of notes.txt",
  "fixed-point-counted": "run echo hi",
  "healthy-counted": "print the twelve number ranges",
  "repeat-counted": "print the numbers",
  "mcp-tools-counted": "run echo hi",
  "cjk-counted": CJK_PROMPT,
  "big-tail-counted": "print the numbers",
  "reasoning-counted": "run echo hi",
  "input-limit-counted": "run echo hi",
  "subagent-counted": "ask a subagent to print the numbers",
  "tool-loop-echo": "say hi",
  "tool-loop-varied": "look around the project",
  "step-cost": "print the big file once per step",
  "host-hooks": "carry on with the remaining checks",
};

/** tool-loop scenarios: prompt tokens of every step, far under the 6000-token line (no compaction). */
export const TOOL_LOOP_PROMPT_TOKENS = 1000;
/** tool-loop-varied: three different calls, then the final answer. */
export const TOOL_LOOP_VARIED_CALLS = ["echo one", "echo two", "ls"] as const;
export const TOOL_LOOP_VARIED_FINAL_TEXT = "Looked around: one, two, and the file list.";

/** step-cost: the file every step prints, and its size in bytes (600 lines of 75 characters). */
export const STEP_COST_FILE = "big.txt";
export const STEP_COST_BYTES = 45_000;
/** step-cost: the steps after which the one automatic compaction comes (the step reports a prompt over the line). */
export const STEP_COST_COMPACT_AFTER = 2;

/** host-hooks: chat and continue requests before the final answer (which is one more). */
export const HOST_HOOKS_STEPS = 38;
/** host-hooks: the steps that report a prompt over the line, each followed by an automatic compaction. */
export const HOST_HOOKS_COMPACT_AFTER: readonly number[] = [8, 24];

/** A first prompt, answered with plain text, for runs that need an earlier real user turn. */
export const PRIOR_PROMPT = "say hello";
/** The model's answer to it. */
export const PRIOR_ANSWER = "Hello.";

/** The scripted title answer. */
export const TITLE_TEXT = "Fake title";

/** One tool call the fake model makes. `args` is the JSON object sent as `arguments`. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** Token counts of one answer, and how it ends. */
interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Reported as `completion_tokens_details.reasoning_tokens` (part of completionTokens). */
  reasoningTokens?: number;
  /** Hidden reasoning sent as `reasoning_content` before the answer (counted as reasoningTokens in counting mode). */
  reasoningText?: string;
  /**
   * The `finish_reason` sent; undefined = the usual one (`tool_calls` for a call, `stop`
   * otherwise); null = none at all (every chunk says `finish_reason: null`).
   */
  finishReason?: string | null;
}

/** What the server should send back for one request. Token counts in tokens. */
export type Reply =
  | ({ type: "tool-call"; call: ToolCall } & Usage)
  | ({ type: "text"; text: string } & Usage)
  /** An answer with no content at all (no text, no tool call), only the finish and usage. */
  | ({ type: "empty" } & Usage)
  | { type: "error"; status: number; body: unknown };

/** Counters the scenario sees when it answers a request. All counts are 1-based. */
export interface ScenarioState {
  /** How many chat + continue requests came so far, this one included. */
  step: number;
  /** How many compaction requests came so far (this one included, for a compaction). */
  compactions: number;
  /** Chat + continue requests since the last compaction request, this one included. */
  stepsSinceCompaction: number;
}

/** Inputs a scenario needs from the run: absolute paths in the project dir. */
export interface ScenarioContext {
  /** The file the `reread` and `alternating` scenarios read. */
  readPath: string;
  /** The project dir (opencode's working dir); the default is readPath's dir. */
  projectDir?: string;
}

/** What a scenario needs in its sandbox beyond the defaults. */
export interface ScenarioSetup {
  /** Files to write, relative to the project dir (a leading `+x ` in the content makes it executable). */
  files: Record<string, string>;
  /** Permission rules merged over the defaults (bash/read/edit/external_directory: allow). */
  permission?: Record<string, unknown>;
  /** opencode.json `compaction` settings. */
  compaction?: Record<string, unknown>;
  /** The fake model's limits (default MODEL_LIMITS). */
  limits: ModelLimits;
  /** More fields of the fake model's entry in opencode.json (e.g. `reasoning: true`). */
  model?: Record<string, unknown>;
  /** Local MCP servers: name → a file of the project that node runs (stdio). */
  mcpServers?: Record<string, string>;
}

/** Limits and reserved tokens of compaction-reserved: input limit 6500, reserved 500 → usable 6000 (default reserved: 4500). */
export const RESERVED_LIMITS: ModelLimits = { context: 8000, input: 6500, output: 2000 };
export const RESERVED_TOKENS = 500;

/**
 * The counted scenarios' limits: context 16,000, output 2,000 → usable 14,000 tokens. With
 * opencode 1.18.33's system prompt and tools (~7,600 counted tokens for the fake model) a
 * session has ~6,400 tokens to work in; the kept tail's budget is max(2,000, 14,000 / 4) = 3,500.
 */
export const COUNTED_LIMITS: ModelLimits = { context: 16000, output: 2000 };
/**
 * fixed-point-counted's AGENTS.md: 30,000 characters of instructions of the usual kind (paths,
 * commands, settings: ~7,500 tokens at 4 characters a token, 9,000–10,500 in the real
 * tokenizers), which opencode puts in the system prompt of every request: with the tools,
 * over the usable 14,000 tokens before any work, whatever a compaction does.
 */
export const BIG_AGENTS_MD = `# Project instructions\n\n${Array.from(
  { length: 222 },
  (_, i) =>
    `- \`src/module-${i}/index.ts\`: keep \`limit${i % 7}\` at 0.${i % 10}; run \`npx vitest run test/module-${i}\` before each commit (see CONTRIBUTING.md#tests).\n`,
).join("")}`;
/** healthy-counted and repeat-counted: each step prints this many numbers (~1,600 counted tokens of output). */
export const COUNTED_RANGE = 1300;
/** healthy-counted: the model answers with its final text on this chat step (1-based). */
export const COUNTED_FINAL_STEP = 13;
export const COUNTED_FINAL_TEXT = "All twelve ranges are printed.";

/** big-tail-counted: each step prints this many numbers (~14,000 characters of output). */
export const BIG_TAIL_RANGE = 3000;

/** input-limit-counted: a model with an input limit; with reserved 2,000, usable 16,000 − 2,000 = 14,000 tokens. */
export const INPUT_LIMITS: ModelLimits = { context: 32000, input: 16000, output: 2000 };
export const INPUT_LIMIT_RESERVED = 2000;

/** cjk-counted: the file each step reads. */
export const CJK_FILE = "notes-zh.md";
/** cjk-counted: its content, ~2,900 characters of CJK and emoji (~8,000 UTF-8 bytes). */
export const CJK_NOTES = `# 部署笔记 📋\n\n${"部署流程：先运行测试，再构建镜像，然后推送到仓库。🚀✅ 注意：日志里的每一个错误都需要逐条检查，不能跳过。📋🔍 回滚方案：保留上一个版本的镜像标签。🔁🗂️\n".repeat(36)}`;

/** mcp-tools-counted: the stdio MCP server's file in the project. */
export const MCP_SERVER_FILE = "mcp-tools.cjs";
/** mcp-tools-counted: how many tools it lists. */
export const MCP_TOOL_COUNT = 40;

/** One MCP tool as `tools/list` returns it. */
interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** 40 tools in the shape MCP servers list them: a paragraph of description, four typed properties each. */
export const MCP_TOOLS: readonly McpTool[] = Array.from({ length: MCP_TOOL_COUNT }, (_, i) => {
  const verb = ["search", "fetch", "list", "update", "create", "delete", "describe", "export"][i % 8]!;
  const noun = ["issues", "pages", "tables", "users", "deployments"][Math.floor(i / 8)]!;
  return {
    name: `${verb}_${noun}`,
    description:
      `${verb[0]!.toUpperCase()}${verb.slice(1)} ${noun} in the workspace. Use this tool when the user asks about ${noun}; ` +
      `results are paginated, newest first, and each item carries its id, title, owner, labels and the time it last changed. ` +
      `Prefer narrow filters: a broad query over a large workspace is slow and its results are cut to the page size. ` +
      `Errors name the field that was wrong; retry with a corrected value instead of the same call.`,
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: `Free text matched against the ${noun}' titles and bodies.` },
        owner: { type: "string", description: "Only items owned by this user (login name)." },
        limit: { type: "integer", minimum: 1, maximum: 100, description: "Page size, 1 to 100 (default 20)." },
        cursor: { type: "string", description: "The cursor of the previous page, to read the next one." },
      },
      required: ["query"],
      additionalProperties: false,
    },
  };
});

/** A minimal MCP server over stdio (newline-delimited JSON-RPC): initialize, tools/list, tools/call. */
export function mcpServerSource(tools: readonly McpTool[]): string {
  return [
    'const { createInterface } = require("node:readline");',
    `const tools = ${JSON.stringify(tools)};`,
    'const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");',
    'createInterface({ input: process.stdin }).on("line", (line) => {',
    "  let m; try { m = JSON.parse(line); } catch { return; }",
    "  if (m.id === undefined) return;",
    '  if (m.method === "initialize") send({ id: m.id, result: { protocolVersion: m.params?.protocolVersion ?? "2024-11-05", capabilities: { tools: {} }, serverInfo: { name: "docs", version: "1.0.0" } } });',
    '  else if (m.method === "tools/list") send({ id: m.id, result: { tools } });',
    '  else if (m.method === "tools/call") send({ id: m.id, result: { content: [{ type: "text", text: "no results" }] } });',
    '  else if (m.method === "ping") send({ id: m.id, result: {} });',
    '  else send({ id: m.id, error: { code: -32601, message: "method not found" } });',
    "});",
    "",
  ].join("\n");
}

/** reasoning-counted: the hidden reasoning of every answer (~700 characters). */
export const REASONING_TEXT = `The user wants the command run. ${"I should check what the summary says was done, then decide whether running it again adds anything. ".repeat(7)}`;

/** The sandbox setup of a scenario. */
export function scenarioSetup(scenario: ScenarioName): ScenarioSetup {
  const base: ScenarioSetup = { files: {}, limits: { ...MODEL_LIMITS } };
  switch (scenario) {
    case "four-read-cycle":
      return { ...base, files: Object.fromEntries(CYCLE_FILES.map((f) => [f, `contents of ${f}\nexport const ${f[0]} = 1;\n`])) };
    case "double-compaction":
      return { ...base, files: { "a.txt": "contents of a.txt\n", "b.txt": "contents of b.txt\n" } };
    case "poll-with-eta":
      return {
        ...base,
        files: {
          ".deploy-eta": "5\n",
          "status.sh": [
            "n=$(cat .deploy-eta)",
            'if [ "$n" -le 0 ]; then echo "deploy $1: live"; exit 0; fi',
            'echo "deploy $1: rolling, about $n minutes remaining"',
            "echo $((n - 1)) > .deploy-eta",
            "",
          ].join("\n"),
        },
      };
    case "errored-repeat":
      return {
        ...base,
        files: { "deploy.sh": "+x #!/bin/sh\necho deployed\n" },
        permission: { bash: { "*": "allow", [DEPLOY_COMMAND]: "deny" } },
      };
    case "finished-then-restarted":
      return { ...base, files: { "README.md": "# Project\n\nThis is teh readme.\n" } };
    case "overflow-resend":
      return { ...base, files: { "page-dump.txt": "<html><body>huge page dump</body></html>\n" } };
    case "tdd-same-failure-between-edits":
      return {
        ...base,
        files: { "test.sh": 'echo "FAIL test/all.test.ts"\necho "  1 failing: expected 10 parts, found none in src/parts.txt"\nexit 1\n' },
      };
    case "unchanged-poll-one-cycle":
      return { ...base, files: { "poll.sh": 'echo "job $1: running"\n' } };
    case "compaction-reserved":
      return { ...base, limits: { ...RESERVED_LIMITS }, compaction: { reserved: RESERVED_TOKENS } };
    case "step-cost":
    case "host-hooks":
      return { ...base, files: { [STEP_COST_FILE]: `${"x".repeat(STEP_COST_BYTES / 600 - 1)}\n`.repeat(600) } };
    case "fixed-point-counted":
      return { ...base, files: { "AGENTS.md": BIG_AGENTS_MD }, limits: { ...COUNTED_LIMITS } };
    case "healthy-counted":
    case "repeat-counted":
    case "big-tail-counted":
    case "subagent-counted":
      return { ...base, limits: { ...COUNTED_LIMITS } };
    case "mcp-tools-counted":
      return {
        ...base,
        files: { [MCP_SERVER_FILE]: mcpServerSource(MCP_TOOLS) },
        mcpServers: { docs: MCP_SERVER_FILE },
        limits: { ...COUNTED_LIMITS },
      };
    case "cjk-counted":
      return { ...base, files: { [CJK_FILE]: CJK_NOTES }, limits: { ...COUNTED_LIMITS } };
    case "reasoning-counted":
      return { ...base, files: { "AGENTS.md": BIG_AGENTS_MD }, limits: { ...COUNTED_LIMITS }, model: { reasoning: true } };
    case "input-limit-counted":
      return {
        ...base,
        files: { "AGENTS.md": BIG_AGENTS_MD },
        limits: { ...INPUT_LIMITS },
        compaction: { reserved: INPUT_LIMIT_RESERVED },
      };
    default:
      return base;
  }
}

const bash = (command: string): ToolCall => ({ name: "bash", args: { command, description: command } });
const read = (filePath: string): ToolCall => ({ name: "read", args: { filePath } });
const write = (filePath: string, content: string): ToolCall => ({ name: "write", args: { filePath, content } });
const edit = (filePath: string, oldString: string, newString: string): ToolCall => ({
  name: "edit",
  args: { filePath, oldString, newString },
});

/** A summary like the fixture's: plain text that ends suggesting the same next step. */
function summary(n: number, what: string, next: string, promptTokens = 300): Reply {
  return {
    type: "text",
    text: `SUMMARY #${n}: the user asked to ${what}. Next step: ${next}.`,
    promptTokens,
    completionTokens: 30,
  };
}

/** An OpenAI-style context-length error body, as OpenAI returns it with HTTP 400. */
export const CONTEXT_LENGTH_ERROR = {
  error: {
    message:
      "This model's maximum context length is 8000 tokens. However, your messages resulted in 9100 tokens. Please reduce the length of the messages.",
    type: "invalid_request_error",
    param: "messages",
    code: "context_length_exceeded",
  },
};

/**
 * Prompt tokens of a step whose context grows with each step and is cut by each compaction:
 * 2000, 3500, 5000, 6500 (over the 6000 line, so opencode compacts), then 2000 again.
 */
export function healthyPromptTokens(s: ScenarioState): number {
  return HEALTHY_BASE_TOKENS + HEALTHY_STEP_TOKENS * (s.stepsSinceCompaction - 1);
}

/** A tool call on the healthy growth curve (compaction after every 4th step since the last). */
const growing = (call: ToolCall, s: ScenarioState): Extract<Reply, { type: "tool-call" }> => ({
  type: "tool-call",
  call,
  promptTokens: healthyPromptTokens(s),
  completionTokens: STEP_COMPLETION_TOKENS,
});

/** A final text answer, with a prompt well under the line. */
const final = (text: string, promptTokens = HEALTHY_BASE_TOKENS): Reply => ({ type: "text", text, promptTokens, completionTokens: 15 });

/** back-to-back scenarios: the empty step's prompt and (hidden reasoning) output: 4200 + 2000 = 6200 ≥ 6000. */
export const EMPTY_STEP_PROMPT_TOKENS = 4200;
export const EMPTY_STEP_COMPLETION_TOKENS = 2000;
/**
 * back-to-back scenarios: the first step, a tool call over the line by its prompt and output
 * (4,200 + 2,000). Its prompt is no larger than the empty steps' after it: a first step
 * carries the system prompt and the tools, which every later step carries too.
 */
const FIRST_STEP_OVER_LINE = { promptTokens: EMPTY_STEP_PROMPT_TOKENS, completionTokens: EMPTY_STEP_COMPLETION_TOKENS } as const;
/** An answer with nothing in it: the whole output budget went to hidden reasoning (`length`). */
const emptyOverLine = (): Reply => ({
  type: "empty",
  promptTokens: EMPTY_STEP_PROMPT_TOKENS,
  completionTokens: EMPTY_STEP_COMPLETION_TOKENS,
  reasoningTokens: EMPTY_STEP_COMPLETION_TOKENS,
  finishReason: "length",
});

/** reasoning-heavy-first-step: the prompt/completion of each step of a cycle (5 steps, the 5th over the line). */
export const REASONING_CYCLE: ReadonlyArray<{ prompt: number; completion: number }> = [
  { prompt: 2000, completion: 3900 },
  { prompt: 3600, completion: 50 },
  { prompt: 4400, completion: 50 },
  { prompt: 5200, completion: 50 },
  { prompt: 6050, completion: 50 },
];

/** compaction-reserved: prompt tokens of each step of a cycle (3 steps, the 3rd over the 6000 line). */
export const RESERVED_CYCLE = [5000, 5500, 6100] as const;

/** subagent: the `task` tool call the parent makes (opencode 1.18.33's task tool: description, prompt, subagent_type). */
export const SUBAGENT_TASK = {
  description: "Read the notes",
  prompt: "Read notes.txt and report its first line.",
  subagent_type: "general",
} as const;
/** subagent: the child's answer (after its one compaction) and the parent's final answer. */
export const SUBAGENT_CHILD_ANSWER = "The first line of notes.txt is: line one of the notes.";
export const SUBAGENT_FINAL_TEXT = "The subagent reports: line one of the notes.";
/** subagent-counted: the parent's task call. */
export const SUBAGENT_COUNTED_TASK = {
  description: "Print the numbers",
  prompt: "Print the numbers 1 to 1300 with seq and report the last one.",
  subagent_type: "general",
} as const;

/**
 * The reply of `scenario` to a chat or continue request (tools offered).
 * @returns a tool call or final text, with the prompt/completion tokens to report.
 */
export function chatReply(scenario: ScenarioName, s: ScenarioState, ctx: ScenarioContext): Reply {
  const project = ctx.projectDir ?? ctx.readPath.slice(0, ctx.readPath.lastIndexOf("/"));
  const inProject = (name: string) => `${project}/${name}`;
  const loop = (call: ToolCall): Extract<Reply, { type: "tool-call" }> => ({
    type: "tool-call",
    call,
    promptTokens: LOOP_PROMPT_TOKENS,
    completionTokens: STEP_COMPLETION_TOKENS,
  });
  const n = s.stepsSinceCompaction;
  switch (scenario) {
    case "fixed-point":
      return loop(bash("echo hi"));
    case "alternating":
      return loop(s.step % 2 === 1 ? bash("echo alpha") : read(ctx.readPath));
    case "reread":
      return loop(read(ctx.readPath));
    case "healthy": {
      const promptTokens = healthyPromptTokens(s);
      if (s.step >= HEALTHY_FINAL_STEP) {
        return { type: "text", text: HEALTHY_FINAL_TEXT, promptTokens, completionTokens: 15 };
      }
      return { type: "tool-call", call: bash(`echo step-${s.step}`), promptTokens, completionTokens: STEP_COMPLETION_TOKENS };
    }
    case "repeat-with-progress":
      return growing(bash("echo hi"), s);
    case "tool-loop-echo":
      // The same echo every step, the context far from full: no compaction ever comes.
      return { type: "tool-call", call: bash("echo hi"), promptTokens: TOOL_LOOP_PROMPT_TOKENS, completionTokens: STEP_COMPLETION_TOKENS };
    case "tool-loop-varied": {
      if (s.step > TOOL_LOOP_VARIED_CALLS.length) return final(TOOL_LOOP_VARIED_FINAL_TEXT, TOOL_LOOP_PROMPT_TOKENS);
      return {
        type: "tool-call",
        call: bash(TOOL_LOOP_VARIED_CALLS[s.step - 1]!),
        promptTokens: TOOL_LOOP_PROMPT_TOKENS,
        completionTokens: STEP_COMPLETION_TOKENS,
      };
    }
    case "step-cost":
      return {
        type: "tool-call",
        call: bash(`cat ${STEP_COST_FILE}; echo step-${s.step}`),
        promptTokens: s.step === STEP_COST_COMPACT_AFTER && s.compactions === 0 ? LOOP_PROMPT_TOKENS : TOOL_LOOP_PROMPT_TOKENS,
        completionTokens: STEP_COMPLETION_TOKENS,
      };
    case "host-hooks": {
      if (s.step > HOST_HOOKS_STEPS) return final("The remaining checks are done.", TOOL_LOOP_PROMPT_TOKENS);
      const calls = [
        bash(`cat ${STEP_COST_FILE}; echo step-${s.step}`),
        { name: "read", args: { filePath: inProject(STEP_COST_FILE), offset: s.step, limit: 40 } },
        bash(`seq ${s.step} ${s.step + 2000}`),
        bash(`ls -la; echo step-${s.step}`),
      ];
      return {
        type: "tool-call",
        call: calls[(s.step - 1) % calls.length]!,
        promptTokens: HOST_HOOKS_COMPACT_AFTER.includes(s.step) ? LOOP_PROMPT_TOKENS : TOOL_LOOP_PROMPT_TOKENS,
        completionTokens: STEP_COMPLETION_TOKENS,
      };
    }
    case "provider-overflow":
      return { type: "error", status: 400, body: CONTEXT_LENGTH_ERROR };

    case "four-read-cycle":
      return growing(read(inProject(CYCLE_FILES[(n - 1) % CYCLE_FILES.length]!)), s);
    case "back-to-back-compactions":
      // One normal step over the line, then only empty steps over the line.
      // The first step is over the line by its output, as the empty steps are: its prompt (system
      // prompt, tools and the user's words) cannot be larger than any later step's (src/judge/predict.ts).
      return s.compactions === 0 ? { ...growing(bash("ls"), s), ...FIRST_STEP_OVER_LINE } : emptyOverLine();
    case "double-compaction":
      // A step over the line, one empty step over the line (the double fire), then normal work.
      if (s.compactions === 0) return { ...growing(read(inProject("a.txt")), s), ...FIRST_STEP_OVER_LINE };
      if (s.compactions === 1) return emptyOverLine();
      return n === 1 ? growing(read(inProject("b.txt")), s) : final(FINAL_TEXT["double-compaction"], 3500);
    case "summary-over-line":
      // Healthy steps (a different call each); only the summaries report a prompt over the line.
      return s.step >= 7 ? final("done") : growing(bash(`echo step-${s.step}`), s);
    case "pid-in-output":
      return growing(bash(PID_COMMAND), s);
    case "truncated-big-output":
      return growing(bash(BIG_OUTPUT_COMMAND), s);
    case "poll-with-eta":
      // 5, 4, 3, 2 minutes (compaction), 1 minute, live, then the answer.
      return s.step >= 7 ? final(FINAL_TEXT["poll-with-eta"], healthyPromptTokens(s)) : growing(bash(STATUS_COMMAND), s);
    case "errored-repeat":
      return growing(bash(DEPLOY_COMMAND), s);
    case "same-text-stop":
      return { type: "text", text: REPEATED_TEXT, promptTokens: 6500, completionTokens: 15 };
    case "same-text-no-finish":
      return { type: "text", text: REPEATED_TEXT, promptTokens: healthyPromptTokens(s), completionTokens: 15, finishReason: null };
    case "finished-then-restarted": {
      // read, edit, final answer (over the line); after a compaction the same again.
      const readme = inProject("README.md");
      if (n === 1) return growing(read(readme), s);
      if (n === 2) return growing(edit(readme, "teh", "the"), s);
      return { type: "text", text: FINAL_TEXT["finished-then-restarted"], promptTokens: 6500, completionTokens: 15 };
    }
    case "overflow-resend":
      // Each cycle: one call, then the provider refuses the next request as too long.
      return n % 2 === 1
        ? { type: "tool-call", call: bash(SNAPSHOT_COMMAND), promptTokens: 3000, completionTokens: STEP_COMPLETION_TOKENS }
        : { type: "error", status: 400, body: CONTEXT_LENGTH_ERROR };
    case "tdd-same-failure-between-edits": {
      // write part k (new file), run the tests (same failure) … the 10th step answers.
      if (s.step >= 10) return final(FINAL_TEXT["tdd-same-failure-between-edits"], healthyPromptTokens(s));
      const part = Math.ceil(s.step / 2);
      return growing(s.step % 2 === 1 ? write(inProject(`src/part${part}.txt`), `part ${part}\n`) : bash(TEST_COMMAND), s);
    }
    case "unchanged-poll-one-cycle":
      // Three polls (2000, 4000, 6500: over the line), then the answer after the compaction.
      if (s.compactions >= 1) return final(FINAL_TEXT["unchanged-poll-one-cycle"]);
      return {
        type: "tool-call",
        call: bash(POLL_COMMAND),
        promptTokens: [2000, 4000, 6500][n - 1] ?? 6500,
        completionTokens: STEP_COMPLETION_TOKENS,
      };
    case "reasoning-heavy-first-step": {
      // Two full cycles of 5 steps (distinct calls), then the answer; the first step of the
      // run and after each compaction (the answer too) thinks hard.
      const t = REASONING_CYCLE[(n - 1) % REASONING_CYCLE.length]!;
      const heavy = t.completion > 1000;
      if (s.compactions >= 2) {
        return {
          type: "text",
          text: FINAL_TEXT["reasoning-heavy-first-step"],
          promptTokens: t.prompt,
          completionTokens: t.completion,
          reasoningTokens: t.completion - 100,
        };
      }
      return {
        type: "tool-call",
        call: bash(`echo part-${s.compactions}${"abcde"[(n - 1) % 5]}`),
        promptTokens: t.prompt,
        completionTokens: t.completion,
        ...(heavy ? { reasoningTokens: t.completion - 100 } : {}),
      };
    }
    case "compaction-reserved":
      if (s.step >= 7) return final(FINAL_TEXT["compaction-reserved"], RESERVED_CYCLE[0]);
      return {
        type: "tool-call",
        call: bash(`echo step-${s.step}`),
        promptTokens: RESERVED_CYCLE[(n - 1) % RESERVED_CYCLE.length]!,
        completionTokens: STEP_COMPLETION_TOKENS,
      };
    case "subagent":
      // Requests come one at a time: the parent's task call (1), the child session's step
      // over the line (2: one compaction of the child), the child's answer after its
      // continue turn (3), then the parent's final answer with the task's result (4).
      if (s.step === 1)
        return { type: "tool-call", call: { name: "task", args: { ...SUBAGENT_TASK } }, promptTokens: 1000, completionTokens: 20 };
      // The child's step is over the line by its output, its prompt (the child's system prompt,
      // tools and task) no larger than the prompt of its answer after the compaction.
      if (s.step === 2) return { ...loop(bash("echo child")), ...FIRST_STEP_OVER_LINE };
      if (s.step === 3) return final(SUBAGENT_CHILD_ANSWER, EMPTY_STEP_PROMPT_TOKENS);
      return final(SUBAGENT_FINAL_TEXT, 1500);
    // Counted scenarios: the server replaces these figures with what the requests carry.
    case "fixed-point-counted":
      return loop(bash("echo hi"));
    case "healthy-counted":
      if (s.step >= COUNTED_FINAL_STEP) return final(COUNTED_FINAL_TEXT);
      return loop(bash(`seq ${s.step} ${s.step + COUNTED_RANGE - 1}`));
    case "repeat-counted":
      return loop(bash(`seq 1 ${COUNTED_RANGE}`));
    case "mcp-tools-counted":
    case "input-limit-counted":
      return loop(bash("echo hi"));
    case "cjk-counted":
      return loop(bash(`cat ${CJK_FILE}`));
    case "big-tail-counted":
      return loop(bash(`seq 1 ${BIG_TAIL_RANGE}`));
    case "reasoning-counted":
      return { ...loop(bash("echo hi")), reasoningText: REASONING_TEXT };
    case "subagent-counted":
      // The parent's task call, then the subagent's steps until the server's cap.
      if (s.step === 1) return loop({ name: "task", args: { ...SUBAGENT_COUNTED_TASK } });
      return loop(bash(`seq 1 ${COUNTED_RANGE}`));
  }
}

/**
 * A summary of about 830 characters (~210 counted tokens) in a compaction agent's template: for
 * the counted scenarios, where the summary's size is part of what is measured.
 */
function longSummary(n: number, what: string, next: string): Extract<Reply, { type: "text" }> {
  const text = [
    `SUMMARY #${n}`,
    `## Goal\nThe user asked to ${what}.`,
    `## Discoveries\n${"The commands ran in the project directory and printed what was expected; nothing failed. ".repeat(8)}`,
    `## Next step\n${next}.`,
  ].join("\n\n");
  return { type: "text", text, promptTokens: 300, completionTokens: 300 };
}

/**
 * The reply of `scenario` to a compaction (summarisation) request.
 * @returns summary text; its tokens measure the summary request only.
 */
export function compactionReply(scenario: ScenarioName, s: ScenarioState): Reply {
  switch (scenario) {
    case "fixed-point":
      return summary(s.compactions, "run echo hi repeatedly; it printed hi", "run echo hi again");
    case "alternating":
      return summary(s.compactions, "run echo alpha and read notes.txt in turn", "do both again");
    case "reread":
      return summary(s.compactions, "look at notes.txt; it was read", "read notes.txt again");
    case "healthy":
      return summary(s.compactions, "run eleven numbered steps", `continue with step ${s.step + 1}`);
    case "repeat-with-progress":
      return summary(s.compactions, "run echo hi; it printed hi each time", "run echo hi again");
    case "provider-overflow":
      return summary(s.compactions, "run a command; the context was too long", "run it again");
    case "summary-over-line":
      // The summary request itself reports a prompt over the usable line.
      return summary(s.compactions, "run numbered steps", `continue with step ${s.step + 1}`, 7000);
    case "fixed-point-counted":
      return longSummary(s.compactions, "run echo hi; it printed hi", "run echo hi again");
    case "healthy-counted":
      return longSummary(s.compactions, "print twelve ranges of numbers with seq", `print range ${s.step + 1}`);
    case "repeat-counted":
    case "big-tail-counted":
    case "subagent-counted":
      return longSummary(s.compactions, "print the numbers with seq", "print them again");
    case "mcp-tools-counted":
    case "input-limit-counted":
      return longSummary(s.compactions, "run echo hi; it printed hi", "run echo hi again");
    case "cjk-counted":
      return longSummary(s.compactions, "read notes-zh.md and check the deployment steps", "read it again");
    case "reasoning-counted":
      return { ...longSummary(s.compactions, "run echo hi; it printed hi", "run echo hi again"), reasoningText: REASONING_TEXT };
    default:
      return summary(s.compactions, PROMPTS[scenario], "carry on where the work stopped");
  }
}

/** The reply to a title request, the same for every scenario. */
export function titleReply(): Reply {
  return { type: "text", text: TITLE_TEXT, promptTokens: 50, completionTokens: 5 };
}

/** The reply to the warm-up prompt of a two-turn run: plain text that ends the turn. */
export function priorReply(): Reply {
  return { type: "text", text: PRIOR_ANSWER, promptTokens: 100, completionTokens: 5 };
}

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
 * Token figures are chosen against the model limits the harness configures
 * (context 8000, output 2000 → opencode's usable context is 6000 tokens): a step that
 * reports `prompt_tokens + completion_tokens >= 6000` makes opencode compact.
 */

/** The scenarios the fake model server can play. */
export const SCENARIOS = ["fixed-point", "alternating", "reread", "healthy", "repeat-with-progress", "provider-overflow"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** How the server classified a request (see `classifyRequest` in model-server.ts). */
export type RequestKind = "title" | "compaction" | "continue" | "chat";

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

/** The prompt `opencode run` gets, per scenario. */
export const PROMPTS: Record<ScenarioName, string> = {
  "fixed-point": "run echo hi",
  alternating: "run echo alpha, then read notes.txt, and keep going",
  reread: "read notes.txt",
  healthy: "run the eleven numbered steps",
  "repeat-with-progress": "run echo hi",
  "provider-overflow": "run echo hi",
};

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

/** What the server should send back for one request. Token counts in tokens. */
export type Reply =
  | { type: "tool-call"; call: ToolCall; promptTokens: number; completionTokens: number }
  | { type: "text"; text: string; promptTokens: number; completionTokens: number }
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

/** Inputs a scenario needs from the run: the absolute path of the file to read. */
export interface ScenarioContext {
  readPath: string;
}

const bash = (command: string): ToolCall => ({ name: "bash", args: { command, description: command } });
const read = (filePath: string): ToolCall => ({ name: "read", args: { filePath } });

/** A summary like the fixture's: plain text that ends suggesting the same next step. */
function summary(n: number, what: string, next: string): Reply {
  return {
    type: "text",
    text: `SUMMARY #${n}: the user asked to ${what}. Next step: ${next}.`,
    promptTokens: 300,
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

/**
 * The reply of `scenario` to a chat or continue request (tools offered).
 * @returns a tool call or final text, with the prompt/completion tokens to report.
 */
export function chatReply(scenario: ScenarioName, s: ScenarioState, ctx: ScenarioContext): Reply {
  const loop = (call: ToolCall): Reply => ({
    type: "tool-call",
    call,
    promptTokens: LOOP_PROMPT_TOKENS,
    completionTokens: STEP_COMPLETION_TOKENS,
  });
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
      return { type: "tool-call", call: bash("echo hi"), promptTokens: healthyPromptTokens(s), completionTokens: STEP_COMPLETION_TOKENS };
    case "provider-overflow":
      return { type: "error", status: 400, body: CONTEXT_LENGTH_ERROR };
  }
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

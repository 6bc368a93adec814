/**
 * A small builder of opencode 1.18.33 session histories, in the exact shapes
 * `opencode export` writes (see fixtures/opencode-1.18.33-loop-bash.json).
 */

export interface ToolSpec {
  tool: string;
  input: unknown;
  /** The output of a completed call; of a failed one, its error (default "failed"). */
  output?: unknown;
  status?: "completed" | "error" | "pending" | "running";
}

/**
 * A step's tokens: a context size (total = input = size, output 0, so that the prompt size
 * and opencode's overflow measure agree), raw fields, or none.
 */
export type TokenSpec = number | Record<string, unknown> | null;

export interface Message {
  info: Record<string, unknown>;
  parts: Array<Record<string, unknown>>;
}

const CONTINUE = "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.";

function tokensOf(spec: TokenSpec): Record<string, unknown> | undefined {
  if (spec === null) return undefined;
  if (typeof spec !== "number") return spec;
  return { total: spec, input: spec, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };
}

export class SessionBuilder {
  readonly messages: Message[] = [];
  private seq = 0;
  private lastUser = "";
  private readonly sessionID: string;

  /** `tag` goes before each id's number: messages of two builders sort apart by id. */
  constructor(
    sessionID = "ses_test",
    private readonly tag = "",
  ) {
    this.sessionID = sessionID;
  }

  private id(prefix: string): string {
    this.seq += 1;
    return `${prefix}_${this.tag}${String(this.seq).padStart(4, "0")}`;
  }

  private part(messageID: string, part: Record<string, unknown>): Record<string, unknown> {
    return { id: this.id("prt"), sessionID: this.sessionID, messageID, ...part };
  }

  private pushUser(parts: Array<Record<string, unknown>>): string {
    const id = this.id("msg");
    this.messages.push({
      info: { id, sessionID: this.sessionID, role: "user", agent: "build", time: { created: this.seq } },
      parts: parts.map((p) => this.part(id, p)),
    });
    this.lastUser = id;
    return id;
  }

  /** A real user message (typed by a person). */
  user(text = "do the task"): this {
    this.pushUser([{ type: "text", text }]);
    return this;
  }

  /** One build-agent step: `content` between step-start and step-finish, with `finish` and tokens. */
  private pushStep(finish: string, tokens: TokenSpec, content: (id: string) => Array<Record<string, unknown>>): this {
    const id = this.id("msg");
    const t = tokensOf(tokens);
    this.messages.push({
      info: {
        id,
        sessionID: this.sessionID,
        role: "assistant",
        parentID: this.lastUser,
        agent: "build",
        mode: "build",
        finish,
        ...(t ? { tokens: t } : {}),
      },
      parts: [
        this.part(id, { type: "step-start" }),
        ...content(id).map((part) => this.part(id, part)),
        this.part(id, { type: "step-finish", reason: finish, ...(t ? { tokens: t } : {}) }),
      ],
    });
    return this;
  }

  /** One assistant step with the given tool parts and context size. */
  step(tools: ToolSpec[] | ToolSpec, tokens: TokenSpec = 7020): this {
    const list = Array.isArray(tools) ? tools : [tools];
    return this.pushStep("tool-calls", tokens, () =>
      list.map((spec, i) => ({
        type: "tool",
        tool: spec.tool,
        callID: `call_${this.seq}_${i}`,
        state: {
          status: spec.status ?? "completed",
          input: spec.input,
          ...((spec.status ?? "completed") === "completed" ? { output: spec.output ?? "ok\n" } : {}),
          ...(spec.status === "error" ? { error: typeof spec.output === "string" ? spec.output : "failed" } : {}),
        },
      })),
    );
  }

  /**
   * One assistant step with text only: a final answer (`finish: "stop"`) by default, or a
   * step that did not end the turn (`"unknown"`, `"length"` …).
   */
  say(text: string, tokens: TokenSpec = 7020, finish = "stop"): this {
    return this.pushStep(finish, tokens, () => [{ type: "text", text }]);
  }

  /** A step of reasoning alone: a reasoning model whose hidden thinking used up the output (`finish: "length"`). */
  think(tokens: TokenSpec = 7020): this {
    return this.pushStep("length", tokens, () => [{ type: "reasoning", text: "Let me think about the next step." }]);
  }

  /** A request the provider refused as over its context: an assistant message with no parts and zero tokens. */
  refused(): this {
    const id = this.id("msg");
    this.messages.push({
      info: {
        id,
        sessionID: this.sessionID,
        role: "assistant",
        parentID: this.lastUser,
        agent: "build",
        mode: "build",
        tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      },
      parts: [],
    });
    return this;
  }

  /**
   * A compaction cycle: the compaction user message, the summary, and (for an automatic
   * compaction, unless `continueTurn` is false) the synthetic continue turn. `overflow`:
   * set off by a provider context-overflow error.
   */
  compact(options: { auto?: boolean; failed?: boolean; continueTurn?: boolean; overflow?: boolean } = {}): this {
    const auto = options.auto ?? true;
    const compactionID = this.pushUser([{ type: "compaction", auto, overflow: options.overflow ?? false }]);
    const id = this.id("msg");
    this.messages.push({
      info: {
        id,
        sessionID: this.sessionID,
        role: "assistant",
        parentID: compactionID,
        summary: true,
        agent: "compaction",
        mode: "compaction",
        tokens: tokensOf(330),
        ...(options.failed ? { error: { name: "APIError", data: { message: "boom" } } } : { finish: "stop" }),
      },
      parts: [this.part(id, { type: "text", text: "SUMMARY: next step: run it again." })],
    });
    if (auto && !options.failed && options.continueTurn !== false) {
      this.pushUser([{ type: "text", text: CONTINUE, synthetic: true, metadata: { compaction_continue: true } }]);
    }
    return this;
  }

  /** `{ info, messages }` as `opencode export` writes it. */
  export(): { info: Record<string, unknown>; messages: Message[] } {
    return { info: { id: this.sessionID, version: "1.18.33" }, messages: this.messages };
  }
}

/** A bash tool spec. */
export const bash = (command: string, output = "ok\n"): ToolSpec => ({
  tool: "bash",
  input: { command, description: "run" },
  output,
});

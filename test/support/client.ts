/** A fake of the v1 SDK client surface the plugin uses, recording every call. */
import { vi } from "vitest";

/** The body of a `session.prompt` call as the guard sends it. */
export interface PromptBody {
  noReply?: boolean;
  agent?: string;
  model?: { providerID: string; modelID: string };
  variant?: string;
  parts: Array<{
    type: string;
    text?: string;
    synthetic?: boolean;
    ignored?: boolean;
    metadata?: Record<string, unknown>;
    time?: { start: number; end?: number };
  }>;
}

export interface LogBody {
  service: string;
  level: string;
  message: string;
  extra?: Record<string, unknown>;
}

/**
 * @param messages answers `session.messages` (given its `query`).
 * @param config answers `config.get` (opencode's merged config, `{ data: Config }`); by
 *   default a config that sets nothing, so opencode's defaults (`compaction.reserved`) apply.
 */
export function fakeClient(
  messages: (query: { limit?: number }) => unknown,
  config: () => unknown = () => ({ data: {} }),
  title: string | undefined = undefined,
) {
  /** Every log line but the start-up line (`compaction-guard <version> loaded: …`), which goes to `startup`. */
  const logs: LogBody[] = [];
  const startup: LogBody[] = [];
  const toasts: Array<{ title?: string; message: string; variant: string }> = [];
  /** Every `session.prompt` call: the session and the body (the guard's notes, `noReply`). */
  const prompts: Array<{ sessionID: string; body: PromptBody }> = [];
  const client = {
    session: {
      messages: vi.fn(async (options: { path: { id: string }; query?: { limit?: number } }) => messages(options.query ?? {})),
      get: vi.fn(async (options: { path: { id: string } }) => ({ data: { id: options.path.id, title } })),
      prompt: vi.fn(async (options: { path: { id: string }; body: PromptBody }) => {
        prompts.push({ sessionID: options.path.id, body: options.body });
        return { data: { info: { id: "msg_note", sessionID: options.path.id, role: "user" }, parts: options.body.parts } };
      }),
    },
    config: {
      get: vi.fn(async () => config()),
    },
    app: {
      log: vi.fn(async (options: { body: LogBody }) => {
        (/^compaction-guard \S+ loaded: /.test(options.body.message) ? startup : logs).push(options.body);
        return { data: true };
      }),
    },
    tui: {
      showToast: vi.fn(async (options: { body: { title?: string; message: string; variant: string } }) => {
        toasts.push(options.body);
        return { data: true };
      }),
    },
  };
  return { client, logs, startup, toasts, prompts };
}

/**
 * A `session.messages` answer as opencode 1.18.33 gives it: `query.limit` selects the
 * newest N messages, still oldest first (checked against the real binary).
 */
export const newestMessages =
  (messages: readonly unknown[]) =>
  (query: { limit?: number }): { data: unknown[] } => ({
    data: query.limit === undefined ? [...messages] : messages.slice(Math.max(0, messages.length - query.limit)),
  });

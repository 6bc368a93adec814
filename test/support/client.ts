/** A fake of the v1 SDK client surface the plugin uses, recording every call. */
import { vi } from "vitest";

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
  const client = {
    session: {
      messages: vi.fn(async (options: { path: { id: string }; query?: { limit?: number } }) =>
        messages(options.query ?? {}),
      ),
      get: vi.fn(async (options: { path: { id: string } }) => ({ data: { id: options.path.id, title } })),
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
  return { client, logs, startup, toasts };
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

import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { auditSessions } from "../../src/audit/audit.js";
import { exportFiles } from "../../src/sources/sources.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { ANSWERED, STATS_MAX_LISTED } from "../../src/plugin/opencode-v1/command.js";
import { createGuard } from "../../src/plugin/opencode-v1/guard.js";
import { projectStats, statsText, statsUnreadableLine, STATS_MAX_SESSIONS, type StatsStore } from "../../src/plugin/opencode-v1/stats.js";
import { fakeClient, newestMessages } from "../support/client.js";
import { bash, SessionBuilder } from "../support/session.js";

const FILES = ["e2e-fixed-point.json", "e2e-healthy.json", "e2e-fixed-point-unguarded.json", "e2e-four-read-cycle.json"];
const path = (name: string) => new URL(`../../fixtures/${name}`, import.meta.url);
const exports = FILES.map((f) => JSON.parse(readFileSync(path(f), "utf8")) as { info: { id: string }; messages: unknown[] });

/** A store over `sessions` (export-shaped), with no model limits and no reserved. */
function storeOf(
  sessions: ReadonlyArray<{ info: { id: string }; messages: unknown[] }>,
  fail: ReadonlySet<string> = new Set(),
): StatsStore {
  return {
    list: async () => sessions.map((s) => s.info),
    messages: async (id) => {
      if (fail.has(id)) throw new Error("HTTP 500");
      return sessions.find((s) => s.info.id === id)!.messages;
    },
    limits: async () => null,
    reserved: async () => undefined,
  };
}

describe("/guard stats: the figures", () => {
  it("are audit's: the same totals as `audit` over the same four opencode 1.18.33 exports", async () => {
    const stats = await projectStats(storeOf(exports), DEFAULT_SETTINGS);
    // What `opencode-compaction-guard audit` prints for these files (its totals line).
    expect(stats.audit.totals).toEqual({ sessions: 4, looping: 1, stoppedByGuard: 2, continuesSaved: 7, tokensAfterDeny: 44_100 });
    const cli = await auditSessions(
      await exportFiles(
        FILES.map((f) => path(f).pathname),
        false,
      ),
      { settings: DEFAULT_SETTINGS },
      null,
      () => {},
    );
    expect(stats.audit.totals).toEqual(cli.totals);
    expect(stats.audit.rows.map((r) => [r.sessionID, r.firstDeny, r.rule, r.continuesSaved, r.tokensAfterDeny])).toEqual(
      cli.rows.map((r) => [r.sessionID, r.firstDeny, r.rule, r.continuesSaved, r.tokensAfterDeny]),
    );
  });

  it("name each session with its compactions, its loop and its repeated calls, newest first", async () => {
    const stats = await projectStats(
      storeOf(exports),
      DEFAULT_SETTINGS,
      (() => {
        let t = 1_000;
        return () => (t += 37);
      })(),
    );
    expect(stats.ms).toBe(37);
    const lines = statsText(stats).split("\n");
    expect(lines.slice(0, 4)).toEqual([
      "compaction-guard stats for this project: 4 sessions read in 37 ms, 4 with automatic compactions (decided as `opencode-compaction-guard audit` decides them).",
      "Loops stopped by the guard: 2. Loops that ran on (the guard would have stopped them): 1.",
      "Would have been saved where a loop ran on (after the guard's first stop, up to your next message): 7 continue turns (each one more compaction cycle) and 44,100 tokens.",
      // 7 (unguarded) + 1 (fixed-point: after compaction 1, stopped at 2) + 4 (the four reads redone after compaction 1).
      "Calls repeated after a compaction, whether or not a rule fired: 12 in 3 sessions.",
    ]);
    expect(lines).toContain(
      '  "Fake title" (ses_dd42ec0c1ffebQWsYCN8ZKZND9): 8 automatic compactions, looped: the guard would have stopped it at compaction 2 (no-progress), saving 7 continue turns and 44,100 tokens; 7 calls repeated after a compaction (bash ×7).',
    );
    expect(lines).toContain(
      '  "Fake title" (ses_dd42f0d8effeNfBHsd3ylExYB1): 2 automatic compactions, no loop; no call repeated after a compaction.',
    );
    expect(lines).toContain(
      '  "Fake title" (ses_dd2e41ed5ffeAo3R8dzo9lRT6e): 2 automatic compactions, stopped by the guard at compaction 2 (no-new-work); 4 calls repeated after a compaction (read ×4).',
    );
    expect(lines.filter((l) => l.startsWith("  "))).toHaveLength(4);
    expect(lines.at(-1)).toBe("(A note from the compaction-guard plugin: not sent to the model.)");
  });

  it("count repeats where no rule fired, and list a session with repeats but no automatic compaction", async () => {
    const manual = new SessionBuilder("ses_manual").user().step(bash("npm test")).compact({ auto: false }).step(bash("npm test")).export();
    const stats = await projectStats(storeOf([manual as never]), DEFAULT_SETTINGS);
    expect(stats.audit.rows).toEqual([]);
    expect(stats.sessions.map((s) => [s.sessionID, s.repeats.calls, s.row])).toEqual([["ses_manual", 1, undefined]]);
    expect(statsText(stats)).toContain('"untitled" (ses_manual): no automatic compaction; 1 call repeated after a compaction (bash ×1).');
  });

  it("a session that cannot be read is skipped with one line; more sessions than fit are counted", async () => {
    const many = Array.from({ length: STATS_MAX_SESSIONS + 2 }, (_, i) => ({
      ...exports[1]!,
      info: { ...exports[1]!.info, id: `ses_${i}` },
    }));
    const stats = await projectStats(storeOf([...many, exports[0]!], new Set([exports[0]!.info.id])), DEFAULT_SETTINGS);
    const text = statsText(stats);
    expect(stats.audit.totals.sessions).toBe(STATS_MAX_SESSIONS + 2);
    expect(text).toContain("  … and 2 more.");
    expect(text).toContain(`Not read: 1 session (${exports[0]!.info.id}: messages could not be read (HTTP 500)).`);
  });

  it("a store that cannot be listed rejects; its answer is one line", async () => {
    await expect(
      projectStats({ ...storeOf([]), list: async () => Promise.reject(new Error("database is locked")) }, DEFAULT_SETTINGS),
    ).rejects.toThrow("database is locked");
    expect(statsUnreadableLine(new Error("database\nis locked"))).toBe(
      "compaction-guard stats: this project's sessions could not be read (database is locked); nothing counted. (A note from the plugin: not sent to the model.)",
    );
  });
});

describe("/guard stats in the plugin", () => {
  /** The guard with a client whose session list holds the four exports. */
  async function guardWith(list: () => unknown) {
    const here = exports[0]!;
    const fake = fakeClient(newestMessages(here.messages));
    const byID = new Map(exports.map((e) => [e.info.id, e.messages]));
    fake.client.session.messages.mockImplementation(async (o: { path: { id: string } }) => ({ data: byID.get(o.path.id) ?? [] }));
    const client = {
      ...fake.client,
      session: { ...fake.client.session, list: vi.fn(async (_options?: unknown) => list()) },
      config: { ...fake.client.config, providers: vi.fn(async () => ({ data: { providers: [] } })) },
    };
    const hooks = createGuard({ client: client as never }, undefined, { env: {} });
    await hooks.config!({} as never);
    const output = { parts: [] as unknown[] };
    const thrown = await hooks["command.execute.before"]!(
      { command: "guard", sessionID: here.info.id, arguments: " Stats " },
      output as never,
    ).catch((e: unknown) => e);
    return { ...fake, client, thrown, output };
  }

  it("answers with the figures as an ignored note, then ends the command (no model request)", async () => {
    const { thrown, prompts, output, client } = await guardWith(() => ({ data: exports.map((e) => e.info) }));
    expect((thrown as Error).message).toBe(ANSWERED);
    expect(output.parts).toEqual([]);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.body).toMatchObject({ noReply: true, parts: [{ type: "text", ignored: true }] });
    const text = prompts[0]!.body.parts[0]!.text!;
    expect(text).toMatch(/^compaction-guard stats for this project: 4 sessions read in \d+ ms, 4 with automatic compactions/);
    expect(text).toContain("Loops stopped by the guard: 2. Loops that ran on (the guard would have stopped them): 1.");
    // One list, asking past opencode's default of the newest 100.
    expect(client.session.list.mock.calls).toEqual([[{ query: { limit: STATS_MAX_LISTED } }]]);
    expect(STATS_MAX_LISTED).toBe(10_000);
    // Every session read whole, once; the providers' limits asked once.
    expect(client.config.providers).toHaveBeenCalledTimes(1);
  });

  it("a session list opencode refuses: one line, no throw but the command's own", async () => {
    const { thrown, prompts, logs } = await guardWith(() => ({ error: { name: "UnknownError" } }));
    expect((thrown as Error).message).toBe(ANSWERED);
    expect(prompts.map((p) => p.body.parts[0]!.text)).toEqual([
      'compaction-guard stats: this project\'s sessions could not be read (session.list returned no session list ({"name":"UnknownError"})); nothing counted. (A note from the plugin: not sent to the model.)',
    ]);
    expect(logs.at(-1)?.level).toBe("warn");
  });
});

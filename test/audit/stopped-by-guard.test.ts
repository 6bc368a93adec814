/**
 * A loop the guard itself already stopped is reported as stopped, not as one it would have
 * stopped: by its stop note, or by the continue turn missing after a compaction it denies. The
 * note is no time or tokens saved. And `read` counts what was read before `--since`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { auditSession } from "../../src/audit/audit.js";
import type { AuditJson } from "../../src/audit/types.js";
import { GUARD_NOTE_KINDS, isGuardNote } from "../../src/hosts/opencode/guard-note.js";
import { exportedSession } from "../../src/hosts/opencode/session.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { cli } from "../support/cli.js";

const FIXTURES = fileURLToPath(new URL("../../fixtures", import.meta.url));
const LIMITS = { context: 8000, output: 2000 };
const LIMIT_FLAGS = ["--context-limit", "8000", "--output-limit", "2000"];
/**
 * The settings these sessions were recorded with (prediction off, so the guard stopped the
 * fixed point at compaction 2): what the guard did is then exactly what the audit replays.
 */
const RECORDED = { ...DEFAULT_SETTINGS, predict: false };

type Message = { info: { id: string; role: string; time?: { created?: number; completed?: number } }; parts: unknown[] };
type Export = { info: { id: string; time?: { updated?: number } }; messages: Message[] };
const load = (name: string): Export => JSON.parse(readFileSync(join(FIXTURES, name), "utf8")) as Export;

/** The stop note as plugin/opencode-v1/guard.ts writes it (a user message, one ignored text part with the guard's metadata), `ms` after `after`. */
function note(sessionID: string, after: number, ms: number, kind: string = GUARD_NOTE_KINDS.compaction): Message {
  return {
    info: { id: "msg_note", role: "user", time: { created: after + ms } },
    parts: [
      {
        id: "prt_note",
        sessionID,
        messageID: "msg_note",
        type: "text",
        text: "Compaction loop stopped by compaction-guard after compaction 2: opencode did not send its automatic continue message, so the model stopped.",
        ignored: true,
        metadata: { compaction_guard: { note: kind, rule: "no-progress" } },
      },
    ],
  };
}

describe("isGuardNote", () => {
  it("is the guard's ignored text part with its metadata, of either kind; nothing else", () => {
    expect(isGuardNote(note("s", 0, 0))).toBe(true);
    expect(isGuardNote(note("s", 0, 0, GUARD_NOTE_KINDS.toolLoop))).toBe(true);
    expect(isGuardNote(note("s", 0, 0, "something-else"))).toBe(false);
    const typed = note("s", 0, 0);
    (typed.parts[0] as { ignored: boolean }).ignored = false;
    expect(isGuardNote(typed)).toBe(false);
    expect(isGuardNote({ ...note("s", 0, 0), info: { id: "m", role: "assistant" } })).toBe(false);
    for (const junk of [null, 3, "x", {}, { info: {} }, { info: { role: "user" }, parts: "no" }]) expect(isGuardNote(junk)).toBe(false);
  });
});

describe("stoppedByGuard", () => {
  it("a guarded run with the guard's note: stopped by the guard, and the note is no time saved", () => {
    const guarded = load("e2e-fixed-point.json");
    const summary = guarded.messages.at(-1)!;
    const end = summary.info.time!.completed!;
    const noted = { ...guarded, messages: [...guarded.messages, note(guarded.info.id, end, 8_000)] };
    const row = auditSession(exportedSession(noted), "noted.json", { settings: RECORDED, limits: LIMITS }).row;
    expect(row).toMatchObject({
      firstDeny: 2,
      looped: true,
      stoppedByGuard: true,
      continuesSaved: 0,
      tokensAfterDeny: 0,
      secondsAfterDeny: 0,
    });
  });

  it("the note alone says so, even where a continue turn followed (a tool-loop stop, say)", () => {
    const unguarded = load("e2e-fixed-point-unguarded.json");
    const plain = auditSession(exportedSession(unguarded), "u.json", { settings: RECORDED, limits: LIMITS }).row;
    expect(plain).toMatchObject({ looped: true, stoppedByGuard: false, continuesSaved: 7 });
    const last = unguarded.messages.at(-1)!.info.time!;
    const noted = {
      ...unguarded,
      messages: [...unguarded.messages, note(unguarded.info.id, last.completed ?? last.created!, 5_000, GUARD_NOTE_KINDS.toolLoop)],
    };
    const row = auditSession(exportedSession(noted), "n.json", { settings: RECORDED, limits: LIMITS }).row;
    // The same figures as without the note: its 5 s are not counted.
    expect(row).toMatchObject({
      stoppedByGuard: true,
      continuesSaved: 7,
      tokensAfterDeny: plain.tokensAfterDeny,
      secondsAfterDeny: plain.secondsAfterDeny,
    });
  });

  it("audit --json: stoppedByGuard per session; totals.looping only the loops that ran on", async () => {
    const files = ["e2e-fixed-point.json", "e2e-fixed-point-unguarded.json", "e2e-healthy.json", "e2e-same-text-stop.json"].map((f) =>
      join(FIXTURES, f),
    );
    const run = await cli(["audit", ...files, ...LIMIT_FLAGS, "--json"]);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as AuditJson;
    // Under the default settings both fixed points are denied at compaction 1 by cannot-make-room;
    // the guarded one (stopped at 2, prediction off then) still counts as stopped by the guard.
    expect(Object.fromEntries(json.sessions.map((s) => [s.source.split("/").at(-1), [s.rule, s.stoppedByGuard]]))).toEqual({
      "e2e-fixed-point.json": ["cannot-make-room", true],
      "e2e-fixed-point-unguarded.json": ["cannot-make-room", false],
      "e2e-healthy.json": [null, false],
      // turn-finished is housekeeping: its continue turn skipped, but no loop.
      "e2e-same-text-stop.json": ["turn-finished", false],
    });
    // 8 continue turns in the unguarded run, 1 in the guarded one (the one it let through at compaction 1).
    expect(json.totals).toEqual({ sessions: 4, looping: 1, stoppedByGuard: 1, continuesSaved: 9, tokensAfterDeny: 58_800 });
    const table = (await cli(["audit", ...files, ...LIMIT_FLAGS])).stdout.trimEnd().split("\n");
    expect(table.at(-1)).toBe(
      "totals: 4 sessions read, 4 with automatic compactions (listed), 0 without; 1 loop stopped by the guard, 1 ran on (looping); the guard would have saved 9 synthetic continue turns and 58,800 tokens",
    );
  });
});

describe("the audit table names the source and the limits, and counts what was read before --since", () => {
  it("source: the file's name; usable: the usable context, or unknown with one line under the table", async () => {
    const file = join(FIXTURES, "e2e-healthy.json");
    const known = (await cli(["audit", file, ...LIMIT_FLAGS])).stdout.split("\n");
    expect(known[1]).toMatch(/^ses_dd42f0d8effeNfBHsd3ylExYB1 +Fake title +e2e-healthy\.json +2026-11-30 09:37 +6,000 +2 /);
    expect(known.some((l) => l.startsWith("model limits unknown"))).toBe(false);
    const unknown = (await cli(["audit", file])).stdout.split("\n");
    expect(unknown[1]).toMatch(/ e2e-healthy\.json +2026-11-30 09:37 +unknown +2 /);
    expect(unknown[2]).toBe(
      "model limits unknown for 1 session (usable: unknown): no-progress compared their compactions with each other only; give --context-limit and --output-limit",
    );
  });

  it("--since: the sessions read before it, then those it kept", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-since-"));
    const old = load("e2e-healthy.json");
    writeFileSync(join(dir, "old.json"), JSON.stringify(old));
    const fresh = load("e2e-fixed-point-unguarded.json");
    writeFileSync(
      join(dir, "new.json"),
      JSON.stringify({ ...fresh, info: { ...fresh.info, time: { created: Date.UTC(2026, 11, 5), updated: Date.UTC(2026, 11, 5) } } }),
    );
    const run = await cli(["audit", dir, ...LIMIT_FLAGS, "--since", "2026-12-01"]);
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split("\n").at(-1)).toBe(
      "totals: 2 sessions read, 1 active since --since: 1 with automatic compactions (listed), 0 without; 0 loops stopped by the guard, 1 ran on (looping); the guard would have saved 8 synthetic continue turns and 51,450 tokens",
    );
  });
});

import type { AuditJson, AuditSession } from "../../src/audit/types.js";
import { execFileSync, spawn } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { constants as osConstants, tmpdir } from "node:os";
import { Writable } from "node:stream";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { auditSession, auditTotals, parseSince } from "../../src/audit/audit.js";
import { compactionModel, configReserved, limitsTable, type KnownLimits } from "../../src/hosts/opencode/limits.js";
import { exportedSession } from "../../src/hosts/opencode/session.js";
import { sessionDecision } from "../../src/sources/sources.js";
import { executablePath, listAllSessions, type ListPage } from "../../src/sources/opencode.js";
import { formatSeconds } from "../../src/report/format.js";
import { displayWidth } from "../../src/report/terminal.js";
import { main } from "../../src/cli/main.js";
import { cli } from "../support/cli.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";

const FIXTURES = fileURLToPath(new URL("../../fixtures", import.meta.url));

/** `replay <file> --json`, through the same main(). */
async function replay(path: string, flags: string[] = []) {
  const { code, stdout } = await cli(["replay", path, "--json", ...flags]);
  expect(code).toBe(0);
  return JSON.parse(stdout) as {
    sessionID: string;
    compactions: Array<{ messageID: string; decision: "allow" | "deny"; rule: string | null; severity: "warning" | "info" | null }>;
    firstDeny: number | null;
  };
}

/** Non-export JSON files among the fixtures (expectations and notes). */
const NOT_EXPORTS = [
  "breaker/expect.json",
  "expect.json",
  "held/bugs2/expect.json",
  "held/bugs3/expect.json",
  "held/real-adv/expect.json",
  "held/sessions/expect.json",
  "judgement/expect.json",
  "judgement2/expect.json",
  "review/expect.json",
  "review/notes.json",
];

/** Every export file under fixtures/ (top level, or with the sub-folders). */
function exportFiles(recursive: boolean): string[] {
  const top = readdirSync(FIXTURES, { withFileTypes: true });
  const files = top.filter((e) => e.isFile()).map((e) => join(FIXTURES, e.name));
  if (recursive) {
    for (const dir of top.filter((e) => e.isDirectory())) {
      for (const entry of readdirSync(join(FIXTURES, dir.name), { withFileTypes: true, recursive: true }))
        if (entry.isFile() && entry.name.endsWith(".json")) files.push(join(entry.parentPath, entry.name));
    }
  }
  // Claude Code and Codex transcripts (fixtures/claude-code, fixtures/codex) are not exports: test/hosts/ tests them.
  return files.filter((f) => !NOT_EXPORTS.some((n) => f.endsWith(`/fixtures/${n}`)) && !/\/fixtures\/(claude-code|codex)\//.test(f));
}

/**
 * The files an audit counts: one per session id (the same session in two files is counted
 * once: the one with more messages, else the later `time.updated`, else the one read later).
 */
function keptFiles(files: string[]): string[] {
  const kept = new Map<string, { file: string; messages: number; updated: number }>();
  for (const file of files) {
    const data = JSON.parse(readFileSync(file, "utf8")) as {
      info: { id: string; time?: { updated?: number; created?: number } };
      messages: unknown[];
    };
    const updated = data.info.time?.updated ?? data.info.time?.created ?? -Infinity;
    const before = kept.get(data.info.id);
    const replace =
      !before || (data.messages.length !== before.messages ? data.messages.length > before.messages : updated >= before.updated);
    if (replace) kept.set(data.info.id, { file, messages: data.messages.length, updated });
  }
  return [...kept.values()].map((k) => k.file);
}

type RawPart = { type?: string; text?: string; synthetic?: boolean; ignored?: boolean; metadata?: Record<string, unknown> };
type RawMessage = { info: { id: string; role: string; summary?: boolean; parentID?: string }; parts: RawPart[] };

/**
 * Read straight from the export, apart from the audit's code: did the guard already stop this
 * loop? Its stop note is there, or a compaction replay denies as a loop got no continue turn
 * (the next user message after its summary is neither opencode's continue turn nor a copy of
 * an earlier message, opencode's re-send after an overflow).
 */
function guardStopped(file: string, denied: readonly string[]): boolean {
  const messages = (JSON.parse(readFileSync(file, "utf8")) as { messages: RawMessage[] }).messages;
  const note = (m: RawMessage) =>
    m.info.role === "user" && m.parts.some((p) => p.ignored === true && p.metadata?.compaction_guard !== undefined);
  if (messages.some(note)) return true;
  const isContinue = (p: RawPart) =>
    p.metadata?.compaction_continue === true || (p.synthetic === true && p.text?.startsWith("Continue if you have next steps") === true);
  const textOf = (m: RawMessage) => m.parts.map((p) => (p.type === "text" && !p.synthetic ? (p.text ?? "") : "")).join("");
  return denied.some((id) => {
    const summary = messages.findIndex((m) => m.info.summary === true && m.info.parentID === id);
    const next = messages.slice(summary + 1).find((m) => m.info.role === "user");
    if (next === undefined) return true;
    const resend = textOf(next) !== "" && messages.slice(0, summary).some((m) => m.info.role === "user" && textOf(m) === textOf(next));
    return !next.parts.some(isContinue) && !resend;
  });
}

/** Checks an audit against replay, session by session, and its totals against its rows. */
async function expectAgreesWithReplay(audit: AuditJson, allFiles: string[], flags: string[] = []) {
  let looping = 0;
  let stopped = 0;
  let listed = 0;
  const files = keptFiles(allFiles);
  for (const file of files) {
    const r = await replay(file, flags);
    const row = audit.sessions.find((s) => s.source === file);
    if (r.compactions.length === 0) {
      expect(row, file).toBeUndefined();
      continue;
    }
    listed += 1;
    expect(row, file).toBeDefined();
    expect([row!.sessionID, row!.compactions, row!.firstDeny, row!.rule], file).toEqual([
      r.sessionID,
      r.compactions.length,
      r.firstDeny,
      r.firstDeny === null ? null : r.compactions[r.firstDeny - 1]!.rule,
    ]);
    // Looping: a loop stopped (a warning deny); a turn-finished (info) deny alone is housekeeping.
    const denied = r.compactions.filter((c) => c.decision === "deny" && c.severity === "warning").map((c) => c.messageID);
    const byGuard = denied.length > 0 && guardStopped(file, denied);
    expect(row!.stoppedByGuard, file).toBe(byGuard);
    if (denied.length > 0 && byGuard) stopped += 1;
    else if (denied.length > 0) looping += 1;
    if (r.firstDeny === null) expect([row!.continuesSaved, row!.tokensAfterDeny, row!.secondsAfterDeny]).toEqual([0, 0, 0]);
  }
  expect(audit.sessions).toHaveLength(listed);
  expect(audit.totals).toEqual({
    sessions: files.length,
    looping,
    stoppedByGuard: stopped,
    continuesSaved: audit.sessions.reduce((sum, s) => sum + s.continuesSaved, 0),
    tokensAfterDeny: audit.sessions.reduce((sum, s) => sum + (s.tokensAfterDeny ?? 0), 0),
  });
}

describe("audit <folder> --json agrees with replay, session by session", () => {
  it("fixtures/ (not recursive): the e2e exports and the shared loop; expect.json skipped with one line", async () => {
    const { code, stdout, stderr } = await cli(["audit", FIXTURES, "--json"]);
    expect(code).toBe(0);
    expect(stdout.trim().split("\n")).toHaveLength(1);
    const audit = JSON.parse(stdout) as AuditJson;
    expect(Object.keys(audit)).toEqual(["sessions", "totals"]);
    const files = exportFiles(false);
    expect(files).toHaveLength(25);
    await expectAgreesWithReplay(audit, files);
    // Not recursive: nothing from breaker/, judgement/, judgement2/ or review/.
    expect(audit.sessions.filter((s) => relative(FIXTURES, s.source).includes(sep))).toEqual([]);
    expect(stderr).toBe(`skipped ${join(FIXTURES, "expect.json")}: not an opencode session export (no \`info\` object)\n`);
    // Known figures: 25 exports, 17 denied, 15 of them a loop (2 turn-finished housekeeping). The guard
    // itself stopped 14 (every guarded e2e run, and the shared loop export, whose third continue turn it
    // denied); only the unguarded fixed-point run's loop ran on. The shared loop's third continue came after the first deny.
    expect(audit.totals).toEqual({ sessions: 25, looping: 1, stoppedByGuard: 14, continuesSaved: 8, tokensAfterDeny: 51_450 });
    const loop = audit.sessions.find((s) => s.sessionID === "ses_dd48353bdffeeLNjPk1FftaDqf")!;
    expect(loop).toMatchObject({ compactions: 3, firstDeny: 2, rule: "no-progress", continuesSaved: 1, tokensAfterDeny: 7350 });
    // The unguarded fixed-point run: 8 compactions, denied at 2; 7 continue turns and 44,100 tokens after it.
    const unguarded = audit.sessions.find((s) => s.source.endsWith("e2e-fixed-point-unguarded.json"))!;
    expect(unguarded).toMatchObject({ compactions: 8, firstDeny: 2, rule: "no-progress", continuesSaved: 7, tokensAfterDeny: 44_100 });
    expect(Object.keys(loop)).toEqual([
      "sessionID",
      "source",
      "title",
      "compactions",
      "firstDeny",
      "rule",
      "stoppedByGuard",
      "continuesSaved",
      "tokensAfterDeny",
      "secondsAfterDeny",
      "parentID",
      "created",
      "usable",
      "liveStop",
    ]);
    // No limit flags: the usable context is unknown for every file.
    expect(audit.sessions.every((s) => s.usable === null)).toBe(true);
  });

  it("-r / --recursive: the sub-folders too, subagent sessions labelled; every non-export listed as skipped, one line each", async () => {
    for (const flag of ["-r", "--recursive"]) {
      const { code, stdout, stderr } = await cli(["audit", FIXTURES, flag, "--json"]);
      expect(code).toBe(0);
      const audit = JSON.parse(stdout) as AuditJson;
      const files = exportFiles(true);
      expect(files.length).toBe(18 + 25 + 12 + 10 + 22 + 87);
      // The transcripts are sessions too (6 of them): the exports' rows and totals without them.
      const exports = audit.sessions.filter((row) => !("agent" in row));
      expect(audit.sessions.length - exports.length).toBe(6);
      // Of the seven transcript files, six are sessions with compactions; two loop (Claude Code
      // 2.1.328's and Codex 0.169.0's, recorded against scripted models), none was stopped by the guard.
      const transcripts = audit.sessions.filter((row) => "agent" in row);
      expect(transcripts.filter((row) => row.firstDeny !== null).map((row) => row.source)).toEqual([
        expect.stringContaining("claude-code-2.1.328-loop.jsonl"),
        expect.stringContaining("codex-0.169.0-two-call-loop.jsonl"),
      ]);
      await expectAgreesWithReplay(
        {
          ...audit,
          sessions: exports,
          totals: {
            ...audit.totals,
            sessions: audit.totals.sessions - 7,
            looping: audit.totals.looping - 2,
            tokensAfterDeny: audit.totals.tokensAfterDeny - transcripts.reduce((sum, row) => sum + (row.tokensAfterDeny ?? 0), 0),
          },
        },
        files,
      );
      // Every export here is its own session (each review fixture has its own id; the e2e
      // recordings are each a run of their own, and so are the 87 held sessions): 174 sessions, no duplicate line (duplicates
      // are tested below: "the same session in two files").
      expect(keptFiles(files)).toHaveLength(174);
      // …and the seven Claude Code and Codex transcripts of fixtures/claude-code and fixtures/codex.
      expect(audit.totals.sessions).toBe(174 + 7);
      const lines = stderr.trim().split("\n");
      expect(lines.filter((l) => l.startsWith("duplicate session "))).toEqual([]);
      // The README.md of fixtures/claude-code, fixtures/codex and fixtures/held are passed over, not read.
      expect(lines.filter((l) => l.startsWith("passed over "))).toEqual([
        "passed over 3 files in the folders given: only *.json and *.jsonl files are read there",
      ]);
      const skipped = lines.filter((l) => !l.startsWith("duplicate session ") && !l.startsWith("passed over "));
      expect(skipped).toHaveLength(NOT_EXPORTS.length);
      expect(skipped.map((l) => l.slice(0, l.indexOf(": ")))).toEqual(NOT_EXPORTS.map((n) => `skipped ${join(FIXTURES, n)}`));
      const child = audit.sessions.find((s) => s.sessionID === "ses_child")!;
      expect(child).toMatchObject({ parentID: "ses_parent", firstDeny: null });
    }
  });

  it("the decision flags change the audit as they change replay", async () => {
    const flags = ["--min-reduction", "0", "--threshold", "4", "--context-limit", "8000", "--output-limit", "2000"];
    const { code, stdout } = await cli(["audit", FIXTURES, "--json", ...flags]);
    expect(code).toBe(0);
    const audit = JSON.parse(stdout) as AuditJson;
    await expectAgreesWithReplay(audit, exportFiles(false), flags);
    // 8,000 − min(2,000, 32,000) for every file.
    expect(new Set(audit.sessions.map((s) => s.usable))).toEqual(new Set([6000]));
  });

  it("files given one by one, and a missing path, are read in order; the missing one is skipped", async () => {
    const loop = join(FIXTURES, "opencode-1.18.33-loop-bash.json");
    const healthy = join(FIXTURES, "e2e-healthy.json");
    const { code, stdout, stderr } = await cli(["audit", loop, join(FIXTURES, "nope.json"), healthy, "--json"]);
    expect(code).toBe(0);
    expect(stderr).toBe(`skipped ${join(FIXTURES, "nope.json")}: no such file or folder\n`);
    const audit = JSON.parse(stdout) as AuditJson;
    expect(audit.sessions.map((s) => [s.source, s.firstDeny])).toEqual([
      [loop, 2],
      [healthy, null],
    ]);
    // The shared loop export: the guard denied its third continue turn, so the loop did not run on.
    expect(audit.totals).toEqual({ sessions: 2, looping: 0, stoppedByGuard: 1, continuesSaved: 1, tokensAfterDeny: 7350 });
  });
});

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0); // 2026-11-30 12:00 UTC

/** A hand-made export: a fixed-point loop of 3 compactions, each step 7,000 prompt + 20 output tokens. */
function handMade(id = "ses_hand", options: { updated?: number; created?: number; parentID?: string; compactions?: boolean } = {}) {
  let n = 0;
  const messages: unknown[] = [];
  const msg = (role: "user" | "assistant", info: Record<string, unknown>, parts: unknown[]) => {
    const mid = `msg_${String(++n).padStart(3, "0")}`;
    messages.push({
      info: { id: mid, sessionID: id, role, ...info },
      parts: parts.map((p, i) => ({ id: `prt_${n}_${i}`, ...(p as object) })),
    });
    return mid;
  };
  const at = (s: number) => T0 + s * 1000;
  const step = (s: number, tokens: Record<string, unknown>) =>
    msg("assistant", { finish: "tool-calls", tokens, time: { created: at(s), completed: at(s + 1) } }, [
      { type: "step-start" },
      { type: "tool", tool: "bash", state: { status: "completed", input: { command: "echo hi" }, output: "hi\n" } },
      { type: "step-finish" },
    ]);
  const cycle = (s: number) => {
    const c = msg("user", { time: { created: at(s) } }, [{ type: "compaction", auto: true, overflow: false }]);
    msg(
      "assistant",
      {
        summary: true,
        parentID: c,
        finish: "stop",
        tokens: { total: 330, input: 300, output: 30 },
        time: { created: at(s), completed: at(s + 2) },
      },
      [{ type: "text", text: "SUMMARY: run echo hi again." }],
    );
    msg("user", { time: { created: at(s + 3) } }, [
      { type: "text", synthetic: true, metadata: { compaction_continue: true }, text: "Continue if you have next steps, or stop and ask." },
    ]);
  };
  msg("user", { time: { created: at(0) } }, [{ type: "text", text: "run echo hi" }]);
  step(1, { total: 7020, input: 7000, output: 20, cache: { read: 0, write: 0 } }); // ends at 2 s
  if (options.compactions !== false) {
    cycle(10); // compaction 1: 10–12 s, continue at 13 s
    step(20, { input: 7000, output: 20, cache: { read: 0, write: 0 } }); // no total: 7,020
    cycle(30); // compaction 2, denied by no-progress: its summary ends at 32 s
    step(40, { input: 6000, output: 20, cache: { read: 1000, write: 0 } }); // 7,020 (cache counts)
    cycle(50); // compaction 3: summary 330 tokens, continue at 53 s
    step(60, { total: 7020, input: 7000, output: 20 }); // ends at 61.5 s
    (messages.at(-1) as { info: { time: { completed: number } } }).info.time.completed = at(61.5);
  }
  return {
    info: {
      id,
      title: `hand-made ${id}`,
      directory: "/home/dev/project",
      ...(options.parentID ? { parentID: options.parentID } : {}),
      time: { created: options.created ?? at(0), updated: options.updated ?? at(61.5) },
    },
    messages,
  };
}

describe("what the first deny would have saved, on a hand-made export", () => {
  it("counts continue turns, tokens and wall time after the denied compaction's summary", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-"));
    const file = join(dir, "hand.json");
    writeFileSync(file, JSON.stringify(handMade()));
    const r = await replay(file);
    expect([r.firstDeny, r.compactions.map((c) => c.rule)]).toEqual([2, [null, "no-progress", "no-progress"]]);
    const { code, stdout } = await cli(["audit", dir, "--json"]);
    expect(code).toBe(0);
    const audit = JSON.parse(stdout) as AuditJson;
    expect(audit.sessions).toEqual([
      {
        sessionID: "ses_hand",
        source: file,
        title: "hand-made ses_hand",
        compactions: 3,
        firstDeny: 2,
        rule: "no-progress",
        // Both denied compactions got their continue turn: the loop ran on.
        stoppedByGuard: false,
        // The continue turn at 33 s (the one the deny stops) and at 53 s.
        continuesSaved: 2,
        // After the summary of compaction 2: step 40 (6,000 + 20 + 1,000 cache), summary 3 (total 330), step 60 (total 7,020).
        tokensAfterDeny: 7020 + 330 + 7020,
        // From that summary's end (32 s) to the last message's end (61.5 s).
        secondsAfterDeny: 29.5,
        parentID: null,
        created: T0,
        usable: null,
        liveStop: null,
      },
    ]);
    expect(audit.totals).toEqual({ sessions: 1, looping: 1, stoppedByGuard: 0, continuesSaved: 2, tokensAfterDeny: 14_370 });
  });

  it("auditSession and auditTotals (the pure part); a subagent's session is labelled and decided as one", () => {
    const options = { settings: DEFAULT_SETTINGS };
    const child = auditSession(exportedSession(handMade("ses_child", { parentID: "ses_parent" })), "x.json", options);
    expect(child.row).toMatchObject({ parentID: "ses_parent", compactions: 3, firstDeny: 2, continuesSaved: 2, tokensAfterDeny: 14_370 });
    expect(child.replay).toHaveLength(3);
    const quiet = auditSession(exportedSession(handMade("ses_quiet", { compactions: false })), "y.json", options).row;
    expect(quiet).toMatchObject({
      compactions: 0,
      firstDeny: null,
      rule: null,
      continuesSaved: 0,
      tokensAfterDeny: 0,
      secondsAfterDeny: 0,
    });
    expect(auditTotals([child.row, quiet, child.row])).toEqual({
      sessions: 3,
      looping: 2,
      stoppedByGuard: 0,
      continuesSaved: 4,
      tokensAfterDeny: 28_740,
    });
  });

  it("the table: one row per session with compactions, sessions without counted in the totals line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-"));
    writeFileSync(join(dir, "a.json"), JSON.stringify(handMade("ses_a")));
    writeFileSync(join(dir, "b.json"), JSON.stringify(handMade("ses_b", { compactions: false })));
    writeFileSync(join(dir, "c.json"), JSON.stringify(handMade("ses_c", { parentID: "ses_a" })));
    const { code, stdout, stderr } = await cli(["audit", dir]);
    expect([code, stderr]).toEqual([0, ""]);
    const lines = stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(
      /^session +title +source +created \(UTC\) +usable +compactions +first deny +rule +loop +continues saved +tokens saved +time saved$/,
    );
    expect(lines[1]).toMatch(/^ses_a +hand-made ses_a +a\.json +2026-11-30 12:00 +unknown +3 +2 +no-progress +ran on +2 +14,370 +29\.5 s$/);
    expect(lines[2]).toMatch(
      /^ses_c +↳ subagent of ses_a: hand-made ses_c +c\.json +2026-11-30 12:00 +unknown +3 +2 +no-progress +ran on +2 +14,370 +29\.5 s$/,
    );
    expect(lines[3]).toBe(
      "model limits unknown for 2 sessions (usable: unknown): no-progress compared their compactions with each other only; give --context-limit and --output-limit",
    );
    expect(lines[4]).toBe(
      "totals: 3 sessions read, 2 with automatic compactions (listed), 1 without; 0 loops stopped by the guard, 2 ran on (looping); the guard would have saved 4 synthetic continue turns and 28,740 tokens",
    );
  });
});

/**
 * Part of opencode 1.18.33's `GET /provider` answer (`{ all, default, connected }`), read from the
 * real binary: the e2e config's fake model verbatim, and three models of its models.dev catalogue
 * as listed there (a provider's `key`/`options` can hold an API key: made up here).
 */
const PROVIDER_ANSWER = {
  all: [
    {
      id: "fake",
      name: "Fake",
      source: "config",
      env: [],
      options: { baseURL: "http://127.0.0.1:40000/v1", apiKey: "x" },
      models: {
        fakemodel: {
          id: "fakemodel",
          providerID: "fake",
          api: { id: "fakemodel", url: "", npm: "@ai-sdk/openai-compatible" },
          name: "Fake model",
          family: "",
          capabilities: { temperature: false, reasoning: false, attachment: false, toolcall: true },
          cost: { input: 0, output: 0, cache: { read: 0, write: 0 } },
          limit: { context: 8000, output: 2000 },
          status: "active",
          options: {},
          headers: {},
          release_date: "",
          variants: {},
        },
      },
    },
    {
      id: "openai",
      name: "OpenAI",
      source: "env",
      env: ["OPENAI_API_KEY"],
      key: "sk-made-up",
      options: {},
      models: { "gpt-5": { id: "gpt-5", providerID: "openai", limit: { context: 400_000, input: 272_000, output: 128_000 } } },
    },
    {
      id: "anthropic",
      name: "Anthropic",
      source: "env",
      env: ["ANTHROPIC_API_KEY"],
      options: {},
      models: { "claude-sonnet-4-5": { id: "claude-sonnet-4-5", providerID: "anthropic", limit: { context: 1_000_000, output: 64_000 } } },
    },
    {
      id: "perplexity-agent",
      name: "Perplexity Agent",
      source: "custom",
      env: [],
      options: {},
      models: {
        "openai/gpt-5.1": {
          id: "openai/gpt-5.1",
          providerID: "perplexity-agent",
          limit: { context: 400_000, input: 272_000, output: 128_000 },
        },
      },
    },
  ],
  default: { fake: "fakemodel", openai: "gpt-5.3-chat-latest" },
  connected: ["fake"],
};

describe("the limits a session read through opencode is decided with (hosts/opencode/limits.ts and sources/sources.ts, pure)", () => {
  it("limitsTable: every model of GET /provider (all) or GET /config/providers (providers), by provider/model; limits only", () => {
    const table = limitsTable(PROVIDER_ANSWER);
    expect([...table]).toEqual([
      ["fake/fakemodel", { context: 8000, output: 2000 }],
      ["openai/gpt-5", { context: 400_000, output: 128_000, input: 272_000 }],
      ["anthropic/claude-sonnet-4-5", { context: 1_000_000, output: 64_000 }],
      ["perplexity-agent/openai/gpt-5.1", { context: 400_000, output: 128_000, input: 272_000 }],
    ]);
    expect(JSON.stringify([...table])).not.toContain("sk-made-up");
    // GET /config/providers: `{ providers, default }`, the connected ones.
    expect([...limitsTable({ providers: PROVIDER_ANSWER.all.slice(0, 1), default: {} })]).toEqual([
      ["fake/fakemodel", { context: 8000, output: 2000 }],
    ]);
    // A model without a context limit (opencode never compacts it), and answers that are not providers.
    const odd = [{ id: "p", models: { zero: { limit: { context: 0, output: 100 } }, none: {}, text: { limit: { context: "8000" } } } }];
    for (const answer of [odd, null, "x", { all: "x" }, [null, { id: "", models: {} }]]) expect(limitsTable(answer).size).toBe(0);
  });

  it("compactionModel: the step that set off the last automatic compaction; summaries' and later steps' models do not count", () => {
    const loop = JSON.parse(readFileSync(join(FIXTURES, "opencode-1.18.33-loop-bash.json"), "utf8")) as { messages: unknown[] };
    expect(compactionModel(loop.messages)).toEqual({ providerID: "fake", modelID: "fakemodel" });
    const step = (providerID: string, modelID: string, extra: Record<string, unknown> = {}) => ({
      info: { id: `m${Math.random()}`, role: "assistant", providerID, modelID, ...extra },
      parts: [],
    });
    const compaction = (auto: boolean) => ({ info: { id: "c", role: "user" }, parts: [{ type: "compaction", auto }] });
    const summary = step("cheap", "summariser", { summary: true, mode: "compaction", agent: "compaction" });
    const a = step("openai", "gpt-5");
    const b = step("anthropic", "claude-sonnet-4-5");
    // Looped under gpt-5 (its summaries by another model), then the user switched to Claude: gpt-5's limits decided.
    expect(compactionModel([a, compaction(true), summary, a, compaction(true), summary, b])).toEqual({
      providerID: "openai",
      modelID: "gpt-5",
    });
    // No step before the compaction: the last step's. No automatic compaction (a manual one is the user's): nothing to decide.
    expect(compactionModel([compaction(true), summary, b])).toEqual({ providerID: "anthropic", modelID: "claude-sonnet-4-5" });
    expect(compactionModel([a, compaction(false), summary, b])).toBeNull();
    expect(compactionModel([a, b])).toBeNull();
    expect(compactionModel([compaction(true), summary])).toBeNull();
    expect(compactionModel([{ info: { role: "assistant", providerID: "openai" } }, "junk", null])).toBeNull();
  });

  it("configReserved: compaction.reserved of GET /config, whole tokens", () => {
    expect(configReserved({ $schema: "https://opencode.ai/config.json", compaction: { reserved: 500 } })).toBe(500);
    expect(configReserved({ compaction: { reserved: 0 } })).toBe(0);
    for (const config of [{}, { compaction: {} }, { compaction: { reserved: "500" } }, { compaction: { reserved: -1 } }, null]) {
      expect(configReserved(config)).toBeUndefined();
    }
  });

  it("sessionDecision: the model's limits and the config's reserved, unless the flags give them (for every session)", () => {
    const table = limitsTable(PROVIDER_ANSWER);
    const known = (key: string, reserved?: number): KnownLimits => ({ model: null, limits: table.get(key) ?? null, reserved });
    const noFlags = { settings: DEFAULT_SETTINGS, limits: {}, reserved: undefined };
    const usable = (flags: typeof noFlags | Parameters<typeof sessionDecision>[0], k: KnownLimits) =>
      auditSession(exportedSession(handMade()), "opencode", sessionDecision(flags, k)).row.usable;
    // fake: 8,000 − 2,000. gpt-5 has an input limit: 272,000 − reserved (default min(20,000, min(128,000, 32,000)), or the config's).
    expect(usable(noFlags, known("fake/fakemodel"))).toBe(6000);
    expect(usable(noFlags, known("openai/gpt-5"))).toBe(252_000);
    expect(usable(noFlags, known("openai/gpt-5", 50_000))).toBe(222_000);
    expect(usable(noFlags, known("anthropic/claude-sonnet-4-5", 50_000))).toBe(968_000); // no input limit: reserved moves nothing
    expect(usable(noFlags, known("unknown/model", 50_000))).toBeNull();
    // The limit flags replace the model's limits as a whole (its input limit too), also for an unknown model; --reserved the config's.
    const flags = { settings: DEFAULT_SETTINGS, limits: { context: 300_000, output: 8000 }, reserved: undefined };
    expect(usable(flags, known("openai/gpt-5", 50_000))).toBe(292_000);
    expect(usable(flags, known("unknown/model"))).toBe(292_000);
    expect(usable({ ...noFlags, reserved: 10_000 }, known("openai/gpt-5", 50_000))).toBe(262_000);
    expect(sessionDecision({ ...noFlags, reserved: 0 }, known("openai/gpt-5", 50_000)).reserved).toBe(0);
    // Known limits decide as the same limits given as flags (replay's): same row.
    const viaOpencode = auditSession(exportedSession(handMade()), "opencode", sessionDecision(noFlags, known("fake/fakemodel"))).row;
    const viaFlags = auditSession(exportedSession(handMade()), "opencode", {
      settings: DEFAULT_SETTINGS,
      limits: { context: 8000, output: 2000 },
    }).row;
    expect(viaOpencode).toEqual(viaFlags);
    expect(viaOpencode.firstDeny).not.toBeNull();
  });
});

describe("--since", () => {
  const dir = mkdtempSync(join(tmpdir(), "ocg-audit-since-"));
  writeFileSync(
    join(dir, "old.json"),
    JSON.stringify(handMade("ses_old", { created: Date.UTC(2026, 0, 1), updated: Date.UTC(2026, 0, 2) })),
  );
  writeFileSync(
    join(dir, "new.json"),
    JSON.stringify(handMade("ses_new", { created: Date.UTC(2026, 5, 1), updated: Date.UTC(2026, 5, 1, 10) })),
  );
  // Created before the date, active after it: recent.
  writeFileSync(
    join(dir, "long.json"),
    JSON.stringify(handMade("ses_long", { created: Date.UTC(2025, 11, 1), updated: Date.UTC(2026, 5, 2) })),
  );

  it.each([
    ["2026-03-01", ["ses_long", "ses_new"]],
    ["2026-06-01T10:00:00Z", ["ses_long", "ses_new"]],
    ["2026-06-01T10:00:00.001Z", ["ses_long"]],
    ["2026-06-01T12:00+02:00", ["ses_long", "ses_new"]],
    ["2025-01-01", ["ses_long", "ses_old", "ses_new"]],
    ["2027-01-01", []],
  ])("--since %s keeps the sessions active since then", async (since, ids) => {
    const { code, stdout } = await cli(["audit", dir, "--json", "--since", since]);
    expect(code).toBe(0);
    const audit = JSON.parse(stdout) as AuditJson;
    expect(audit.sessions.map((s) => s.sessionID)).toEqual(ids);
    expect(audit.totals.sessions).toBe(ids.length);
  });

  it("parseSince: ISO dates only", () => {
    expect(parseSince("2026-11-30")).toBe(Date.UTC(2026, 10, 30));
    expect(parseSince("2026-11-30T18:22:05Z")).toBe(Date.UTC(2026, 10, 30, 18, 22, 5));
    expect(parseSince("2026-11-30T18:22:05.250-01:30")).toBe(Date.UTC(2026, 10, 30, 19, 52, 5, 250));
    for (const bad of ["yesterday", "30/11/2026", "2026-02-30", "2026-13-01", "2026-11-30T25:00", "1700000000000", ""]) {
      expect(parseSince(bad), bad).toBeNull();
    }
  });
});

describe("audit: usage and input errors exit 2 with one line", () => {
  const dir = mkdtempSync(join(tmpdir(), "ocg-audit-bad-"));
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "notes.json"), "not an export");
  writeFileSync(join(dir, "notes.txt"), "not read: not *.json");

  it.each([
    ["--since yesterday", [FIXTURES, "--since", "yesterday"], /--since must be an ISO date .*, got "yesterday"$/],
    ["--since 2026-02-30", [FIXTURES, "--since", "2026-02-30"], /--since must be an ISO date/],
    ["an unknown flag", [FIXTURES, "--jsonn"], /^opencode-compaction-guard: unknown option --jsonn; did you mean --json\? \(try --help\)$/],
    ["a bad setting", [FIXTURES, "--threshold", "many"], /--threshold: threshold must be an integer from 2 to 1000, got "many"$/],
    ["a limit alone", [FIXTURES, "--output-limit", "2000"], /--output-limit needs --context-limit too$/],
    ["--opencode with paths", [FIXTURES, "--opencode", "opencode"], /--opencode is for audit with no path/],
    ["--recursive without a path", ["-r"], /--recursive needs a folder to read$/],
    ["--html without a name", [FIXTURES, "--html="], /--html needs a file name$/],
    [
      "a missing opencode",
      ["--opencode", "/nonexistent/bin/opencode"],
      /opencode not found: \/nonexistent\/bin\/opencode \(install opencode/,
    ],
  ])("%s", async (_, args, message) => {
    const { code, stdout, stderr } = await cli(["audit", ...args]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(stderr.trim()).toMatch(/^opencode-compaction-guard: /);
    expect(stderr.trim()).toMatch(message);
  });

  it("only files that are not exports: each skipped, one line, then exit 2; sub-folders are not read without -r", async () => {
    const { code, stdout, stderr } = await cli(["audit", dir]);
    expect([code, stdout]).toEqual([2, ""]);
    expect(stderr.split("\n").filter(Boolean)).toEqual([
      "passed over 1 file in the folders given: only *.json and *.jsonl files are read there",
      `skipped ${join(dir, "notes.json")}: is not valid JSON (Unexpected token 'o', "not an export" is not valid JSON); truncated or not an export?`,
      "opencode-compaction-guard: nothing to audit: no opencode session export in the folder given (each file passed over is named above)",
    ]);
  });

  it("an empty folder: says so, and nothing at all to read is exit 2; beside a folder with exports, a note only", async () => {
    const empty = mkdtempSync(join(tmpdir(), "ocg-audit-empty-"));
    expect(await cli(["audit", empty])).toEqual({
      code: 2,
      stdout: "",
      stderr: `no export files found in ${empty}\nopencode-compaction-guard: nothing to audit: no opencode session export in the folder given (each file passed over is named above)\n`,
    });
    const both = await cli(["audit", empty, join(FIXTURES, "e2e-healthy.json"), "--json"]);
    expect([both.code, both.stderr]).toEqual([0, `no export files found in ${empty}\n`]);
    expect(JSON.parse(both.stdout).totals.sessions).toBe(1);
  });

  it("--help shows audit's usage; replay is untouched", async () => {
    const { code, stdout } = await cli(["audit", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: opencode-compaction-guard audit [<export.json | transcript.jsonl | folder>...] [options]");
    expect(stdout).toContain("--since DATE");
    expect((await cli(["replay", join(FIXTURES, "e2e-healthy.json"), "--since", "2026-01-01"])).stderr).toMatch(/unknown option --since/);
  });

  it("formatSeconds", () => {
    expect([formatSeconds(0), formatSeconds(29.5), formatSeconds(65), formatSeconds(3725)]).toEqual([
      "0.0 s",
      "29.5 s",
      "1 min 05 s",
      "1 h 02 min",
    ]);
  });
});

describe("--html and replay --chart (the pages and charts are drawn by report/html.ts and report/chart.ts)", () => {
  it("audit --html writes one self-contained page with every listed session, and says where in one line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-html-"));
    const page = join(dir, "report.html");
    const { code, stdout, stderr } = await cli(["audit", FIXTURES, "--html", page]);
    expect(code).toBe(0);
    expect(stdout.trimEnd().split("\n").at(-1)).toBe(`HTML report written to ${page}`);
    expect(stderr.split("\n").filter(Boolean)).toHaveLength(1); // the skipped expect.json
    const html = readFileSync(page, "utf8");
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/i);
    for (const id of ["ses_dd48353bdffeeLNjPk1FftaDqf", "ses_dd42ec0c1ffebQWsYCN8ZKZND9"]) expect(html).toContain(id);
    // With --json the line goes to standard error: standard output stays one JSON object.
    const json = await cli(["audit", FIXTURES, "--json", "--html", page]);
    expect(JSON.parse(json.stdout).totals.sessions).toBe(25);
    expect(json.stderr.trimEnd().split("\n").at(-1)).toBe(`HTML report written to ${page}`);
  });

  it("audit --html into a folder that does not exist: one line, exit 2", async () => {
    const { code, stderr } = await cli(["audit", FIXTURES, "--html", "/nonexistent/dir/report.html"]);
    expect(code).toBe(2);
    expect(stderr.trimEnd().split("\n").at(-1)).toBe(
      "opencode-compaction-guard: cannot write the HTML report to /nonexistent/dir/report.html: its folder does not exist (ENOENT)",
    );
  });

  it("replay --chart draws the chart under the unchanged table; with --json it is a usage error", async () => {
    const loop = join(FIXTURES, "e2e-fixed-point-unguarded.json");
    const plain = await cli(["replay", loop, "--context-limit", "8000", "--output-limit", "2000"]);
    const charted = await cli(["replay", loop, "--context-limit", "8000", "--output-limit", "2000", "--chart"]);
    expect(charted.code).toBe(0);
    expect(charted.stdout.startsWith(plain.stdout)).toBe(true);
    const chart = charted.stdout.slice(plain.stdout.length).trimEnd().split("\n");
    expect(chart[0]).toBe("");
    // 9 steps of 4 columns: X (first deny, cannot-make-room) after step 1, x after the next 7; the 9th step (refused) after them.
    expect(chart.find((l) => l.includes("X"))?.trim()).toBe("X...x...x...x...x...x...x...x....");
    for (const line of chart) expect(line.length).toBeLessThanOrEqual(80);
    expect(await cli(["replay", loop, "--chart", "--json"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "opencode-compaction-guard: --chart draws under the table; it does not go with --json\n",
    });
  });
});

describe("the progress bar", () => {
  /** A writable stream that says it is (or is not) a terminal, and keeps what it got. */
  const terminal = (isTTY: boolean) => {
    const stream = Object.assign(
      new Writable({
        write(chunk, _encoding, done) {
          stream.text += String(chunk);
          done();
        },
      }),
      { isTTY, columns: 100, text: "" },
    );
    return stream;
  };

  it("is drawn on a terminal while files are read, then cleared; nothing on a pipe; standard output is the same", async () => {
    const outputs: string[] = [];
    for (const isTTY of [true, false]) {
      const stream = terminal(isTTY);
      let stdout = "";
      const code = await main(
        ["audit", FIXTURES, "-r", "--json"],
        (t) => (stdout += t),
        () => undefined,
        {},
        stream,
      );
      expect(code).toBe(0);
      outputs.push(stdout);
      if (isTTY) {
        expect(stream.text).toContain("audit ");
        expect(stream.text).toContain(" 191/191 files"); // 93 exports, 87 held ones, their 4 expect.json and 7 transcripts
        expect(stream.text.endsWith("\u001b[2K")).toBe(true); // the line is cleared at the end
      } else expect(stream.text).toBe("");
    }
    expect(outputs[0]).toBe(outputs[1]);
  });
});

const FAKE_OPENCODE = fileURLToPath(new URL("../support/fake-opencode.mjs", import.meta.url));
const AUDIT_TTY = fileURLToPath(new URL("../support/audit-tty.ts", import.meta.url));

/** A fake `opencode` list endpoint with opencode 1.18.33's paging (see fake-opencode.mjs), called in-process. */
function fakeList(updated: number[], maxCalls = 50) {
  const sessions = updated.map((u, i) => ({ id: `ses_${String(i).padStart(5, "0")}`, time: { created: u, updated: u } }));
  const calls: Array<{ limit: number; cursor?: number }> = [];
  const list: ListPage = async (query) => {
    calls.push({ limit: query.limit, ...(query.cursor !== undefined ? { cursor: query.cursor } : {}) });
    if (calls.length > maxCalls) throw new Error(`still paging after ${maxCalls} pages`);
    const rows = sessions
      .filter((s) => (!query.start || s.time.updated >= query.start) && (!query.cursor || s.time.updated < query.cursor))
      .sort((a, b) => b.time.updated - a.time.updated || (a.id < b.id ? 1 : -1))
      .slice(0, query.limit + 1);
    const more = rows.length > query.limit;
    const data = more ? rows.slice(0, query.limit) : rows;
    const headers = new Headers(more ? { "x-next-cursor": String(data.at(-1)!.time.updated) } : {});
    return { data, response: new Response(null, { status: 200, headers }) };
  };
  return { list, calls, ids: sessions.map((s) => s.id) };
}

describe("review defects: audit with no path reads every session once, and stops", () => {
  const T = Date.UTC(2026, 10, 1);

  it("the pager stops on the last page (no x-next-cursor), and keeps sessions sharing the boundary's ms", async () => {
    // 2,500 sessions, one a second, newest first; 999, 1,000 and 1,001 share one ms (the first page ends at 999).
    const updated = Array.from({ length: 2500 }, (_, i) => T - i * 1000);
    for (const i of [1000, 1001]) updated[i] = updated[999]!;
    const fake = fakeList(updated);
    const listed = await listAllSessions(fake.list, null);
    expect(listed.map((s) => s.id).sort()).toEqual(fake.ids);
    // Three pages: the second asked with the cursor + 1 (updated at or before the boundary), the last with no header.
    expect(fake.calls).toEqual([{ limit: 1000 }, { limit: 1000, cursor: updated[999]! + 1 }, { limit: 1000, cursor: updated[1998]! + 1 }]);
  });

  it("the pager: more sessions than a page in one ms are read with a longer page; --since keeps the later ones", async () => {
    const updated = [T, ...Array.from({ length: 30 }, () => T - 1000), T - 2000, T - 3000];
    const fake = fakeList(updated);
    const listed = await listAllSessions(fake.list, null, 10);
    expect(listed.map((s) => s.id).sort()).toEqual([...fake.ids].sort());
    expect(fake.calls.map((c) => c.limit)).toEqual([10, 10, 20, 40]);
    const since = await listAllSessions(fakeList(updated).list, T - 1000, 10);
    expect(since).toHaveLength(31);
    // One page, no header: one request.
    const one = fakeList([T, T - 1]);
    expect(await listAllSessions(one.list, null)).toHaveLength(2);
    expect(one.calls).toHaveLength(1);
  });

  it("audit with no path through a fake opencode with 2,003 sessions: each read once, the run ends", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "ocg-fake-")), "requests.log");
    const env = { FAKE_SESSIONS: "2003", FAKE_SAME_UPDATED: "3", FAKE_LOG: log, PATH: process.env.PATH ?? "" };
    const { code, stdout, stderr } = await cli(["audit", "--opencode", FAKE_OPENCODE, "--json"], env);
    expect([code, stderr]).toEqual([0, ""]);
    expect(JSON.parse(stdout).totals.sessions).toBe(2003);
    const requests = readFileSync(log, "utf8").trim().split("\n");
    expect(requests.filter((r) => r.includes("/experimental/session"))).toHaveLength(3);
    expect(new Set(requests.filter((r) => r.endsWith("/message"))).size).toBe(2003);
  }, 60_000);

  it("a session whose messages never come: one line after the timeout, and the server is stopped", async () => {
    const { openOpencode } = await import("../../src/sources/opencode.js");
    const opened = await openOpencode(
      FAKE_OPENCODE,
      { FAKE_SESSIONS: "2", FAKE_HANG_MESSAGES: "1", PATH: process.env.PATH ?? "" },
      { requestTimeoutMs: 300 },
    );
    expect(opened.total).toBe(2);
    const started = performance.now();
    const read = async () => {
      for await (const _ of opened.items()) void _;
    };
    await expect(read()).rejects.toThrow(/^opencode did not answer within 0\.3 s while the messages of ses_000000 were read$/);
    expect(performance.now() - started).toBeLessThan(5_000);
    await opened.close();
  }, 30_000);
});

describe("review defects: each session counted once", () => {
  it("the same session in two files: counted once (the one with more messages, else the later), one line on stderr", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-dup-"));
    const full = handMade("ses_dup");
    const short = { ...full, messages: full.messages.slice(0, 8) };
    writeFileSync(join(dir, "a-full.json"), JSON.stringify(full));
    writeFileSync(join(dir, "b-short.json"), JSON.stringify(short));
    writeFileSync(join(dir, "c-other.json"), JSON.stringify(handMade("ses_other")));
    const { code, stdout, stderr } = await cli(["audit", dir, "--json"]);
    expect(code).toBe(0);
    expect(stderr).toBe(
      `duplicate session ses_dup in ${join(dir, "b-short.json")} and ${join(dir, "a-full.json")}: counted once, from ${join(dir, "a-full.json")} (more messages)\n`,
    );
    const audit = JSON.parse(stdout) as AuditJson;
    expect(audit.sessions.map((s) => s.source)).toEqual([join(dir, "a-full.json"), join(dir, "c-other.json")]);
    expect(audit.totals).toEqual({ sessions: 2, looping: 2, stoppedByGuard: 0, continuesSaved: 4, tokensAfterDeny: 28_740 });
    // Same messages: the later time.updated wins, whichever file is read first.
    const later = { ...full, info: { ...full.info, time: { created: T0, updated: T0 + 99_000 } } };
    writeFileSync(join(dir, "b-short.json"), JSON.stringify(later));
    const again = await cli(["audit", join(dir, "b-short.json"), join(dir, "a-full.json"), "--json"]);
    expect(again.stderr).toMatch(/counted once, from .*b-short\.json \(the later one\)\n$/);
    expect((JSON.parse(again.stdout) as AuditJson).totals.sessions).toBe(1);
    // The table's totals say the session read twice is one, and name no --since that was not given.
    const table = await cli(["audit", dir]);
    expect(table.stdout).toMatch(/^totals: 3 sessions read, 2 distinct: 2 with automatic compactions \(listed\), 0 without;/m);
    const since = await cli(["audit", dir, "--since", "2999-01-01"]);
    expect(since.stdout).toMatch(/^totals: 3 sessions read, 0 active since --since: 0 with automatic compactions/m);
  });

  it("-r follows symbolic links but reads each folder and file once: no loop, no ELOOP spam", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-links-"));
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", "a.json"), JSON.stringify(handMade("ses_a")));
    symlinkSync(dir, join(dir, "sub", "up")); // a loop
    symlinkSync(join(dir, "sub"), join(dir, "again")); // the same folder twice
    symlinkSync(join(dir, "sub", "a.json"), join(dir, "link.json")); // the same file twice
    const { code, stdout, stderr } = await cli(["audit", dir, "-r", "--json", join(dir, "sub", "a.json")]);
    expect([code, stderr]).toEqual([0, ""]);
    expect((JSON.parse(stdout) as AuditJson).totals.sessions).toBe(1);
    // A folder with nothing but a link loop: one line for the link, and the folder named right.
    const lonely = mkdtempSync(join(tmpdir(), "ocg-audit-loop-"));
    symlinkSync(join(lonely, "self"), join(lonely, "self"));
    symlinkSync(lonely, join(lonely, "up"));
    const loop = await cli(["audit", lonely, "-r"]);
    expect(loop).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `no export files found in ${lonely}\n` +
        `skipped ${join(lonely, "self")}: a symbolic link loop\n` +
        "opencode-compaction-guard: nothing to audit: no opencode session export in the folder given (each file passed over is named above)\n",
    });
    const two = await cli(["audit", lonely, join(lonely, "self")]);
    expect(two.stderr.trim().split("\n").at(-1)).toBe(
      "opencode-compaction-guard: nothing to audit: no opencode session export in the folder and the file given (each file passed over is named above)",
    );
  });

  it("--since says how many sessions it left out for having no time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-notime-"));
    const timeless = handMade("ses_timeless");
    writeFileSync(join(dir, "t.json"), JSON.stringify({ ...timeless, info: { ...timeless.info, time: undefined } }));
    writeFileSync(join(dir, "n.json"), JSON.stringify(handMade("ses_new")));
    const { code, stdout, stderr } = await cli(["audit", dir, "--since", "2026-01-01", "--json"]);
    expect([code, stderr]).toEqual([0, "1 session without a time was left out by --since\n"]);
    expect((JSON.parse(stdout) as AuditJson).sessions.map((s) => s.sessionID)).toEqual(["ses_new"]);
  });
});

describe("review defects: Ctrl-C during the progress bar", () => {
  /**
   * Starts audit-tty.ts, waits until the bar is drawn, sends `signal`; resolves with what it
   * wrote and its exit code as a shell sees it (128 + the signal's number when the signal ended it).
   */
  function interrupt(args: string[], env: Record<string, string>, signal: NodeJS.Signals) {
    return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", AUDIT_TTY, ...args], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      let sent = false;
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`no progress bar within 20 s: ${JSON.stringify(stderr)}`));
      }, 20_000);
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        if (!sent && stderr.includes("\u001b[?25l") && stderr.includes("audit ")) {
          sent = true;
          setTimeout(() => child.kill(signal), 50);
        }
      });
      child.on("exit", (code, ended) => {
        clearTimeout(timer);
        resolve({ code: code ?? 128 + osConstants.signals[ended!], stderr });
      });
    });
  }

  /** The terminal modes cli-progress changed are back: the cursor shown and line wrap on, after the last hide. */
  const restored = (stderr: string) => {
    const hidden = stderr.lastIndexOf("\u001b[?25l");
    return (
      hidden !== -1 && stderr.indexOf("\u001b[?25h", hidden) !== -1 && stderr.indexOf("\u001b[?7h", stderr.lastIndexOf("\u001b[?7l")) !== -1
    );
  };

  it.each(["SIGINT", "SIGTERM"] as const)(
    "with paths (%s): the cursor and line wrap come back",
    async (signal) => {
      // 3,000 hard links to one long export: seconds of reading, the bar drawn all along.
      const dir = mkdtempSync(join(tmpdir(), "ocg-audit-sig-"));
      writeFileSync(join(dir, "0.json"), readFileSync(join(FIXTURES, "review/loop-70-step-cycle-big-model.json")));
      for (let i = 1; i < 3000; i++) linkSync(join(dir, "0.json"), join(dir, `${i}.json`));
      const { code, stderr } = await interrupt([dir], {}, signal);
      expect(code).toBe(signal === "SIGINT" ? 130 : 143);
      expect(restored(stderr)).toBe(true);
    },
    30_000,
  );

  it("with no path (SIGINT): the cursor comes back, the server is stopped and its working folder removed", async () => {
    const tmp = mkdtempSync(join(tmpdir(), "ocg-audit-tmp-"));
    const { code, stderr } = await interrupt(
      ["--opencode", FAKE_OPENCODE],
      { TMPDIR: tmp, FAKE_SESSIONS: "3", FAKE_HANG_MESSAGES: "1" },
      "SIGINT",
    );
    expect(code).toBe(130);
    expect(restored(stderr)).toBe(true);
    expect(readdirSync(tmp).filter((name) => name.startsWith("ocg-audit-"))).toEqual([]);
    const ps = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
    expect(ps.split("\n").filter((l) => l.includes(FAKE_OPENCODE))).toEqual([]);
  }, 30_000);
});

describe("review defects: what reaches the terminal", () => {
  it("--html to a path that cannot be written: exit 2, one line, before any session is read", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-htmlbad-"));
    for (const [target, code] of [
      [join(dir, "missing", "r.html"), "its folder does not exist (ENOENT)"],
      [dir, "it is a folder; name a file in it (EISDIR)"],
    ] as const) {
      const run = await cli(["audit", FIXTURES, "--html", target]);
      expect(run).toEqual({
        code: 2,
        stdout: "",
        stderr: `opencode-compaction-guard: cannot write the HTML report to ${target}: ${code}\n`,
      });
    }
  });

  it("control, C1 and bidi characters from files, titles and opencode are shown escaped, never raw", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-ctl-"));
    writeFileSync(join(dir, "evil\u001b[2J.json"), "not json");
    const hand = handMade("ses_ctl");
    writeFileSync(join(dir, "t.json"), JSON.stringify({ ...hand, info: { ...hand.info, title: "a\u009b2Jb\u202ec\u2066d\u0007e\u007f" } }));
    const { code, stdout, stderr } = await cli(["audit", dir]);
    expect(code).toBe(0);
    expect(stderr).toContain(`skipped ${join(dir, "evil\\x1b[2J.json")}: `);
    expect(stdout).toContain("a\\x9b2Jb\\u202ec\\u2066d\\x07e\\x7f");
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    expect(stdout).not.toMatch(raw);
    expect(stderr).not.toMatch(raw);
    // A failing opencode's last words.
    const failing = join(dir, "failing-opencode");
    writeFileSync(failing, "#!/bin/sh\nprintf 'Error: \\033[31mlocked\\302\\233\\342\\200\\256 x\\n' >&2\nexit 3\n", { mode: 0o755 });
    const failed = await cli(["audit", "--opencode", failing]);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toBe(
      `opencode-compaction-guard: opencode serve (${failing}) exited with 3 before listening: Error: locked\\x9b\\u202e x\n`,
    );
  });

  it("the table lines up CJK and emoji titles by display width, and never cuts a surrogate pair", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-wide-"));
    const titles = ["plain ascii", "修复构建脚本的错误", "🙂".repeat(45)];
    titles.forEach((title, i) => {
      const hand = handMade(`ses_w${i}`);
      writeFileSync(join(dir, `${i}.json`), JSON.stringify({ ...hand, info: { ...hand.info, title } }));
    });
    const { stdout } = await cli(["audit", dir]);
    const lines = stdout.split("\n").slice(1, 4);
    expect(lines).toHaveLength(3);
    // The date column starts at the same display column on every row.
    const before = lines.map((l) => displayWidth(l.slice(0, l.indexOf("2026-11-30"))));
    expect(new Set(before).size).toBe(1);
    expect(stdout).not.toContain("\ufffd");
    expect(stdout).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(lines[2]).toContain(`${"🙂".repeat(19)}…`);
    expect([displayWidth("修复"), displayWidth("🙂"), displayWidth("e\u0301"), displayWidth("👍🏽"), displayWidth("ab")]).toEqual([
      4, 2, 1, 2, 2,
    ]);
  });
});

describe("review defects: unknown is not 0, and the user's own work is not saved", () => {
  it("no times and no token data after the deny: secondsAfterDeny and tokensAfterDeny null, '-' in the table", async () => {
    const hand = handMade("ses_bare");
    const bare = {
      info: { id: "ses_bare", title: "bare" },
      messages: hand.messages.map((m) => {
        const { info } = m as { info: Record<string, unknown> };
        const { time: _time, tokens, ...rest } = info;
        // Token data only before the first deny's summary (the first step).
        return { ...(m as object), info: info.id === "msg_002" ? { ...rest, tokens } : rest };
      }),
    };
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-bare-"));
    writeFileSync(join(dir, "bare.json"), JSON.stringify(bare));
    const json = JSON.parse((await cli(["audit", dir, "--json"])).stdout) as AuditJson;
    expect(json.sessions[0]).toMatchObject({ firstDeny: 2, continuesSaved: 2, tokensAfterDeny: null, secondsAfterDeny: null });
    expect(json.totals.tokensAfterDeny).toBe(0);
    const table = (await cli(["audit", dir])).stdout.split("\n");
    expect(table[1]).toMatch(/ 2 +no-new-work +ran on +2 +- +-$/);
  });

  it("the user's reply after the deny ends what it would have saved (fixtures/review/healthy-user-reply-after-overflow-denial.json)", async () => {
    const file = join(FIXTURES, "review/healthy-user-reply-after-overflow-denial.json");
    const json = JSON.parse((await cli(["audit", file, "--json"])).stdout) as AuditJson;
    // Denied at compaction 2; the user wrote right after its summary: the continue turn and the 30,650 + 330 + 14,150 + 15,150 tokens after that are the user's.
    expect(json.sessions[0]).toMatchObject({ firstDeny: 2, continuesSaved: 0, tokensAfterDeny: 0 });
    // The guard denied that continue turn in the run (no continue turn followed the summary): stopped by the guard.
    expect(json.sessions[0]!.stoppedByGuard).toBe(true);
    expect(json.totals).toEqual({ sessions: 1, looping: 0, stoppedByGuard: 1, continuesSaved: 0, tokensAfterDeny: 0 });
    // The hand-made loop with a real message after the deny: only the span before it counts.
    const hand = handMade("ses_user");
    const at = hand.messages.findIndex((m) => (m as { info: { id: string } }).info.id === "msg_010"); // the step at 40 s, after compaction 2
    const user = {
      info: { id: "msg_user", sessionID: "ses_user", role: "user", time: { created: T0 + 45_000 } },
      parts: [{ id: "prt_u", type: "text", text: "try another way" }],
    };
    const messages = [...hand.messages.slice(0, at + 1), user, ...hand.messages.slice(at + 1)];
    const row = auditSession(exportedSession({ ...hand, messages }), "x.json", { settings: DEFAULT_SETTINGS }).row;
    // The continue turn at 33 s and the step at 40 s (7,020 tokens, ends at 41 s): 9 s after the summary's end at 32 s.
    expect(row).toMatchObject({ firstDeny: 2, continuesSaved: 1, tokensAfterDeny: 7020, secondsAfterDeny: 9 });
  });
});

describe("--opencode <bin>", () => {
  it("a relative path is taken from the current directory (the server runs in a temporary one); a bare name stays for PATH", () => {
    expect(executablePath("./node_modules/.bin/opencode")).toBe(join(process.cwd(), "node_modules/.bin/opencode"));
    expect(executablePath("bin/opencode")).toBe(join(process.cwd(), "bin/opencode"));
    expect(executablePath("/usr/local/bin/opencode")).toBe("/usr/local/bin/opencode");
    expect(executablePath("opencode")).toBe("opencode");
  });
});

describe("newcomer issues: looping counts stopped loops only; never denied reads the same everywhere", () => {
  const restarted = join(FIXTURES, "judgement", "finished-then-restarted.json");
  const loop = join(FIXTURES, "opencode-1.18.33-loop-bash.json");
  const healthy = join(FIXTURES, "e2e-healthy.json");

  it("a turn-finished (info) first deny is housekeeping: not looping, but what it saved still counts", async () => {
    const row = auditSession(exportedSession(JSON.parse(readFileSync(restarted, "utf8")) as never), restarted, {
      settings: DEFAULT_SETTINGS,
    }).row;
    expect(row).toMatchObject({ firstDeny: 1, rule: "turn-finished", severity: "info", looped: false, continuesSaved: 3 });
    expect(row.tokensAfterDeny).toBe(174_800);
    const { code, stdout } = await cli(["audit", restarted, loop, healthy, "--json"]);
    expect(code).toBe(0);
    const audit = JSON.parse(stdout) as AuditJson;
    // 3 read; 2 denied, 1 of them a loop (no-progress) the guard itself stopped at its third
    // compaction; the restart's 3 continue turns and 174,800 tokens still saved.
    expect(audit.totals).toEqual({ sessions: 3, looping: 0, stoppedByGuard: 1, continuesSaved: 3 + 1, tokensAfterDeny: 174_800 + 7350 });
    const table = await cli(["audit", restarted, loop, healthy]);
    expect(table.stdout.trimEnd().split("\n").at(-1)).toBe(
      "totals: 3 sessions read, 3 with automatic compactions (listed), 0 without; 1 loop stopped by the guard, 0 ran on (looping); the guard would have saved 4 synthetic continue turns and 182,150 tokens",
    );
  });

  it("the HTML report: a housekeeping first deny grey, a loop the guard stopped grey, one that ran on red; both in the cards", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-"));
    const html = join(dir, "report.html");
    const unguarded = join(FIXTURES, "e2e-fixed-point-unguarded.json");
    const { code } = await cli(["audit", restarted, loop, healthy, unguarded, "--html", html]);
    expect(code).toBe(0);
    const page = readFileSync(html, "utf8");
    expect(page).toContain('<div class="total"><b>1</b><span>loops the guard stopped</span>');
    expect(page).toContain('<div class="total loop"><b>1</b><span>loops that ran on (the guard would have stopped them)</span>');
    const rows = [...page.matchAll(/<tr( class="[a-z]+")?><td class="session">.*?<\/tr>/g)].map((m) => m[0]);
    expect(rows).toHaveLength(4);
    expect(rows.find((r) => r.includes("ses_dd42ec0c1ffebQWsYCN8ZKZND9"))).toMatch(
      /^<tr class="loop">.*<td class="deny">#2 <span class="rule">no-progress<\/span><\/td>/,
    );
    const bySession = (id: string) => rows.find((r) => r.includes(id))!;
    expect(bySession("ses_finished_then_restarted")).toMatch(/^<tr class="housekeeping">/);
    expect(bySession("ses_finished_then_restarted")).toContain(
      '<td class="deny">#1 <span class="rule">turn-finished</span> <span class="why">(housekeeping)</span></td>',
    );
    expect(bySession("ses_dd48353bdffeeLNjPk1FftaDqf")).toMatch(/^<tr class="stopped">/);
    expect(bySession("ses_dd48353bdffeeLNjPk1FftaDqf")).toContain(
      '<td class="deny">#2 <span class="rule">no-progress</span> <span class="why">(stopped by the guard)</span></td>',
    );
    expect(page).toContain("tr.housekeeping td.deny { color: #6b7280; }");
    // The chart: the housekeeping deny's label grey and worded as housekeeping.
    expect(page).toMatch(/class="deny-label housekeeping">first deny #1 turn-finished \(housekeeping\)<\/text>/);
    expect(page).toMatch(/class="deny-label">first deny #2 no-progress<\/text>/);
  });

  it("a session never denied: `-` for continues, tokens and time saved in the table and the HTML; 0 in --json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ocg-audit-"));
    const html = join(dir, "report.html");
    const table = await cli(["audit", healthy, loop, "--html", html]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/ +first deny +rule +loop +continues saved +tokens saved +time saved$/);
    const quiet = lines.find((l) => l.startsWith("ses_dd42f0d8effeNfBHsd3ylExYB1"))!;
    expect(quiet).toMatch(/ 2 +- +- +- +- +- +-$/);
    const denied = lines.find((l) => l.startsWith("ses_dd48353bdffeeLNjPk1FftaDqf"))!;
    expect(denied).toMatch(/ 3 +2 +no-progress +stopped by guard +1 +7,350 +0\.4 s$/);
    const page = readFileSync(html, "utf8");
    expect(page).toContain('<th class="n">continues saved</th><th class="n">tokens saved</th><th class="n">time saved</th>');
    const quietRow = /<tr><td class="session">.*?ses_dd42f0d8effeNfBHsd3ylExYB1.*?<\/tr>/.exec(page)![0];
    expect(quietRow).toContain('<td class="deny">-</td><td class="n">-</td><td class="n">-</td><td class="n">-</td></tr>');
    const json = JSON.parse((await cli(["audit", healthy, "--json"])).stdout) as AuditJson;
    expect(json.sessions[0]).toMatchObject({ firstDeny: null, continuesSaved: 0, tokensAfterDeny: 0, secondsAfterDeny: 0 });
  });
});

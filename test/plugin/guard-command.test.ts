import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { replayTimeline } from "../../src/core.js";
import { resolveSettings } from "../../src/config/settings.js";
import { toolLoopNotice } from "../../src/judge/tool-loop.js";
import {
  findSwitch,
  guardReport,
  parseGuardArguments,
  switchLine,
  switchMetadata,
  type SessionMode,
} from "../../src/plugin/opencode-v1/guard-command.js";
import { bash, SessionBuilder, type Message } from "../support/session.js";

const exportOf = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8")) as { info: { id: string }; messages: Message[] };

/** A user message as `/guard <mode>` leaves it: one ignored text part carrying the switch. */
const switchMessage = (id: string, mode: SessionMode, ignored = true): Message => ({
  info: { id, sessionID: "ses_test", role: "user", agent: "build" },
  parts: [{ id: `prt_${id}`, type: "text", text: switchLine(mode), ignored, metadata: switchMetadata(mode) }],
});

/** The report of a session, as /guard writes it. */
function reportOf(messages: Message[], options?: unknown) {
  const resolved = resolveSettings(options, {});
  const timeline = buildTimeline(messages);
  const rows = replayTimeline(timeline, resolved.settings, { limits: { context: 8000, output: 2000 } });
  return guardReport({ sessionID: "ses_test", timeline, messages, rows, resolved, switched: findSwitch(messages) }).split("\n");
}

describe("parseGuardArguments", () => {
  it("nothing asks for the report; off, on and observe (any case, spaces around) for the switch", () => {
    expect(parseGuardArguments("")).toEqual({ kind: "report" });
    expect(parseGuardArguments("  ")).toEqual({ kind: "report" });
    expect(parseGuardArguments("off")).toEqual({ kind: "switch", mode: "off" });
    expect(parseGuardArguments(" ON ")).toEqual({ kind: "switch", mode: "on" });
    expect(parseGuardArguments("observe")).toEqual({ kind: "switch", mode: "observe" });
  });

  it("anything else is a usage line naming it, cut and terminal-safe", () => {
    expect(parseGuardArguments("of")).toEqual({ kind: "usage", problem: 'unknown argument "of"' });
    expect(parseGuardArguments("off now")).toEqual({ kind: "usage", problem: 'unknown argument "off now"' });
    const odd = parseGuardArguments("\u001b[31mred");
    expect(odd.kind === "usage" && odd.problem).not.toContain("\u001b");
  });
});

describe("findSwitch: the switch read back from the session's history", () => {
  const session = () => new SessionBuilder().user().step(bash("echo hi"));

  it("none in a session that never ran /guard", () => {
    expect(findSwitch(session().messages)).toBeUndefined();
  });

  it("the newest switch wins", () => {
    const messages = [...session().messages, switchMessage("msg_a", "off"), switchMessage("msg_b", "observe")];
    expect(findSwitch(messages)).toEqual({ mode: "observe", messageID: "msg_b" });
  });

  it("still found after compactions and steps that came after it", () => {
    const before = session();
    const messages: Message[] = [...before.messages, switchMessage("msg_off", "off")];
    const after = new SessionBuilder();
    for (let i = 0; i < 3; i++) after.step(bash("echo hi")).compact();
    messages.push(...after.messages);
    expect(buildTimeline(messages).compactions).toHaveLength(3);
    expect(findSwitch(messages)).toEqual({ mode: "off", messageID: "msg_off" });
  });

  it("a text the model reads (not ignored) does not switch, nor an assistant message, nor an unknown mode", () => {
    const assistant: Message = { ...switchMessage("msg_c", "off"), info: { id: "msg_c", role: "assistant" } };
    const unknown: Message = {
      info: { id: "msg_d", role: "user" },
      parts: [{ type: "text", text: "x", ignored: true, metadata: { compaction_guard: { switch: "sometimes" } } }],
    };
    expect(findSwitch([switchMessage("msg_b", "off", false), assistant, unknown])).toBeUndefined();
  });

  it("the switch message is no person speaking: the timeline reads it as synthetic", () => {
    const timeline = buildTimeline([switchMessage("msg_off", "off")]);
    expect(timeline.entries[0]).toMatchObject({ kind: "user", role: "synthetic" });
  });
});

describe("guardReport", () => {
  it("a session the guard stopped: compaction 1 allowed, compaction 2 stopped, with the note's words", () => {
    const lines = reportOf(exportOf("e2e-fixed-point.json").messages, { predict: false });
    expect(lines[0]).toBe("compaction-guard in this session: as configured (mode enforce); /guard off|on|observe changes it here.");
    expect(lines[1]).toBe("Automatic compactions: 2, 1 with a rule that fired.");
    expect(lines[2]).toMatch(/^ {2}compaction 1: allowed auto-continue: longest repeat \d+ runs?/);
    expect(lines[3]).toContain(
      "  compaction 2: stopped auto-continue (no-progress: the previous compaction left 7,000 tokens of context, down from 7,020 tokens (0% smaller)",
    );
    expect(lines[4]).toBe("Tool-time notices: none.");
    expect(lines[5]).toContain("Settings: threshold 3 (default), window 8 (default)");
    expect(lines[5]).toContain("predict false (option)");
    expect(lines[6]).toMatch(
      /^Prevention: on \(default\); \d of 2 summary requests were sent the list of calls already done, 1 continue turn was sent/,
    );
    expect(lines.at(-1)).toBe("(A note from the compaction-guard plugin: not sent to the model.)");
  });

  it("a session it left alone: every compaction allowed", () => {
    const lines = reportOf(exportOf("e2e-healthy.json").messages);
    expect(lines[1]).toBe("Automatic compactions: 2, 0 with a rule that fired.");
    expect(lines.filter((l) => l.includes(": allowed auto-continue: "))).toHaveLength(2);
    expect(lines.join("\n")).not.toContain("stopped");
  });

  it("a session with none yet, and prevention off: says so", () => {
    const lines = reportOf(new SessionBuilder().user().step(bash("ls")).messages, { prevent: false });
    expect(lines[1]).toBe("Automatic compactions: none yet.");
    expect(lines).toContain("Prevention: off (option).");
  });

  it("switched off: says so first, and a rule that fired while off reads as what it would have done", () => {
    const session = new SessionBuilder().user();
    const messages: Message[] = [...session.messages, switchMessage("msg_off", "off")];
    const loop = new SessionBuilder();
    for (let i = 0; i < 4; i++) loop.step(bash("npm test", "1 failing")).compact();
    messages.push(...loop.messages);
    const lines = reportOf(messages, { predict: false });
    expect(lines[0]).toBe("compaction-guard in this session: off, set by /guard off (the settings say mode enforce).");
    const fired = lines.filter((l) =>
      l.includes("would have stopped auto-continue, but the continue turn was added (observe mode, or /guard off)"),
    );
    expect(fired.length).toBeGreaterThan(0);
    expect(fired[0]).toContain("compaction 2: would have stopped auto-continue");
    expect(fired[0]).toContain("no-progress: the previous compaction left the context unchanged at 7,020 tokens");
  });

  it("counts the tool-time notices the session's tool results carry, by tool", () => {
    const session = new SessionBuilder().user();
    for (let i = 0; i < 2; i++) session.step(bash("make", `error 1${toolLoopNotice(3 + i, false)}`));
    session.step({ tool: "read", input: { filePath: "a.txt" }, output: `x${toolLoopNotice(3, false)}` });
    const lines = reportOf(session.messages);
    expect(lines.find((l) => l.startsWith("Tool-time notices"))).toBe(
      "Tool-time notices: bash ×2, read ×1 (the model was told a call repeated with the same result).",
    );
  });

  it("terminal-safe: a control character in a tool input does not reach the screen", () => {
    const session = new SessionBuilder().user();
    for (let i = 0; i < 4; i++) session.step(bash("echo \u001b[2Jhi", "hi")).compact();
    expect(reportOf(session.messages, { predict: false }).join("\n")).not.toContain("\u001b");
  });
});

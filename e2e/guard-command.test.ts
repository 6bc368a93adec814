/**
 * `/guard` in the real opencode 1.18.33: headless through `opencode run --command guard`
 * (./guard-command-flow.ts), and in the TUI (tmux, ./tui.ts): the report of a session the
 * guard stopped and of one it left alone, `/guard off` letting the next loop run to the
 * scripted cap while a new session is still guarded, the switch read back by a new opencode
 * process, and no model request for any of it.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAP, guardCommandFlow, lastNote, type GuardCommandFlow } from "./guard-command-flow.js";
import { startModelServer } from "./model-server.js";
import { PLUGIN_ENTRY } from "./replay.js";
import { opencodeBinary, writeOpencodeConfig } from "./sandbox.js";
import { scenarioSetup } from "./scenarios.js";
import { startTui } from "./tui.js";
import { ANSWERED } from "../src/plugin/opencode-v1/command.js";
import { switchLine } from "../src/plugin/opencode-v1/guard-command.js";

let flow: GuardCommandFlow;
/** The TUI's screens: /guard on the stopped session, on the healthy one, and /guard on there. */
const screens: Record<string, string> = {};
/** Model requests the server got while the TUI ran its commands. */
let tuiRequests = -1;

beforeAll(async () => {
  flow = await guardCommandFlow(opencodeBinary());
  const server = await startModelServer({
    scenario: "fixed-point",
    readPath: flow.sandbox.readPath,
    projectDir: flow.sandbox.project,
    maxRequests: CAP,
  });
  try {
    await writeOpencodeConfig(flow.sandbox, {
      baseURL: server.baseURL,
      limits: scenarioSetup("fixed-point").limits,
      plugin: [pathToFileURL(PLUGIN_ENTRY).href],
    });
    for (const [name, session, command, wait] of [
      ["stopped", flow.other.export.info.id, "/guard", "Automatic compactions:"],
      ["healthy", flow.healthy, "/guard", "Automatic compactions:"],
      ["observe", flow.healthy, "/guard observe", "in observe mode in this session"],
    ] as const) {
      const tui = await startTui(flow.sandbox, ["--session", session]);
      try {
        await tui.submit(command);
        screens[name] = await tui.waitFor(wait);
        await writeFile(join(flow.sandbox.root, `tui-${name}.ansi`), tui.screen(true));
        if (process.env.GUARD_TUI_CAPTURE) await writeFile(`${process.env.GUARD_TUI_CAPTURE}-${name}.ansi`, tui.screen(true));
      } finally {
        tui.stop();
      }
    }
    tuiRequests = server.requests.length;
  } finally {
    await server.close();
  }
}, 600_000);

afterAll(async () => {
  await flow?.sandbox.dispose();
});

describe("/guard, headless (opencode run --command guard)", () => {
  it("shows the decisions of the session it stopped: compaction 1 allowed, compaction 2 stopped, no model request", () => {
    const { reportStopped } = flow;
    const note = lastNote(reportStopped.export);
    expect(note.split("\n")[0]).toBe(
      "compaction-guard in this session: as configured (mode enforce); /guard off|on|observe changes it here.",
    );
    expect(note).toContain("Automatic compactions: 2, 1 with a rule that fired.");
    expect(note).toMatch(/compaction 1: allowed auto-continue: /);
    expect(note).toContain("compaction 2: stopped auto-continue (no-progress: the previous compaction left 7,000 tokens of context");
    expect(note).toContain("predict false (env)");
    expect(reportStopped.requests).toEqual([]);
    // opencode ends the command on the guard's throw: `run` prints it and exits 1.
    expect(reportStopped.stdout + reportStopped.stderr).toContain(ANSWERED);
  });

  it("shows the session it left alone: every compaction allowed", () => {
    const note = lastNote(flow.reportHealthy.export);
    expect(note).toContain("Automatic compactions: 2, 0 with a rule that fired.");
    expect(note.match(/: allowed auto-continue: /g)).toHaveLength(2);
    expect(flow.reportHealthy.requests).toEqual([]);
  });

  it("/guard off: one line, no model request, and nothing the model reads", () => {
    expect(lastNote(flow.off.export)).toBe(switchLine("off"));
    expect(flow.off.requests).toEqual([]);
    const last = flow.off.export.messages.at(-1)!;
    expect(last.info.role).toBe("user");
    expect(last.parts.every((p) => p.type === "text" && p.ignored === true)).toBe(true);
  });

  it("the next loop in that session (a new opencode process) runs to the scripted cap; the guard says it left it alone", () => {
    const { afterOff, stopped } = flow;
    const answered = afterOff.requests.filter((r) => r.kind !== "title" && r.reply !== "cap");
    expect(answered).toHaveLength(CAP);
    expect(afterOff.requests.some((r) => r.reply === "cap")).toBe(true);
    expect(afterOff.decisions.filter((d) => d.decision === "deny")).toEqual([]);
    expect(afterOff.lines).toContain(
      `compaction-guard left session ${stopped} alone: /guard off in that session; auto-continue left to opencode`,
    );
    // None of the guard's words reached the model: the requests after the switch carry no switch text.
    expect(afterOff.stdout).not.toContain("A note from the plugin");
  });

  it("another session is still guarded: stopped at compaction 2", () => {
    const deny = flow.other.decisions.find((d) => d.decision === "deny");
    expect(deny?.rule).toBe("no-progress");
    expect(flow.other.requests.filter((r) => r.reply === "cap")).toEqual([]);
  });
});

describe("/guard in the TUI", () => {
  it("shows the decisions of a session the guard stopped", () => {
    expect(screens.stopped).toContain("Automatic compactions: 2, 1 with a rule that fired.");
    expect(screens.stopped).toContain("compaction 2: stopped auto-continue (no-progress:");
  });

  it("shows a session it left alone", () => {
    expect(screens.healthy).toContain("Automatic compactions: 2, 0 with a rule that fired.");
  });

  it("/guard observe answers with its one line", () => {
    expect(screens.observe).toContain("compaction-guard is in observe mode in this session");
  });

  it("cost no model request", () => {
    expect(tuiRequests).toBe(0);
  });
});

/**
 * The TUI part of the 2.x module (`tui` of `{ id, setup, tui }`, src/plugin/opencode-v2/v2-tui.ts)
 * in fake TUI hosts built from the published interfaces: the 2.x TUI context (keymap layer,
 * router, dialog, `data.session.message`) and 1.18.33's `TuiPluginApi` (command.register,
 * route, toast, state). `/guard` must be registered, answer from the session shown, and never throw.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import defaultExport from "../../src/plugin/opencode-v2/v2-entry.js";
import { createV2Tui, TUI_GUARD_ID } from "../../src/plugin/opencode-v2/v2-tui.js";

const json = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), "utf8"));
const V2_LOOP = json("../fixtures/v2/loop-messages.json") as { data: unknown[] };
const V1_LOOP = json("../../fixtures/e2e-fixed-point.json") as {
  info: { id: string };
  messages: Array<{ info: { id: string }; parts: unknown[] }>;
};

/** A 2.x TUI context: the layers it was given, the dialogs and toasts it showed. */
function tuiContext(route: unknown, messages: () => unknown[]) {
  const layers: Array<() => { commands: Array<Record<string, unknown>> }> = [];
  const alerts: Array<{ title: string; message: string }> = [];
  const toasts: unknown[] = [];
  const sync = vi.fn(async () => undefined);
  const ctx = {
    options: { threshold: 3 },
    keymap: { layer: (input: (typeof layers)[number]) => layers.push(input) },
    ui: {
      router: { current: () => route },
      dialog: { alert: vi.fn(async (o: { title: string; message: string }) => void alerts.push(o)) },
      toast: { show: (o: unknown) => void toasts.push(o) },
    },
    data: { session: { message: { list: vi.fn(() => messages()), sync } } },
  };
  return { ctx, layers, alerts, toasts, sync };
}

const tuiOf = () => createV2Tui({ env: {}, cwd: "/nonexistent", warn: (line) => warned.push(line) });
let warned: string[] = [];
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe("the TUI part of the 2.x module", () => {
  it("is the default export's `tui`; in a 2.x TUI it registers /guard as a slash command (arguments kept)", async () => {
    warned = [];
    const { ctx, layers } = tuiContext({ type: "home" }, () => []);
    await defaultExport.tui(ctx, undefined);
    expect(layers).toHaveLength(1);
    const [command] = layers[0]!().commands;
    expect(command).toMatchObject({ id: TUI_GUARD_ID, slash: { name: "guard", arguments: true } });
    expect(typeof command!.run).toBe("function");
  });

  it("/guard on a 2.x session: the decisions at its compactions from the TUI's own data, in a dialog; the options apply", async () => {
    warned = [];
    const { ctx, layers, alerts, sync } = tuiContext({ type: "session", sessionID: "ses_loop" }, () => V2_LOOP.data);
    await tuiOf()(ctx);
    (layers[0]!().commands[0]!.run as () => void)();
    await settle();
    expect(sync).toHaveBeenCalledWith("ses_loop");
    expect(alerts).toHaveLength(1);
    const lines = alerts[0]!.message.split("\n");
    expect(lines[0]).toBe("compaction-guard in this session: mode enforce.");
    expect(lines[1]).toBe("Automatic compactions: 6, 5 with a rule that fired.");
    expect(lines.find((l) => l.includes("would stop the session here"))).toMatch(/^ {2}compaction \d+: would stop the session here \(/);
    expect(alerts[0]!.message).toContain("threshold 3 (option)");
    expect(lines.at(-1)).toBe("(Shown by the compaction-guard plugin in the TUI only: not sent to the model.)");
    expect(warned).toEqual([]);
  });

  it("in the 1.18.33 TUI api: command.register, the session's V1 messages from state, the answer as a toast", async () => {
    warned = [];
    const registered: Array<() => Array<Record<string, unknown>>> = [];
    const toasts: Array<{ message: string }> = [];
    const api = {
      command: { register: (cb: (typeof registered)[number]) => registered.push(cb) },
      route: { current: { name: "session", params: { sessionID: V1_LOOP.info.id } } },
      ui: { toast: (t: { message: string }) => void toasts.push(t) },
      state: {
        session: { messages: () => V1_LOOP.messages.map((m) => m.info) },
        part: (id: string) => V1_LOOP.messages.find((m) => m.info.id === id)!.parts,
      },
    };
    await tuiOf()(api, { predict: false });
    const [command] = registered[0]!();
    expect(command).toMatchObject({ value: TUI_GUARD_ID, slash: { name: "guard" } });
    (command!.onSelect as () => void)();
    await settle();
    expect(toasts).toHaveLength(1);
    expect(toasts[0]!.message).toContain("Automatic compactions: 2, 1 with a rule that fired.");
    expect(toasts[0]!.message).toContain("compaction 2: stopped auto-continue (no-progress:");
  });

  it("never throws: no session shown, messages that cannot be read, a host with neither registry, no context at all", async () => {
    warned = [];
    const home = tuiContext({ type: "home" }, () => []);
    await tuiOf()(home.ctx);
    (home.layers[0]!().commands[0]!.run as () => void)();
    await settle();
    expect(home.alerts.map((a) => a.message)).toEqual(["compaction-guard: open a session first; /guard reports on the session shown."]);

    const broken = tuiContext({ type: "session", sessionID: "ses_x" }, () => {
      throw new Error("store closed");
    });
    await tuiOf()(broken.ctx);
    (broken.layers[0]!().commands[0]!.run as () => void)();
    await settle();
    expect(broken.toasts).toEqual([{ title: "compaction-guard", message: "/guard failed: store closed", variant: "error" }]);
    expect(warned).toEqual(["WARN compaction-guard could not answer /guard in the TUI: store closed"]);

    warned = [];
    await expect(tuiOf()({ ui: {} })).resolves.toBeUndefined();
    await expect(tuiOf()(undefined)).resolves.toBeUndefined();
    expect(warned).toEqual([
      "WARN compaction-guard: this TUI hands plugins neither keymap.layer nor command.register: no /guard here",
      "WARN compaction-guard: this TUI hands plugins neither keymap.layer nor command.register: no /guard here",
    ]);
  });
});

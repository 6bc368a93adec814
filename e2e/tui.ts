/**
 * The real opencode TUI in a detached tmux session of a fixed size, on a tmux server of its
 * own (a private socket, ended by name when done): start it in a sandbox, type, read the
 * screen. What the screen shows is what a user sees.
 */
import { execFileSync } from "node:child_process";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Sandbox } from "./sandbox.js";

/** One TUI in tmux. */
export interface Tui {
  /** The screen now: plain text, or with colours (`capture-pane -e`). */
  screen(colours?: boolean): string;
  /**
   * Types `text` and presses Enter. A command typed alone gets a space after it: with the
   * autocomplete list open, opencode's TUI takes Enter as picking an entry, not as sending.
   */
  submit(text: string): Promise<void>;
  /** Waits until the screen shows `text`; returns that screen. Throws with the last screen after `ms`. */
  waitFor(text: string, ms?: number): Promise<string>;
  /** Ends the tmux server (and opencode in it). */
  stop(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts `opencode <args>` (e.g. `["--session", id]`) in the sandbox's project, in a tmux pane
 * of `cols` × `rows`, and waits until its prompt box is drawn (the model's name on screen).
 */
export async function startTui(sandbox: Sandbox, args: string[], size = { cols: 120, rows: 40 }): Promise<Tui> {
  const socket = `ocg-tui-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const launch = join(sandbox.root, `${socket}.sh`);
  const env: Record<string, string> = { ...sandbox.env, COLORTERM: "truecolor", TERM: "tmux-256color" };
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  await writeFile(
    launch,
    [
      "#!/usr/bin/env bash",
      ...Object.entries(env).map(([k, v]) => `export ${k}=${quote(v)}`),
      `cd ${quote(sandbox.project)}`,
      `${quote(sandbox.opencodeBin)} --model fake/fakemodel ${args.map(quote).join(" ")}`,
      "sleep 3600",
    ].join("\n"),
  );
  await chmod(launch, 0o755);
  const conf = join(sandbox.root, `${socket}.conf`);
  await writeFile(conf, ["set -g default-terminal tmux-256color", "set -g status off", "set -g history-limit 0"].join("\n"));
  const tmux = (...a: string[]) =>
    execFileSync("tmux", ["-L", socket, ...a], { encoding: "utf8", env: { PATH: env.PATH ?? "/usr/bin:/bin", HOME: env.HOME ?? "/" } });
  tmux("-f", conf, "new-session", "-d", "-s", "oc", "-x", String(size.cols), "-y", String(size.rows), launch);
  const tui: Tui = {
    screen: (colours = false) => tmux("capture-pane", "-p", ...(colours ? ["-e"] : []), "-t", "oc"),
    async submit(text) {
      tmux("send-keys", "-t", "oc", "-l", /^\/\S+$/.test(text) ? `${text} ` : text);
      await sleep(500);
      tmux("send-keys", "-t", "oc", "Enter");
    },
    async waitFor(text, ms = 30_000) {
      const until = Date.now() + ms;
      for (;;) {
        const screen = tui.screen();
        if (screen.includes(text)) return screen;
        if (Date.now() > until) throw new Error(`the TUI did not show ${JSON.stringify(text)} within ${ms} ms; last screen:\n${screen}`);
        await sleep(250);
      }
    },
    stop() {
      try {
        tmux("kill-server");
      } catch {
        // Already gone.
      }
    },
  };
  try {
    await tui.waitFor("Fake model", 40_000);
    await sleep(1_000);
  } catch (error) {
    tui.stop();
    throw error;
  }
  return tui;
}

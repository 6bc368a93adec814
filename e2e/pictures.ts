/**
 * `npm run pictures`: the README's two pictures of the real opencode TUI, taken the same way
 * each time. opencode 1.18.33's TUI runs in tmux at 120 × 36 (./tui.ts) in a scratch project
 * like `npm run try`'s (the fixed-point loop of the scripted model server, the plugin built
 * from this clone with its default settings), in `<tmp>/ocg-pictures` so that the screen shows
 * no path of yours; "run echo hi" is typed, and the guard stops the loop at compaction 1:
 *
 * - docs/reason-after-toast.png: the screen once the guard's toast has gone, its note ending
 *   the conversation;
 * - docs/guard-command.png: then `/guard` and `/guard off` typed in the same session.
 *
 * Each screen is read with its colours (`tmux capture-pane -e`), turned into HTML by ansi_up
 * and drawn by Debian's Chromium (./chromium.ts) in DejaVu Sans Mono, one row per line.
 */
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { CHROMIUM_ARGS, ensureChromium } from "./chromium.js";
import { freshDist } from "./fresh-dist.js";
import { startModelServer } from "./model-server.js";
import { PLUGIN_ENTRY } from "./replay.js";
import { createSandbox, PROJECT_ROOT, writeOpencodeConfig } from "./sandbox.js";
import { PROMPTS } from "./scenarios.js";
import { ensureE2eTools } from "./tools.js";
import { startTui, type Tui } from "./tui.js";

/** The terminal the TUI runs in: columns × rows. */
const SIZE = { cols: 120, rows: 36 };
/** The scratch project's parent: a fixed name, so that the TUI's footer reads the same each run. */
const ROOT = join(tmpdir(), "ocg-pictures");
/** Text only the guard's toast shows (its message), not its note. */
const TOAST = "Reply to go on";
/** The note's first words at a stop after compaction 1 (src/guard/notices.ts, `stopRecord`). */
const NOTE = "Compaction loop stopped by compaction-guard after compaction 1:";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the screen satisfies `ok` and is the same twice 0.5 s apart; returns it with its colours. Throws after `ms`. */
async function settled(tui: Tui, what: string, ok: (screen: string) => boolean, ms = 60_000): Promise<string> {
  const until = Date.now() + ms;
  let last = "";
  for (;;) {
    const screen = tui.screen();
    if (ok(screen) && screen === last) return tui.screen(true);
    if (Date.now() > until) throw new Error(`the TUI did not show ${what} within ${ms} ms; last screen:\n${screen}`);
    last = screen;
    await sleep(500);
  }
}

/** One screen with colours as a page: a `<pre>` of the terminal's size on the TUI's background. */
async function screenPage(ansi: string): Promise<string> {
  const { AnsiUp } = await import("ansi_up");
  const converter = new AnsiUp();
  converter.use_classes = false;
  const rows = ansi.replace(/\n$/, "").split("\n");
  if (rows.length !== SIZE.rows) throw new Error(`a capture of ${rows.length} rows, not ${SIZE.rows}`);
  return [
    "<!doctype html><meta charset=utf-8><style>",
    "body { margin: 0; background: #0a0a0a; }",
    `pre { margin: 0; padding: 10px; width: ${SIZE.cols}ch; color: #eeeeee; background: #0a0a0a;`,
    '  font: 16px/normal "DejaVu Sans Mono", monospace; font-variant-ligatures: none; }',
    "</style>",
    `<pre>${converter.ansi_to_html(rows.join("\n"))}</pre>`,
  ].join("\n");
}

freshDist();
ensureE2eTools();
const { chromium } = await import("playwright-core");
await rm(ROOT, { recursive: true, force: true });
const sandbox = await createSandbox({ root: ROOT });
// The cap only bounds a run that nothing stops: the guard stops this one after one step and its summary.
const server = await startModelServer({ scenario: "fixed-point", readPath: sandbox.readPath, maxRequests: 20 });
const screens: Array<[file: string, ansi: string]> = [];
try {
  await writeOpencodeConfig(sandbox, { baseURL: server.baseURL, plugin: [pathToFileURL(PLUGIN_ENTRY).href] });
  const tui = await startTui(sandbox, [], SIZE);
  try {
    await tui.submit(PROMPTS["fixed-point"]);
    await tui.waitFor(TOAST, 90_000);
    screens.push([
      "reason-after-toast.png",
      await settled(tui, "the note with the toast gone", (s) => s.includes(NOTE) && !s.includes(TOAST)),
    ]);
    await tui.submit("/guard");
    await tui.waitFor("Automatic compactions:");
    await tui.submit("/guard off");
    screens.push([
      "guard-command.png",
      await settled(tui, "the /guard off line", (s) => s.includes("compaction-guard is off in this session")),
    ]);
  } finally {
    tui.stop();
  }
} finally {
  await server.close();
  await sandbox.dispose();
}

const browser = await chromium.launch({ executablePath: ensureChromium(), headless: true, args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 }, deviceScaleFactor: 1 });
  for (const [file, ansi] of screens) {
    await page.setContent(await screenPage(ansi));
    const target = join(PROJECT_ROOT, "docs", file);
    await writeFile(target, await page.locator("pre").screenshot({ type: "png" }));
    const box = await page.locator("pre").boundingBox();
    console.log(
      `written: ${relative(PROJECT_ROOT, target)} (${SIZE.cols} × ${SIZE.rows} cells, ${Math.round(box?.width ?? 0)} × ${Math.round(box?.height ?? 0)} px)`,
    );
  }
} finally {
  await browser.close();
}

/**
 * `npm run build && npx tsx e2e/audit-picture.ts`: docs/audit-report.png, the picture in
 * docs/audit.md, from exactly the command shown there: the built CLI's `audit … --html` on
 * three exports of the real opencode (an unguarded loop, the shared looping export the guard
 * stopped, healthy work), opened in Debian's Chromium (e2e/install-chromium.sh when missing),
 * 1,200 px wide: the totals, the table and the first two charts.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PROJECT_ROOT } from "./sandbox.js";
import { ensureE2eTools } from "./tools.js";
import { ensureChromium } from "./chromium.js";

/** The command docs/audit.md shows, after `node dist/cli/bin.js`; `audit.html` is written in a scratch folder. */
export const PICTURE_ARGS = [
  "audit",
  "fixtures/e2e-fixed-point-unguarded.json",
  "fixtures/opencode-1.18.33-loop-bash.json",
  "fixtures/e2e-healthy.json",
  "--context-limit",
  "8000",
  "--output-limit",
  "2000",
  "--html",
  "audit.html",
];

// playwright-core is one of the suite's own packages (e2e/package.json), installed when missing.
ensureE2eTools();
const { chromium } = await import("playwright-core");
const dir = await mkdtemp(join(tmpdir(), "ocg-picture-"));
try {
  // From the project root, as the command is shown: the page names the files as typed.
  const args = PICTURE_ARGS.map((a) => (a === "audit.html" ? join(dir, a) : a));
  execFileSync(process.execPath, ["dist/cli/bin.js", ...args], { cwd: PROJECT_ROOT, stdio: "inherit" });
  const browser = await chromium.launch({ executablePath: ensureChromium(), headless: true, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 });
    await page.goto(pathToFileURL(join(dir, "audit.html")).href);
    const second = (await page.$$("svg.chart"))[1];
    const box = await second?.boundingBox();
    if (!box) throw new Error("the page has fewer than two charts");
    const clip = { x: 0, y: 0, width: 1200, height: Math.round(box.y + box.height + 24) };
    const target = join(PROJECT_ROOT, "docs", "audit-report.png");
    await writeFile(target, await page.screenshot({ fullPage: true, clip, type: "png" }));
    console.log(`written: ${target} (1200 × ${clip.height} px)`);
  } finally {
    await browser.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

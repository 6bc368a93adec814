/**
 * The audit's HTML report in a real browser: Debian's Chromium (installed by
 * e2e/install-chromium.sh when missing) opens the page from disk, and the test checks that
 * it draws one chart per session, that the charts have their lines, that the screenshot is
 * not blank and that nothing but the file itself was requested.
 *
 * docs/audit-report.png is made by e2e/audit-picture.ts, from the command docs/audit.md shows.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, ensureChromium } from "./chromium.js";
import { auditSession, auditTotals, isListed } from "../src/audit/audit.js";
import type { AuditReport } from "../src/audit/types.js";
import { readExport } from "../src/sources/export.js";
import { usableContext, type ModelLimits } from "../src/hosts/opencode/facts.js";
import { renderHtmlReport } from "../src/report/html.js";
import { sessionSeries } from "../src/audit/series.js";
import { DEFAULT_SETTINGS } from "../src/config/settings.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The sessions of the report: real opencode runs (limits 8,000 / 2,000) and longer review sessions. */
const E2E_LIMITS = { context: 8_000, output: 2_000 };
const SESSIONS: ReadonlyArray<{ file: string; limits: Partial<ModelLimits> | undefined }> = [
  { file: "fixtures/e2e-fixed-point-unguarded.json", limits: E2E_LIMITS },
  { file: "fixtures/review/loop-70-step-cycle-big-model.json", limits: { context: 200_000, output: 64_000 } },
  { file: "fixtures/e2e-healthy.json", limits: E2E_LIMITS },
  { file: "fixtures/review/healthy-refactor-rereads-with-edits.json", limits: { context: 32_768, output: 4_096 } },
  { file: "fixtures/e2e-repeat-with-progress.json", limits: undefined },
  { file: "fixtures/e2e-fixed-point.json", limits: E2E_LIMITS },
];

/** The settings the e2e fixtures' live guard ran with: prediction off, so the guarded loops are denied at compaction 2. */
const AS_RECORDED = { ...DEFAULT_SETTINGS, predict: false };

async function buildReport(): Promise<AuditReport> {
  const sessions = [];
  for (const { file, limits } of SESSIONS) {
    const session = await readExport(join(ROOT, file));
    const { row, replay, firstDeny, timeline } = auditSession(session, file, { settings: AS_RECORDED, limits });
    const series = sessionSeries(timeline, replay, firstDeny, usableContext(limits), { id: row.sessionID, title: row.title });
    sessions.push({ row, series });
  }
  return {
    generatedAt: "2026-11-30T19:00:00.000Z",
    totals: auditTotals(sessions.map((s) => s.row)),
    sessions: sessions.filter((s) => isListed(s.row)),
    skipped: ["fixtures/expect.json: not an opencode session export (no `info` object)"],
  };
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
  expect(png.subarray(12, 16).toString("latin1")).toBe("IHDR");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

let context: BrowserContext;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cg-report-"));
  // A fresh profile in the temporary folder (playwright passes it as --user-data-dir).
  context = await chromium.launchPersistentContext(join(dir, "profile"), {
    executablePath: ensureChromium(),
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1200, height: 900 },
    deviceScaleFactor: 1,
  });
});

afterAll(async () => {
  await context?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the audit's HTML report in Chromium", () => {
  it("draws one chart per session with its line, a non-blank page, and requests nothing but itself", async () => {
    const report = await buildReport();
    expect(report.sessions).toHaveLength(SESSIONS.length);
    const file = join(dir, "audit.html");
    await writeFile(file, renderHtmlReport(report));

    const page = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(error.message));
    await page.route("**/*", (route) => (route.request().url().startsWith("file://") ? route.continue() : route.abort()));
    await page.goto(pathToFileURL(file).href, { waitUntil: "load" });

    // One chart per session, each laid out at its size.
    const charts = page.locator("svg.chart");
    await expect.poll(() => charts.count()).toBe(SESSIONS.length);
    for (let i = 0; i < SESSIONS.length; i++) {
      const box = await charts.nth(i).boundingBox();
      expect(box, `chart ${i + 1}`).not.toBeNull();
      expect(box!.width).toBeGreaterThan(600);
      expect(box!.height).toBeGreaterThan(150);
    }

    // Each chart's line goes through every step with token data (none of these sessions has
    // more steps than pixels; the unguarded loop's last step is the request the server refused).
    const lines = await page.$$eval("svg.chart", (svgs) =>
      svgs.map((svg) => {
        const path = svg.querySelector("path.context");
        const box = path instanceof SVGGraphicsElement ? path.getBBox() : null;
        return {
          points: (path?.getAttribute("d") ?? "").match(/[ML]/g)?.length ?? 0,
          length: path instanceof SVGPathElement ? path.getTotalLength() : 0,
          width: box?.width ?? 0,
          usable: svg.querySelectorAll("line.usable").length,
          compactions: svg.querySelectorAll("line.compaction").length,
          saved: svg.querySelectorAll("rect.saved").length,
        };
      }),
    );
    expect(lines.map((l) => l.points)).toEqual(report.sessions.map((s) => s.series.steps.filter((t) => t !== null).length));
    expect(lines.map((l) => l.points)).toEqual([8, 280, 11, 24, 8, 2]);
    for (const l of lines) {
      expect(l.length).toBeGreaterThan(300);
      expect(l.width).toBeGreaterThan(300);
    }
    expect(lines.map((l) => l.usable)).toEqual([1, 1, 1, 1, 0, 1]);
    // One mark per gap between steps that had compactions.
    expect(lines.map((l) => l.compactions)).toEqual(report.sessions.map((s) => new Set(s.series.compactions.map((c) => c.afterStep)).size));
    expect(lines.map((l) => l.compactions)).toEqual([8, 4, 2, 4, 2, 2]);
    // The two loops that ran on are shaded after their first deny; the healthy sessions are
    // not, nor the two the guard stopped (their first deny came after their last step).
    expect(lines.map((l) => l.saved)).toEqual([1, 1, 0, 0, 0, 0]);

    // The totals and the table.
    const { totals } = report;
    // Sessions read; loops the guard stopped (the two guarded e2e runs); loops that ran on (the
    // unguarded run and the review's 70-step cycle); then what would have been saved.
    expect([totals.stoppedByGuard, totals.looping]).toEqual([2, 2]);
    expect(await page.locator(".total b").allTextContents()).toEqual(
      [6, 2, 2, totals.continuesSaved, totals.tokensAfterDeny].map((n) => n.toLocaleString("en-US")),
    );
    expect(await page.locator("tbody tr").count()).toBe(SESSIONS.length);

    // The table fits from 1,000 px up: no sideways scrolling, each session id on one line, no header over two.
    for (const width of [1000, 1200]) {
      await page.setViewportSize({ width, height: 900 });
      const layout = await page.evaluate(() => {
        const scroll = document.querySelector(".scroll")!;
        const lines = (cells: Element[]) =>
          cells.map((cell) => {
            const style = getComputedStyle(cell);
            const line = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.45;
            const box = cell.getBoundingClientRect();
            return Math.round((box.height - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)) / line);
          });
        return {
          overflow: scroll.scrollWidth - scroll.clientWidth,
          ids: lines([...document.querySelectorAll(".sid")]),
          headers: lines([...document.querySelectorAll("th")]),
        };
      });
      expect(layout.overflow, `${width} px: sideways overflow`).toBeLessThanOrEqual(0);
      expect(new Set(layout.ids), `${width} px: lines per id`).toEqual(new Set([1]));
      expect(Math.max(...layout.headers), `${width} px: lines per header`).toBeLessThanOrEqual(2);
    }
    await page.setViewportSize({ width: 1200, height: 900 });

    // The screenshot: 1,200 px wide, and what it shows is the charts, not a blank page.
    const shot = await page.screenshot({ fullPage: true, type: "png" });
    const size = pngSize(shot);
    expect(size.width).toBe(1200);
    expect(size.height).toBeGreaterThan(6 * 280);
    const boxes = await page.$$eval("svg.chart", (svgs) =>
      svgs.map((svg) => {
        const r = svg.getBoundingClientRect();
        return {
          x: Math.round(r.left + window.scrollX),
          y: Math.round(r.top + window.scrollY),
          width: Math.round(r.width),
          height: Math.round(r.height),
        };
      }),
    );
    // Kept for a person to look at (the profile and the page are removed after the test).
    const target = join(await mkdtemp(join(tmpdir(), "cg-shot-")), "audit-report.png");
    await writeFile(target, shot);

    // Count colours in the screenshot on a blank page's canvas (no network there either), over
    // the whole page and inside each chart (a chart left unpainted has none of the line's blue).
    const colours = await context.newPage();
    await colours.setContent("<canvas></canvas>");
    const counts = await colours.evaluate(
      async ({ base64, boxes }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${base64}`;
        await image.decode();
        const canvas = document.querySelector("canvas")!;
        canvas.width = image.width;
        canvas.height = image.height;
        const context2d = canvas.getContext("2d")!;
        context2d.drawImage(image, 0, 0);
        const data = context2d.getImageData(0, 0, image.width, image.height).data;
        const near = (i: number, rgb: readonly number[]) => rgb.every((v, k) => Math.abs(data[i + k]! - v) <= 12);
        const distinct = new Set<number>();
        let line = 0;
        let deny = 0;
        let saved = 0;
        let white = 0;
        for (let i = 0; i < data.length; i += 4) {
          distinct.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
          if (near(i, [0x25, 0x63, 0xeb])) line++;
          if (near(i, [0xdc, 0x26, 0x26])) deny++;
          if (near(i, [0xfe, 0xe2, 0xe2])) saved++;
          if (data[i]! > 245 && data[i + 1]! > 245 && data[i + 2]! > 245) white++;
        }
        const perChart = boxes.map((box) => {
          let blue = 0;
          for (let y = box.y; y < box.y + box.height; y++) {
            for (let x = box.x; x < box.x + box.width; x++) if (near((y * image.width + x) * 4, [0x25, 0x63, 0xeb])) blue++;
          }
          return blue;
        });
        return { distinct: distinct.size, line, deny, saved, white, total: data.length / 4, perChart };
      },
      { base64: shot.toString("base64"), boxes },
    );
    await colours.close();
    expect(counts.distinct).toBeGreaterThan(200);
    expect(counts.line).toBeGreaterThan(6 * 300); // the context lines: 2 px wide, hundreds of px long each
    expect(counts.deny).toBeGreaterThan(500); // the denied compactions' marks and labels
    expect(counts.saved).toBeGreaterThan(20_000); // the shaded steps after the first deny
    expect(counts.white / counts.total).toBeLessThan(0.97);
    expect(counts.perChart).toHaveLength(SESSIONS.length);
    for (const [i, blue] of counts.perChart.entries()) expect(blue, `blue pixels of chart ${i + 1}`).toBeGreaterThan(200);

    await page.close();
    expect(problems).toEqual([]);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((url) => !url.startsWith("file://"))).toEqual([]);
    console.log(`report-browser: screenshot ${size.width}×${size.height} px, ${shot.length} bytes, ${counts.distinct} colours → ${target}`);
  });
});

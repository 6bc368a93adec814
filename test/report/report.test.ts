/**
 * The audit's pictures: the chart data of a session (sessionSeries), the HTML report
 * (renderHtmlReport) and the terminal chart (terminalChart).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AuditReport, AuditSession, SessionSeries } from "../../src/audit/types.js";
import { terminalChart } from "../../src/report/chart.js";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { usableContext } from "../../src/hosts/opencode/facts.js";
import { replayMessages } from "../../src/core.js";
import { escapeHtml, renderChartSvg, renderHtmlReport } from "../../src/report/html.js";
import { sessionSeries, stepsAfterFirstDeny } from "../../src/audit/series.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";

interface RawMessage {
  info: {
    id: string;
    role: string;
    summary?: unknown;
    tokens?: { total?: number; input: number; output: number; cache: { read: number; write: number } };
  };
  parts: Array<{ type: string; auto?: boolean }>;
}
interface RawExport {
  info: { id: string; title: string; time: { created: number } };
  messages: RawMessage[];
}

const fixture = (name: string): RawExport =>
  JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), "utf8")) as RawExport;

/** The e2e fixtures were recorded with a model of 8,000 tokens of context and 2,000 of output. */
const LIMITS = { context: 8_000, output: 2_000 };
/** The settings the fixtures' live guard ran with: prediction off, so the loops are denied at compaction 2. */
const AS_RECORDED = { ...DEFAULT_SETTINGS, predict: false };

/** The series of a fixture, through buildTimeline and replayMessages as the audit does. */
function seriesOf(name: string, known: "limits known" | "limits unknown" = "limits known"): SessionSeries {
  const limits = known === "limits known" ? LIMITS : undefined;
  const session = fixture(name);
  const rows = replayMessages(session.messages, AS_RECORDED, { limits });
  // A V1 session: the guard stops it at the first deny.
  const firstDeny = rows.find((r) => r.decision === "deny");
  return sessionSeries(buildTimeline(session.messages), rows, firstDeny, usableContext(limits), {
    id: session.info.id,
    title: session.info.title,
  });
}

/**
 * The same, read straight from the export without the guard's code: a step is an assistant
 * message that is not a summary, its size `tokens.total` else input + output + cache; a
 * compaction comes after the last step before its message.
 */
function fromExport(name: string): { steps: Array<number | null>; afterSteps: number[] } {
  const steps: Array<number | null> = [];
  const afterSteps: number[] = [];
  for (const message of fixture(name).messages) {
    if (message.info.role === "assistant" && message.info.summary !== true) {
      const t = message.info.tokens;
      const size = t ? t.total || t.input + t.output + t.cache.read + t.cache.write : 0;
      steps.push(size > 0 ? size : null);
    }
    if (message.info.role === "user" && message.parts.some((p) => p.type === "compaction" && p.auto === true))
      afterSteps.push(steps.length - 1);
  }
  return { steps, afterSteps };
}

describe("sessionSeries", () => {
  it("the fixed-point loop: 2 steps of 7,020 tokens, a compaction after each, the second denied", () => {
    const series = seriesOf("e2e-fixed-point.json");
    const raw = fromExport("e2e-fixed-point.json");
    expect(raw).toEqual({ steps: [7_020, 7_020], afterSteps: [0, 1] });
    expect(series.sessionID).toBe("ses_dd42f353affeFLI1CRfqdbBUK0");
    expect(series.title).toBe("Fake title");
    expect(series.steps).toEqual(raw.steps);
    expect(series.compactions).toEqual([
      { index: 1, afterStep: 0, decision: "allow", rule: null, severity: null },
      { index: 2, afterStep: 1, decision: "deny", rule: "no-progress", severity: "warning" },
    ]);
    expect(series.usable).toBe(6_000);
    expect(series.firstDeny).toBe(1);
    // The guard stopped this run at its first deny: nothing came after it.
    expect(stepsAfterFirstDeny(series)).toBe(0);
  });

  it("healthy work: 11 steps climbing to 6,520 tokens, two compactions that cut it, no deny", () => {
    const series = seriesOf("e2e-healthy.json");
    const raw = fromExport("e2e-healthy.json");
    expect(raw.steps).toEqual([2_020, 3_520, 5_020, 6_520, 2_020, 3_520, 5_020, 6_520, 2_020, 3_520, 5_015]);
    expect(raw.afterSteps).toEqual([3, 7]);
    expect(series.steps).toEqual(raw.steps);
    expect(series.compactions.map((c) => [c.index, c.afterStep, c.decision])).toEqual([
      [1, 3, "allow"],
      [2, 7, "allow"],
    ]);
    expect(series.usable).toBe(6_000);
    expect(series.firstDeny).toBeNull();
    expect(stepsAfterFirstDeny(series)).toBe(0);
  });

  it("the unguarded fixed point: 8 compactions, first deny at the second, 7 steps after it (the last refused, no size)", () => {
    const series = seriesOf("e2e-fixed-point-unguarded.json");
    const raw = fromExport("e2e-fixed-point-unguarded.json");
    expect(series.steps).toEqual(raw.steps);
    expect(series.steps).toEqual([7_020, 7_020, 7_020, 7_020, 7_020, 7_020, 7_020, 7_020, null]);
    expect(series.compactions.map((c) => c.afterStep)).toEqual(raw.afterSteps);
    expect(raw.afterSteps).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(series.compactions.map((c) => c.decision)).toEqual(["allow", ...Array(7).fill("deny")]);
    expect(series.firstDeny).toBe(1);
    expect(stepsAfterFirstDeny(series)).toBe(7);
  });

  it("unknown limits: usable is null", () => {
    expect(seriesOf("e2e-healthy.json", "limits unknown").usable).toBeNull();
  });

  it("leaves out rows of compactions the timeline does not hold", () => {
    const other = fixture("e2e-healthy.json");
    const rows = replayMessages(other.messages, AS_RECORDED, { limits: LIMITS });
    const own = fixture("e2e-fixed-point.json");
    const series = sessionSeries(
      buildTimeline(own.messages),
      rows,
      rows.find((r) => r.decision === "deny"),
      null,
      { id: "x", title: "" },
    );
    expect(series.compactions).toEqual([]);
    expect(series.firstDeny).toBeNull();
    expect(series.steps).toHaveLength(2);
  });
});

/** An audit row made by hand for a series (the audit module fills these for real). */
function rowFor(series: SessionSeries, over: Partial<AuditSession> = {}): AuditSession {
  const deny = series.firstDeny === null ? undefined : series.compactions[series.firstDeny];
  return {
    sessionID: series.sessionID,
    source: `fixtures/${series.sessionID}.json`,
    title: series.title,
    parentID: null,
    created: Date.UTC(2026, 10, 30, 9, 37),
    compactions: series.compactions.length,
    firstDeny: deny?.index ?? null,
    rule: deny?.rule ?? null,
    severity: deny ? (deny.rule === "turn-finished" ? "info" : "warning") : null,
    looped: deny !== undefined && deny.rule !== "turn-finished",
    stoppedByGuard: false,
    liveStop: null,
    continuesSaved: deny ? stepsAfterFirstDeny(series) : 0,
    tokensAfterDeny: deny ? 44_100 : 0,
    secondsAfterDeny: deny ? 95 : 0,
    usable: series.usable,
    ...over,
  };
}

function reportOf(series: readonly SessionSeries[], skipped: string[] = []): AuditReport {
  const sessions = series.map((s) => ({ row: rowFor(s), series: s }));
  return {
    generatedAt: "2026-11-30T19:00:00.000Z",
    totals: {
      sessions: series.length + 3,
      looping: sessions.filter((s) => s.row.looped).length,
      stoppedByGuard: 0,
      continuesSaved: sessions.reduce((sum, s) => sum + s.row.continuesSaved, 0),
      tokensAfterDeny: sessions.reduce((sum, s) => sum + (s.row.tokensAfterDeny ?? 0), 0),
    },
    sessions,
    skipped,
  };
}

const count = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;

describe("renderHtmlReport", () => {
  const unguarded = seriesOf("e2e-fixed-point-unguarded.json");
  const healthy = seriesOf("e2e-healthy.json");
  const noLimits = seriesOf("e2e-repeat-with-progress.json", "limits unknown");

  it("one page: the totals, one table row and one <svg> per session", () => {
    const html = renderHtmlReport(reportOf([unguarded, healthy, noLimits]));
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(count(html, /<svg\b/g)).toBe(3);
    expect(count(html, /<\/svg>/g)).toBe(3);
    expect(count(html, /<tbody>/g)).toBe(1);
    expect(count(html, /<tr\b/g)).toBe(1 + 3);
    for (const header of ["session", "date (UTC)", "compactions", "first deny", "continues saved", "tokens saved", "time saved"])
      expect(html).toContain(`>${header}</th>`);
    // Totals: 6 read, 2 looped, 7 + 0 continue turns, 44,100 tokens.
    expect(html).toMatch(/<b>6<\/b><span>sessions read<\/span>/);
    expect(html).toMatch(/<b>2<\/b><span>loops that ran on \(the guard would have stopped them\)<\/span>/);
    expect(html).toMatch(/<b>0<\/b><span>loops the guard stopped<\/span>/);
    expect(html).toMatch(/<b>7<\/b><span>continue turns that would have been saved<\/span>/);
    expect(html).toMatch(/<b>88,200<\/b><span>tokens that would have been saved<\/span>/);
    // The unguarded loop's row: first deny #2 no-progress, 7 saved, 1 min 35 s after it.
    expect(html).toContain(
      `<td class="deny">#2 <span class="rule">no-progress</span></td><td class="n">7</td><td class="n">44,100</td><td class="n">1 min 35 s</td>`,
    );
    expect(html).toContain('<td class="date">2026-11-30 09:37</td>');
  });

  it("draws the usable-context line only where the limits are known", () => {
    const html = renderHtmlReport(reportOf([unguarded, healthy, noLimits]));
    expect(count(html, /<line class="usable"/g)).toBe(2);
    expect(renderChartSvg(noLimits)).not.toContain('class="usable"');
    expect(renderChartSvg(noLimits)).not.toContain("usable context");
    expect(renderChartSvg(healthy)).toContain(">usable context 6,000</text>");
    expect(renderChartSvg(healthy)).toContain('stroke-dasharray="6 4"');
  });

  it("marks every compaction with its index, the denied ones and the first deny apart, and shades the steps after it", () => {
    const svg = renderChartSvg(unguarded);
    expect(count(svg, /<line class="compaction allow"/g)).toBe(1);
    expect(count(svg, /<line class="compaction deny first-deny"/g)).toBe(1);
    expect(count(svg, /<line class="compaction deny"/g)).toBe(6);
    for (let i = 1; i <= 8; i++) expect(svg).toMatch(new RegExp(`class="mark halo"[^>]*>${i}</text>`));
    expect(svg).toContain(">first deny #2 no-progress</text>");
    expect(svg).toContain(">would have been saved: 7 steps</text>");
    expect(count(svg, /<rect class="saved"/g)).toBe(1);
    // The line goes through the 8 steps with a size; the refused ninth is a gap.
    const d = /<path class="context" d="([^"]+)"/.exec(svg)![1]!;
    expect(count(d, /[ML]/g)).toBe(8);
    // Healthy: no deny, nothing shaded.
    const calm = renderChartSvg(healthy);
    expect(calm).not.toContain('class="saved"');
    expect(calm).not.toContain("first deny");
    expect(count(calm, /<line class="compaction allow"/g)).toBe(2);
  });

  it("escapes every text from a session: titles, ids, sources, skipped lines", () => {
    const nasty = `<script>alert("x")</script> & 'q' <img src=x onerror=alert(1)>`;
    const series = { ...healthy, title: nasty, sessionID: `ses_<b>"id"</b>` };
    const report = reportOf([series], [`dir/<evil>.json: not an export & "odd"`]);
    const sessions = [{ row: { ...report.sessions[0]!.row, source: `a/<x>"'.json` }, series }];
    const html = renderHtmlReport({ ...report, sessions });
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).not.toContain('<b>"id"');
    expect(html).not.toContain("<evil>");
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39; &lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("ses_&lt;b&gt;&quot;id&quot;&lt;/b&gt;");
    expect(html).toContain("dir/&lt;evil&gt;.json: not an export &amp; &quot;odd&quot;");
    expect(html).toContain('title="a/&lt;x&gt;&quot;&#39;.json"');
    expect(escapeHtml(`<&>"'`)).toBe("&lt;&amp;&gt;&quot;&#39;");
  });

  it("references nothing outside the page: no URL, no script, no external style or image", () => {
    const html = renderHtmlReport(reportOf([unguarded, healthy, noLimits], ["x.json: not an export"]));
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/<(script|link|img|iframe|object|embed)\b/i);
    expect(html).not.toMatch(/url\(|@import/i);
    // The only links are to the charts on the page.
    expect([...html.matchAll(/\b(?:src|href)\s*=\s*["']?([^"'\s>]*)/gi)].map((m) => m[1]!.replace(/\d+$/, ""))).toEqual(
      Array(3).fill("#chart-"),
    );
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    // A URL in a title stays text, never becomes a reference.
    const linked = renderHtmlReport(reportOf([{ ...healthy, title: "see https://example.com/a.png" }]));
    expect(linked).toContain(">see https://example.com/a.png<");
    expect(linked).not.toMatch(/\b(src|href)\s*=\s*["']?https?:/i);
  });

  it("stays small: 1,000 sessions of 300 steps in well under a second each, a few KB a chart", () => {
    const long: SessionSeries = {
      sessionID: "ses_long",
      title: "long",
      steps: Array.from({ length: 300 }, (_, i) => 20_000 + ((i * 1_500) % 150_000)),
      compactions: [100, 200, 299].map((afterStep, k) => ({
        index: k + 1,
        afterStep,
        decision: k === 0 ? ("allow" as const) : ("deny" as const),
        rule: k === 0 ? null : ("no-new-work" as const),
      })),
      usable: 168_000,
      firstDeny: 1,
    };
    const chart = renderChartSvg(long);
    expect(chart.length).toBeLessThan(12_000);
    const started = performance.now();
    const html = renderHtmlReport(reportOf(Array.from({ length: 1_000 }, (_, i) => ({ ...long, sessionID: `ses_${i}` }))));
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(count(html, /<svg\b/g)).toBe(1_000);
    expect(html.length / 1_000).toBeLessThan(14_000);
  });

  it("keeps the path small for a session with more steps than pixels (min and max per pixel column)", () => {
    const steps = Array.from({ length: 20_000 }, (_, i) => 1_000 + (i % 50) * 100);
    const svg = renderChartSvg({ sessionID: "s", title: "", steps, compactions: [], usable: null, firstDeny: null });
    const d = /<path class="context" d="([^"]+)"/.exec(svg)![1]!;
    const points = count(d, /[ML]/g);
    expect(points).toBeGreaterThan(900); // the plot is 924 px wide: about 2 points per column
    expect(points).toBeLessThanOrEqual(2 * 924);
    expect(svg.length).toBeLessThan(30_000);
    expect(svg).not.toContain("<circle"); // no dot per step past 80 steps
  });

  it("writes a compaction's index only where it has room, and always the first deny's", () => {
    const compactions = Array.from({ length: 200 }, (_, k) => ({
      index: k + 1,
      afterStep: k * 10 + 9,
      decision: k < 57 ? ("allow" as const) : ("deny" as const),
      rule: k < 57 ? null : ("no-progress" as const),
    }));
    const steps = Array.from({ length: 2_000 }, (_, i) => 1_000 + (i % 10) * 500);
    const svg = renderChartSvg({ sessionID: "s", title: "", steps, compactions, usable: 5_000, firstDeny: 57 });
    expect(count(svg, /<line class="compaction /g)).toBe(200);
    const labels = [...svg.matchAll(/<text x="([\d.]+)" y="44.0" text-anchor="middle" class="mark halo"[^>]*>(\d+)<\/text>/g)].map((m) => ({
      x: Number(m[1]),
      index: Number(m[2]),
    }));
    expect(labels.length).toBeGreaterThan(10);
    expect(labels.length).toBeLessThan(100);
    expect(labels.map((l) => l.index)).toContain(58);
    // No two overlap: centres at least half of each one's width apart (6.2 px a digit).
    const sorted = [...labels].sort((a, b) => a.x - b.x);
    for (let i = 1; i < sorted.length; i++) {
      const [before, after] = [sorted[i - 1]!, sorted[i]!];
      expect(after.x - before.x).toBeGreaterThan(((String(before.index).length + String(after.index).length) * 6.2) / 2);
    }
  });

  it("a session without token data says so instead of drawing a line", () => {
    const svg = renderChartSvg({ sessionID: "s", title: "t", steps: [null, null], compactions: [], usable: 6_000, firstDeny: null });
    expect(svg).not.toContain('class="context"');
    expect(svg).toContain(">no token data in this session</text>");
  });

  it("no token data: its words on a blank of their own, drawn over a compaction's line", () => {
    const compactions = [{ index: 1, afterStep: 0, decision: "allow" as const, rule: null }];
    const svg = renderChartSvg({ sessionID: "s", title: "t", steps: [null, null], compactions, usable: 6_000, firstDeny: null });
    const blank = svg.indexOf('<rect class="blank"');
    expect(blank).toBeGreaterThan(svg.indexOf('<line class="compaction allow"'));
    expect(svg.indexOf(">no token data in this session</text>")).toBeGreaterThan(blank);
    // The blank is as wide as the words (6.2 px a character) and centred where they are.
    const [, x, width] = /<rect class="blank" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/.exec(svg)!.map(Number);
    expect(x! + width! / 2).toBeCloseTo((58 + 1000 - 18) / 2, 1);
    expect(width).toBeCloseTo(29 * 6.2 + 12, 1);
  });

  it("the first deny's line leaves a gap for its index, also when the deny is the last step", () => {
    const compactions = [
      { index: 1, afterStep: 0, decision: "allow" as const, rule: null },
      { index: 2, afterStep: 1, decision: "deny" as const, rule: "no-progress" as const },
    ];
    const svg = renderChartSvg({ sessionID: "s", title: "t", steps: [7000, 7000], compactions, usable: 6_000, firstDeny: 1 });
    const mark = /<line class="compaction deny first-deny" x1="([\d.]+)" x2="[\d.]+" y1="([\d.]+)"/.exec(svg)!;
    const lead = /<line class="first-deny-lead" x1="([\d.]+)" x2="[\d.]+" y1="2" y2="([\d.]+)"/.exec(svg)!;
    const index = /<text x="([\d.]+)" y="([\d.]+)" text-anchor="middle" class="mark halo"[^>]*>2<\/text>/.exec(svg)!;
    expect(mark[1]).toBe(index[1]);
    expect(lead[1]).toBe(index[1]);
    // The index's baseline at 44 (about 10 px tall): the lead ends above it, the mark starts below it.
    expect(Number(lead[2])).toBeLessThan(Number(index[2]) - 10);
    expect(Number(mark[2])).toBeGreaterThan(Number(index[2]));
  });

  it("no session with compactions: the totals and a sentence, no chart", () => {
    const html = renderHtmlReport({
      generatedAt: "2026-11-30T19:00:00.000Z",
      totals: { sessions: 4, looping: 0, stoppedByGuard: 0, continuesSaved: 0, tokensAfterDeny: 0 },
      sessions: [],
      skipped: [],
    });
    expect(html).toContain("<b>4</b><span>sessions read</span>");
    expect(html).toContain("No session had an automatic compaction.");
    expect(html).not.toContain("<svg");
  });
});

describe("terminalChart", () => {
  const small: SessionSeries = {
    sessionID: "ses_small",
    title: "small",
    steps: [1_000, 2_000, 3_000, 1_000, 2_000, 3_000, 3_000],
    compactions: [
      { index: 1, afterStep: 2, decision: "allow", rule: null },
      { index: 2, afterStep: 5, decision: "deny", rule: "no-progress" },
    ],
    usable: 2_500,
    firstDeny: 1,
  };

  it("plots a small session exactly: the line, the usable line, the marker row and the legend", () => {
    expect(terminalChart(small, { height: 6 }).split("\n")).toEqual([
      " 3,000 ┤       ╭───╮       ╭───────",
      " 2,500 ┤───────│───│───────│─────── ← usable 2,500",
      " 2,000 ┤   ╭───╯   │   ╭───╯",
      " 1,500 ┤   │       │   │",
      " 1,000 ┤───╯       ╰───╯",
      "   500 ┤",
      "     0 ┤",
      "                  c           X....",
      "across: steps 1–7 (4 columns each); up: context tokens",
      // Only the markers the row shows: no later deny here.
      "c compaction (continue allowed)  X first deny  . step after it",
      "← usable: opencode's usable context, 2,500 tokens",
      "first deny at compaction 2 (no-progress): the guard would have saved 1 step",
    ]);
  });

  it("puts each mark under the last column of the step that set the compaction off", () => {
    const lines = terminalChart(small, { height: 6 }).split("\n");
    const top = lines[0]!;
    const marks = lines[7]!;
    // Steps 3 and 6 (0-based 2 and 5) are the 3,000-token peaks of the top row, 4 columns each.
    expect(top.slice(marks.indexOf("c") - 3, marks.indexOf("c") + 1)).toBe("╭───");
    expect(top.slice(marks.indexOf("X") - 3, marks.indexOf("X") + 1)).toBe("╭───");
    expect(marks.indexOf("X") - marks.indexOf("c")).toBe(3 * 4);
  });

  it("without limits: one line, and the legend says so; later denies are x", () => {
    const text = terminalChart(
      {
        ...small,
        usable: null,
        compactions: [...small.compactions, { index: 3, afterStep: 6, decision: "deny", rule: "no-progress" }],
      },
      { height: 4 },
    );
    expect(text).toContain("model limits unknown: no usable-context line");
    // Round rows: 0 to 3,000 in 3 steps of 1,000 (not 4 rows of 750), then the marker row.
    expect(
      text
        .split("\n")
        .slice(0, 4)
        .map((l) => l.slice(0, 8)),
    ).toEqual([" 3,000 ┤", " 2,000 ┤", " 1,000 ┤", "     0 ┤"]);
    expect(text.split("\n")[4]).toBe("                  c           X...x");
    expect(text).not.toContain("2,500");
  });

  it("the fixed-point loop the guard stopped: c and X under its two steps, nothing after", () => {
    const lines = terminalChart(seriesOf("e2e-fixed-point.json")).split("\n");
    // 0 to 8,000 in round steps of 1,000: the 7,020-token steps on the 7,000 row, the usable line on its own.
    expect(lines).toHaveLength(9 + 1 + 5);
    expect(lines.slice(0, 3)).toEqual([" 8,000 ┤", " 7,000 ┤───────", " 6,000 ┤─────── ← usable 6,000"]);
    expect(lines[9]).toBe("          c   X");
    expect(lines.slice(-3)).toEqual([
      "← usable: opencode's usable context, 6,000 tokens",
      "first deny at compaction 2 (no-progress): nothing came after it, the session",
      "  stopped there",
    ]);
  });

  it("plain text: no ANSI colours, no trailing spaces, no trailing newline", () => {
    const text = terminalChart(seriesOf("e2e-fixed-point-unguarded.json"));
    expect(text).not.toMatch(/\x1b\[/);
    expect(text.split("\n").every((line) => line === line.trimEnd())).toBe(true);
    expect(text.endsWith("\n")).toBe(false);
  });

  it.each([40, 60, 80, 120])("down-samples to width %i: no line longer, one value per column", (width) => {
    const steps = Array.from({ length: 500 }, (_, i) => 10_000 + (i % 70) * 2_000);
    const series: SessionSeries = {
      sessionID: "s",
      title: "",
      steps,
      compactions: [
        { index: 1, afterStep: 69, decision: "allow", rule: null },
        { index: 2, afterStep: 139, decision: "deny", rule: "no-new-work" },
      ],
      usable: 150_000,
      firstDeny: 1,
    };
    const lines = terminalChart(series, { width, height: 8 }).split("\n");
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(width);
    // "148,000 ┤" is 9 characters before the first column; " ← usable 150,000" (17) after the last.
    const columns = width - 9 - 17;
    const plotRows = lines.slice(0, 9);
    expect(plotRows[0]!.endsWith(" ← usable 150,000")).toBe(true); // the usable line is the top here
    expect(Math.max(...plotRows.map((l) => l.replace(" ← usable 150,000", "").length))).toBe(width - 17);
    const legend = lines
      .slice(10)
      .join("\n")
      .replace(/\n {2}/g, " ");
    expect(legend).toContain(`(~${Math.round(500 / columns)} a column, each its largest)`);
    const marks = lines[9]!;
    expect(marks.indexOf("c")).toBe(9 + Math.floor((69 * columns) / 500));
    expect(marks.indexOf("X")).toBe(9 + Math.floor((139 * columns) / 500));
    expect(marks.trimEnd().length).toBe(width - 17);
    expect(lines.find((l) => l.endsWith(" ← usable 150,000"))?.length).toBe(width);
    expect(legend).toContain("first deny at compaction 2 (no-new-work): the guard would have saved 360 steps");
  });

  it("leaves a gap where a step has no token data, and says so in the legend; no data at all gives a note", () => {
    const gaps = terminalChart(
      { ...small, steps: [null, 1_000, null, 3_000], compactions: [], usable: null, firstDeny: null },
      { height: 3 },
    );
    // Steps 1 and 3 (4 columns each) are blank: no line is drawn through them, none at the size before them.
    expect(gaps.split("\n").slice(0, 4)).toEqual([" 3,000 ┤           ╶───", " 2,000 ┤", " 1,000 ┤   ╶───", "     0 ┤"]);
    expect(gaps).toContain("\n2 steps have no token data: a gap in the line\n");
    expect(gaps.split("\n").at(-1)).toBe("no automatic compaction");
    // With the usable line: it runs on through the gaps; the context line does not.
    const withUsable = terminalChart({ ...small, steps: [1_000, null, 1_000], compactions: [], firstDeny: null }, { height: 5 }).split(
      "\n",
    );
    expect(withUsable.slice(0, 6)).toEqual([
      " 2,500 ┤─────────── ← usable 2,500",
      " 2,000 ┤",
      " 1,500 ┤",
      " 1,000 ┤───    ╶───",
      "   500 ┤",
      "     0 ┤",
    ]);
    expect(terminalChart({ ...small, steps: [null, null] })).toBe(
      "context tokens per step: nothing to plot (2 steps, none with token data)",
    );
    expect(terminalChart({ ...small, steps: [] })).toBe("context tokens per step: nothing to plot (no steps)");
  });
});

describe("review defects: the report and the charts say what the table says", () => {
  const unguarded = seriesOf("e2e-fixed-point-unguarded.json");

  it("labels a subagent's session in the HTML table and in its chart's caption, as the terminal table does", () => {
    const series = { ...unguarded, parentID: "ses_parent" };
    const report = reportOf([series]);
    const html = renderHtmlReport({ ...report, sessions: [{ row: { ...report.sessions[0]!.row, parentID: "ses_parent" }, series }] });
    expect(count(html, /↳ subagent of <span class="pid"><bdi>ses_parent<\/bdi><\/span>/g)).toBe(2);
    expect(html).toMatch(/<td class="session"><a [^>]*><bdi>[^<]*<\/bdi><\/a><br><span class="sub">↳ subagent of /);
    expect(html).toMatch(/<figcaption><span class="sub">↳ subagent of /);
    expect(renderHtmlReport(reportOf([unguarded]))).not.toContain("subagent of");
  });

  it("unknown tokens and wall time are '-' and 'unknown', never 0", () => {
    const report = reportOf([unguarded]);
    const row = { ...report.sessions[0]!.row, tokensAfterDeny: null, secondsAfterDeny: null };
    const html = renderHtmlReport({ ...report, sessions: [{ row, series: unguarded }] });
    expect(html).toContain(
      `<td class="deny">#2 <span class="rule">no-progress</span></td><td class="n">7</td><td class="n">-</td><td class="n">-</td>`,
    );
    expect(html).toContain("the guard would have saved 7 steps, 7 continue turns, tokens unknown and wall time unknown");
    expect(html).not.toMatch(/\b0 tokens|\b0 s\b/);
  });

  it("a chart with no token data has no made-up axis; the legend lists the usable line only when a chart draws one", () => {
    const svg = renderChartSvg({ sessionID: "s", title: "t", steps: [null, null], compactions: [], usable: null, firstDeny: null });
    expect(count(svg, /text-anchor="end"/g)).toBe(0);
    const noLimits = seriesOf("e2e-healthy.json", "limits unknown");
    expect(renderHtmlReport(reportOf([noLimits]))).not.toContain("opencode's usable context</span>");
    expect(renderHtmlReport(reportOf([noLimits, unguarded]))).toContain("opencode's usable context</span>");
    // Whose usable context: the one agent's of the sessions with a usable line, else each agent's.
    const agent = (report: AuditReport, name: string): AuditReport => ({
      ...report,
      sessions: report.sessions.map((s) => ({ ...s, row: { ...s.row, agent: name } })),
    });
    expect(renderHtmlReport(agent(reportOf([noLimits, unguarded]), "claude-code"))).toContain("Claude Code's usable context</span>");
    const mixed = reportOf([unguarded, unguarded]);
    const both = {
      ...mixed,
      sessions: [mixed.sessions[0]!, { ...mixed.sessions[1]!, row: { ...mixed.sessions[1]!.row, agent: "codex" } }],
    };
    expect(renderHtmlReport(both)).toContain("each agent's usable context</span>");
  });

  it("the steps after the user's reply are not 'would have been saved': series, SVG shading and terminal dots stop there", () => {
    // The review fixture: denied at compaction 2 (after step 4), the user wrote right after its summary; 3 steps followed.
    const session = fixture("review/healthy-user-reply-after-overflow-denial.json");
    const rows = replayMessages(session.messages, DEFAULT_SETTINGS, {});
    const series = sessionSeries(
      buildTimeline(session.messages),
      rows,
      rows.find((r) => r.decision === "deny"),
      null,
      { id: session.info.id, title: "" },
    );
    expect([series.steps.length, series.compactions[series.firstDeny!]!.afterStep, series.userStep]).toEqual([7, 3, 4]);
    expect(stepsAfterFirstDeny(series)).toBe(0);
    expect(stepsAfterFirstDeny({ ...series, userStep: null })).toBe(3);
    expect(renderChartSvg(series)).not.toContain('class="saved"');
    // Made by hand: 6 steps, deny after step 2 (index 1), the user spoke before step 5 (index 4).
    const hand: SessionSeries = {
      sessionID: "s",
      title: "",
      steps: [1_000, 2_000, 3_000, 3_000, 1_500, 2_500],
      compactions: [{ index: 1, afterStep: 1, decision: "deny", rule: "no-progress" }],
      usable: null,
      firstDeny: 0,
      userStep: 4,
    };
    expect(stepsAfterFirstDeny(hand)).toBe(2);
    expect(stepsAfterFirstDeny({ ...hand, userStep: null })).toBe(4);
    const lines = terminalChart(hand, { height: 3 }).split("\n");
    expect(lines[4]).toBe("              X........");
    expect(lines.slice(-2).join(" ").replace(/ {3}/g, " ")).toBe(
      "first deny at compaction 1 (no-progress): the guard would have saved 2 steps, until the user stepped in",
    );
    const rect = /<rect class="saved" x="([\d.]+)" y="2" width="([\d.]+)"/.exec(renderChartSvg(hand))!;
    const full = /<rect class="saved" x="([\d.]+)" y="2" width="([\d.]+)"/.exec(renderChartSvg({ ...hand, userStep: null }))!;
    expect(Number(rect[1])).toBe(Number(full[1]));
    expect(Number(rect[2])).toBeCloseTo(Number(full[2]) / 2, 0);
  });

  it("replay --chart and the HTML caption tell the first deny in the same words and figures (back-to-back compactions)", async () => {
    const { cli } = await import("../support/cli.js");
    const file = new URL("../../fixtures/judgement/back-to-back-compactions.json", import.meta.url).pathname;
    const chart = (await cli(["replay", file, "--chart"])).stdout.split("\n\n")[1]!;
    const legend = chart.trimEnd().split("\n").slice(-2).join(" ").replace(/ {3}/g, " ");
    expect(chart).toContain("across: step 1 (");
    expect(chart).not.toContain("steps 1–1");
    // All three compactions share the one column, the first deny's X wins it: the only marker listed.
    expect(chart.split("\n").filter((l) => /^[cXx.] /.test(l))).toEqual(["X first deny"]);
    expect(legend).toBe(
      "first deny at compaction 3 (back-to-back-compactions): the guard would have saved 0 steps, 2 continue turns, 400 tokens and 0.0 s",
    );
    const audit = JSON.parse((await cli(["audit", file, "--json", "--html", "/dev/null"])).stdout) as { sessions: AuditSession[] };
    const session = fixture("judgement/back-to-back-compactions.json");
    const rows = replayMessages(session.messages, DEFAULT_SETTINGS, {});
    const series = sessionSeries(
      buildTimeline(session.messages),
      rows,
      rows.find((r) => r.decision === "deny"),
      null,
      { id: session.info.id, title: session.info.title },
    );
    const html = renderHtmlReport({ ...reportOf([series]), sessions: [{ row: audit.sessions[0]!, series }] });
    expect(html).toContain(legend.slice(legend.indexOf("first deny")));
    // One wall-time formatter: the table's.
    expect(html).toContain('<td class="n">0.0 s</td>');
  });

  it("the page says where the tool-loop check would have acted, and nothing for a session without a tool loop", async () => {
    const { cli } = await import("../support/cli.js");
    const { mkdtempSync, readFileSync: read } = await import("node:fs");
    const out = `${mkdtempSync(`${(await import("node:os")).tmpdir()}/ocg-html-`)}/page.html`;
    const file = new URL("../../fixtures/e2e-fixed-point-unguarded.json", import.meta.url).pathname;
    expect((await cli(["audit", file, "--html", out, "--tool-loop", "stop"])).code).toBe(0);
    expect(read(out, "utf8")).toContain(
      '<span class="toolloop">Tool loop: 2 tool results would have carried the tool-loop notice, from step 3; the session would have been stopped at step 5 (run 5).</span>',
    );
    const healthy = new URL("../../fixtures/e2e-healthy.json", import.meta.url).pathname;
    expect((await cli(["audit", healthy, "--html", out])).code).toBe(0);
    expect(read(out, "utf8")).not.toContain('class="toolloop"');
  });

  it("isolates untrusted text with <bdi> and shows control characters escaped in the page", () => {
    const series = { ...unguarded, title: "evil\u202e\u0007title" };
    const html = renderHtmlReport(reportOf([series], ["x\u202e.json: not an export"]));
    expect(html).toContain("<bdi>evil\\u202e\\x07title</bdi>");
    expect(html).toContain("<li><bdi>x\\u202e.json: not an export</bdi></li>");
    expect(html).not.toMatch(/[\u0000-\u0008\u202a-\u202e]/);
  });
});

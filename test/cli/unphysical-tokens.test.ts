/**
 * Token counts no model could have made (1e308, 1e400 which parses as Infinity, negative,
 * over 10¹²) are read as missing, field by field as an absent one, with one warning: never a
 * 309-digit number or `∞ tokens`.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildTimeline, contextTokens, hasUnphysicalTokens, outputTokens, promptTokens } from "../../src/hosts/opencode/v1.js";
import { cli } from "../support/cli.js";
import { bash, SessionBuilder } from "../support/session.js";

const dir = mkdtempSync(join(tmpdir(), "ocg-tokens-"));

/** An export of 3 compaction cycles whose steps' tokens are `spec` (written into the JSON text as is, so `1e400` stays). */
function exportWith(name: string, spec: string): string {
  const session = new SessionBuilder(`ses_${name}`).user("go");
  for (let i = 0; i < 3; i++) session.step(bash("npm test", "1 failed\n"), { total: 424242 }).compact();
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(session.export()).replaceAll('{"total":424242}', spec));
  return path;
}

describe("the token fields of a step", () => {
  it.each([
    [{ total: 1e308 }, null, null, 0],
    [{ total: Infinity, input: 700 }, 700, 700, 0],
    [{ total: Number.NaN }, null, null, 0],
    [{ input: -5, output: 10 }, 10, 10, 10],
    [{ total: 2e12, output: 2e12 }, null, null, 0],
    [{ input: 1000, cache: { read: 1e13, write: 0 } }, 1000, 1000, 0],
    [{ total: 1000, reasoning: -1 }, 1000, 1000, 0],
  ])("%j: each such field reads as missing (0), as an absent one", (tokens, context, prompt, output) => {
    expect([hasUnphysicalTokens(tokens), contextTokens(tokens), promptTokens(tokens), outputTokens(tokens)]).toEqual([
      true,
      context,
      prompt,
      output,
    ]);
  });

  it("a timeline's step carries the three sizes, each in its own field, for any tokens", () => {
    const field = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(1e12, 1e13, -0, null, "7", undefined));
    const tokens = fc.oneof(
      fc.record(
        { total: field, input: field, output: field, reasoning: field, cache: fc.oneof(fc.record({ read: field, write: field }), field) },
        { requiredKeys: [] },
      ),
      field,
    );
    fc.assert(
      fc.property(tokens, (t) => {
        const [entry] = buildTimeline([{ info: { id: "msg_1", role: "assistant", tokens: t }, parts: [] }]).entries;
        expect(entry).toMatchObject({ contextTokens: contextTokens(t), promptTokens: promptTokens(t), outputTokens: outputTokens(t) });
      }),
      { numRuns: 2000 },
    );
  });

  it("a real count, up to 10¹², is kept", () => {
    const tokens = { total: 1e12, input: 900, output: 100, cache: { read: 0, write: 0 } };
    expect([hasUnphysicalTokens(tokens), contextTokens(tokens), promptTokens(tokens), outputTokens(tokens)]).toEqual([
      false,
      1e12,
      900,
      100,
    ]);
  });
});

describe("replay and audit", () => {
  it.each([
    ["huge", '{"total":1e308,"input":1e308,"output":0}'],
    ["infinite", '{"total":1e400}'],
    ["negative", '{"input":-7020,"output":0}'],
    ["trillions", '{"total":5000000000000}'],
  ])("%s: one warning, `-` where the size would be, no digit run or ∞", async (name, spec) => {
    const file = exportWith(name, spec);
    const run = await cli(["replay", file]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      "warning: 3 messages have token counts no model could have made (negative, not a number, or over 1,000,000,000,000): read as missing\n",
    );
    expect(run.stdout).not.toMatch(/∞|\d{13}|\d{1,3}(,\d{3}){4}/);
    expect(run.stdout).toMatch(/^1  msg_\d+ +- +- +allow/m);
    const json = JSON.parse((await cli(["replay", file, "--json"])).stdout) as { compactions: Array<{ triggerTokens: unknown }> };
    expect(json.compactions.map((c) => c.triggerTokens)).toEqual([null, null, null]);
    const chart = await cli(["replay", file, "--chart"]);
    expect(chart.stdout).not.toMatch(/∞|\d{13}|\d{1,3}(,\d{3}){4}/);
    expect(chart.stdout).toContain("nothing to plot");
    const audit = await cli(["audit", file, exportWith(`${name}-again`, spec)]);
    expect(audit.code).toBe(0);
    expect(audit.stderr).toBe(
      "warning: 2 sessions have token counts no model could have made (negative, not a number, or over 1,000,000,000,000): read as missing\n",
    );
    expect(audit.stdout).not.toMatch(/∞|\d{13}|\d{1,3}(,\d{3}){4}/);
  });

  it("no warning for sessions with real counts", async () => {
    const run = await cli(["replay", exportWith("fine", '{"total":7020,"input":7020,"output":0}')]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
  });
});

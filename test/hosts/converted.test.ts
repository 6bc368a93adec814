/**
 * The handed judgement cases (fixtures/judgement, fixtures/judgement2: opencode exports with
 * their answers in expect.json), rewritten as each agent would have written the same work
 * (test/support/transcripts.ts), are decided as in opencode's format: the same first denial,
 * by the same rule.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildTimeline } from "../../src/hosts/opencode/v1.js";
import { replayTimeline, type ReplayRow } from "../../src/core.js";
import { DEFAULT_SETTINGS } from "../../src/config/settings.js";
import { readClaudeCode } from "../../src/hosts/claude-code/index.js";
import { readCodex } from "../../src/hosts/codex/index.js";
import { toClaudeCode, toCodex } from "../support/transcripts.js";

const cases = ["judgement", "judgement2"].flatMap((folder) => {
  const dir = new URL(`../../fixtures/${folder}/`, import.meta.url);
  const expected = JSON.parse(readFileSync(new URL("expect.json", dir), "utf8")) as Record<
    string,
    { firstDeny: number | null; accept?: number[]; flags?: string[] }
  >;
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json") && file !== "expect.json")
    .map((file) => {
      const name = file.slice(0, -5);
      const flags = expected[name]?.flags ?? [];
      const limits: Record<string, number> = {};
      for (let i = 0; i < flags.length; i += 2) limits[flags[i]!.replace(/^--|-limit$/g, "")] = Number(flags[i + 1]);
      const session = JSON.parse(readFileSync(new URL(file, dir), "utf8")) as { messages: unknown[] };
      return { id: `${folder}/${name}`, messages: session.messages, want: expected[name], limits: flags.length > 0 ? limits : undefined };
    });
});

const verdict = (rows: readonly ReplayRow[]) => {
  const deny = rows.find((row) => row.decision === "deny");
  return deny ? { firstDeny: deny.compaction.index, rule: deny.rule } : { firstDeny: null, rule: null };
};

describe("every handed case is read", () => {
  it("22 cases, each with its answer", () => {
    expect(cases.length).toBe(22);
    expect(cases.filter((c) => c.want === undefined).map((c) => c.id)).toEqual([]);
  });
});

describe.each([
  ["Claude Code", (timeline: ReturnType<typeof buildTimeline>) => readClaudeCode(toClaudeCode(timeline)).timeline],
  ["Codex", (timeline: ReturnType<typeof buildTimeline>) => readCodex(toCodex(timeline)).timeline],
])("rewritten as a %s transcript", (_agent, convert) => {
  it.each(cases.map((c) => [c.id, c] as const))("%s", (_id, c) => {
    const options = { limits: c.limits };
    const timeline = buildTimeline(c.messages);
    const opencode = verdict(replayTimeline(timeline, DEFAULT_SETTINGS, options));
    expect(c.want!.accept ?? [c.want!.firstDeny]).toContain(opencode.firstDeny);
    const converted = convert(timeline);
    expect(converted.compactions.filter((k) => k.auto && k.succeeded).length).toBe(
      timeline.compactions.filter((k) => k.auto && k.succeeded).length,
    );
    expect(verdict(replayTimeline(converted, DEFAULT_SETTINGS, options))).toEqual(opencode);
  });
});

/**
 * `replay` and `audit` read V2 sessions saved from opencode's V2 API: the JSON of
 * `/api/session/{id}/message` (newest first, as opencode answers) and of `/history` (the
 * durable events), recorded from opencode 1.18.33's V2 session runner (test/fixtures/v2/).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cli } from "../support/cli.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/v2/${name}.json`, import.meta.url));

describe("replay of a saved V2 session", () => {
  for (const file of ["loop-messages", "loop-history"]) {
    it(`${file}.json: the first deny at compaction 2, repeated-tool-call, as the live V2 guard decides`, async () => {
      const run = await cli(["replay", fixture(file), "--json"]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const out = JSON.parse(run.stdout) as { sessionID: string; firstDeny: number; compactions: { rule: string | null }[] };
      expect(out.firstDeny).toBe(2);
      expect(out.compactions.map((c) => c.rule)).toEqual([null, ...Array(5).fill("repeated-tool-call")]);
      // The session's id comes from the events; /message names no session, so the file stands for it.
      expect(out.sessionID).toBe(file === "loop-history" ? "ses_dcd78e6f1ffeSPOKl0OXnuE8by" : fixture(file));
    });
  }

  it("healthy-history.json: three compactions, none denied", async () => {
    const run = await cli(["replay", fixture("healthy-history")]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("3 automatic compactions");
    expect(run.stdout).toContain("no deny:");
  });

  it("audit reads both forms as sessions", async () => {
    const run = await cli(["audit", fixture("loop-history"), fixture("healthy-messages"), "--json"]);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { sessions: { compactions: number; firstDeny: number | null }[]; totals: { looping: number } };
    expect(out.sessions.map((s) => [s.compactions, s.firstDeny]).sort()).toEqual([
      [3, null],
      [6, 2],
    ]);
    expect(out.totals.looping).toBe(1);
  });

  it("a `data` list of something else is no V2 session: one line naming the file, exit 2", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "ocg-v2-")), "other.json");
    writeFileSync(file, JSON.stringify({ data: [{ type: "user", id: "m1" }, { id: 2 }], cursor: {} }));
    const run = await cli(["replay", file]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split("\n")).toEqual([
      `opencode-compaction-guard: ${file}: not an opencode session export (no \`info\` object)`,
    ]);
  });
});

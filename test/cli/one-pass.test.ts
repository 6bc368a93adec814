import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RULES } from "../../src/judge/rules/index.js";
import { cli } from "../support/cli.js";

const LOOP = fileURLToPath(new URL("../../fixtures/opencode-1.18.33-loop-bash.json", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../../fixtures/", import.meta.url));

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** How many times the first rule is checked while `args` runs: once per decided compaction. */
async function checks(args: string[]): Promise<{ checks: number; stdout: string }> {
  const spy = vi.spyOn(RULES[0], "check");
  spy.mockClear();
  const { code, stdout } = await cli(args);
  expect(code).toBe(0);
  return { checks: spy.mock.calls.length, stdout };
}

describe("one decision pass per session", () => {
  it("replay --chart decides each compaction once, as replay does", async () => {
    const plain = await checks(["replay", LOOP, "--json"]);
    const compactions = (JSON.parse(plain.stdout) as { compactions: unknown[] }).compactions.length;
    expect(compactions).toBeGreaterThan(0);
    expect(plain.checks).toBe(compactions);
    expect((await checks(["replay", LOOP, "--chart"])).checks).toBe(compactions);
  });

  it("audit decides each compaction once, with or without the series for the page", async () => {
    const json = await checks(["audit", FIXTURES, "--json"]);
    const rows = (JSON.parse(json.stdout) as { sessions: Array<{ compactions: number }> }).sessions;
    const listed = rows.reduce((sum, row) => sum + row.compactions, 0);
    // Sessions found twice are decided once per file; every decided compaction is counted once.
    expect(json.checks).toBeGreaterThanOrEqual(listed);
    const dir = mkdtempSync(join(tmpdir(), "one-pass-"));
    dirs.push(dir);
    const withPage = await checks(["audit", FIXTURES, "--json", "--html", join(dir, "page.html")]);
    expect(withPage.checks).toBe(json.checks);
  });
});

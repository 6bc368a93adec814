/**
 * Every command README.md and docs/*.md show with their output (a `console` block: the
 * convention is in test/support/doc-blocks.ts) is run here against the built CLI
 * (`dist/cli/bin.js`: `npm ci` or `npm run build` first, as CI does), and what it prints is
 * compared with what the page shows. The fixtures are fixed files, so session ids, dates and
 * sums are compared as they are; only the clone's own path is normalised. A block that needs
 * opencode says why in its source, and e2e/try.test.ts runs it against the real opencode.
 * Also: the start-up line docs/install.md shows is the one the plugin writes for its settings.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { describeSettings, resolveSettings } from "../src/config/settings.js";
import { VERSION } from "../src/shared/version.js";
import { CLI, cliBin, consoleBlocks, PAGES, readerEnv, ROOT, runBlock } from "./support/doc-blocks.js";

const BLOCKS = PAGES.flatMap(consoleBlocks);
const RUN = BLOCKS.filter((b) => b.skip === null);
const bin = cliBin();
afterAll(() => rmSync(bin, { recursive: true, force: true }));

describe("commands shown in README.md and docs/ with their output", () => {
  it("finds them: the built CLI is there, every block has a command, few are not run", () => {
    expect(existsSync(CLI), "run npm run build first").toBe(true);
    for (const b of BLOCKS) expect(b.steps.length, `${b.page}:${b.line}`).toBeGreaterThan(0);
    expect(RUN.length).toBeGreaterThanOrEqual(6);
    expect(BLOCKS.filter((b) => b.skip !== null).map((b) => `${b.page}:${b.line}: ${b.skip}`)).toHaveLength(2);
  });

  it("shows no $ command with output outside a console block", () => {
    for (const page of PAGES) {
      const lines = readFileSync(join(ROOT, page), "utf8").split("\n");
      let open = false;
      lines.forEach((line, i) => {
        if (!line.startsWith("```")) return;
        if (!open && line !== "```console") expect(lines[i + 1] ?? "", `${page}:${i + 2}`).not.toMatch(/^\$ /);
        open = !open;
      });
    }
  });

  it.each(RUN.map((b) => [`${b.page}:${b.line}`, b] as const))("%s prints what it shows", (where, block) => {
    for (const step of runBlock(block, readerEnv(bin))) {
      if (!step.ok) expect(step.actual.join("\n"), `${where}: $ ${step.command}`).toBe(step.expected.join("\n"));
    }
  });
});

describe("docs/install.md", () => {
  it("shows the start-up line the plugin writes for window 12 (option) and one ignore (env)", () => {
    const resolved = resolveSettings({ window: 12 }, { OPENCODE_COMPACTION_GUARD_IGNORE: "gh run watch" });
    const line = `compaction-guard ${VERSION} loaded: ${describeSettings(resolved)}`;
    expect(readFileSync(join(ROOT, "docs/install.md"), "utf8").split("\n")).toContain(line);
  });
});

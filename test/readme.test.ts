/**
 * The README is the front door: an install that works from a clone within its first 80
 * lines, every setting in its table, and every link of it and of docs/ pointing at a file
 * (or a heading) that is there.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SETTINGS } from "../src/decide/settings.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation out, spaces to hyphens. */
const anchor = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

describe("README", () => {
  it("holds an install from a clone in its first 80 lines", () => {
    const head = README.split("\n").slice(0, 80).join("\n");
    expect(head).toContain("npm ci");
    expect(head).toMatch(/^opencode plugin \/absolute\/path\/to\/opencode-compaction-guard/m);
    expect(head).toContain('"file:///absolute/path/to/opencode-compaction-guard/dist/index.js"');
    expect(head).toContain("npm run try");
    // Not the first thing to copy: the name is not on npmjs.org yet.
    expect(head.indexOf("opencode plugin opencode-compaction-guard@")).toBeGreaterThan(head.indexOf("opencode plugin /absolute"));
  });

  it("is a front page: under 200 lines (its depth is in docs/)", () => {
    expect(README.split("\n").length).toBeLessThan(200);
  });

  it("lists every setting in its table", () => {
    for (const key of Object.keys(SETTINGS)) expect(README, key).toContain(`| \`${key}\` |`);
  });

  it("says what CI runs", () => {
    expect(README).toContain("`npm test`");
    expect(README).toContain("`.ci/run`");
    expect(readFileSync(join(ROOT, ".ci/run"), "utf8")).toContain('step "npm test" npm test');
  });
});

describe("links of the README and docs/", () => {
  it.each(PAGES)("%s: every relative link names a file that is there, and a heading in it", (page) => {
    const text = readFileSync(join(ROOT, page), "utf8");
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    for (const link of links) {
      const [file, hash] = link.split("#") as [string, string | undefined];
      const target = file === "" ? join(ROOT, page) : join(ROOT, dirname(page), file);
      expect(existsSync(target), `${page}: ${link}`).toBe(true);
      if (hash !== undefined && target.endsWith(".md")) {
        const headings = [...readFileSync(target, "utf8").matchAll(/^#+ (.+)$/gm)].map((m) => anchor(m[1]!));
        expect(headings, `${page}: ${link}`).toContain(hash);
      }
    }
  });
});

/**
 * The README is the front door: one sentence and a picture first, an install that works
 * from a clone within its first 80 lines, every setting in its commented block (and in
 * docs/install.md's table), its two setup commands, and every link of it and of docs/
 * pointing at a file (or a heading) that is there.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SETTINGS } from "../src/config/settings.js";

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
  const lines = README.split("\n");

  it("opens as a front door: one sentence, then the picture, within its first 10 lines", () => {
    const head = lines.slice(0, 10).join("\n");
    expect(head).toMatch(/^!\[[^\]]+\]\(docs\/[\w-]+\.png\)$/m);
    expect(lines.indexOf("## Install")).toBeGreaterThan(0);
    expect(lines.indexOf("## Install")).toBeLessThan(20);
  });

  it("holds an install from a clone in its first 80 lines, by an absolute path", () => {
    const head = lines.slice(0, 80).join("\n");
    expect(head).toContain("npm ci");
    expect(head).not.toContain("<this repository>");
    expect(head).toMatch(/^guard="\$PWD"$/m);
    expect(head).toMatch(/^cd \/path\/to\/your\/project && opencode plugin "\$guard"/m);
    expect(head).toContain('"file:///absolute/path/to/opencode-compaction-guard/dist/index.js"');
    expect(head).toContain("npm run try");
    // Not the first thing to copy: the name is not on npmjs.org yet.
    expect(head.indexOf("opencode plugin opencode-compaction-guard@")).toBeGreaterThan(head.indexOf('opencode plugin "$guard"'));
  });

  it("is a front page: under 200 lines (its depth is in docs/)", () => {
    expect(lines.length).toBeLessThan(200);
  });

  it("says what it costs and what it cannot do", () => {
    expect(lines).toContain("## Impact on prompt caching");
    expect(lines).toContain("## Limitations");
  });

  it("lists every setting in its commented block, and docs/install.md in its table", () => {
    const install = readFileSync(join(ROOT, "docs/install.md"), "utf8");
    for (const key of Object.keys(SETTINGS)) {
      expect(README, key).toMatch(new RegExp(`^ {2}"${key}": .+ // `, "m"));
      expect(install, key).toContain(`| \`${key}\` |`);
    }
  });

  it("has its two setup commands, and CI runs its test command", () => {
    const dev = README.slice(README.indexOf("## Development and CI"));
    expect(dev).toMatch(/^npm run demo +# the main job/m);
    expect(dev).toMatch(/^npm test +# the tests CI runs/m);
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

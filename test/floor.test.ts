/**
 * The floor: every case with a right answer that the project holds stays right. Each folder
 * of fixtures/ (and the generator's fixed sample) with an expect.json is replayed case by case
 * through the replay command, as `node ../shared/replay-check.mjs <folder>` scores it, and a
 * case whose first denial is not among its right answers fails under its own name. The
 * generator's fresh seeds are in ./judgement3.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { replayBytes } from "./support/golden.js";

interface Expected {
  readonly firstDeny: number | null | "any";
  readonly accept?: readonly (number | null)[];
  readonly flags?: readonly string[];
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Every folder under fixtures/ (one level of sets, held/ one more) holding an expect.json, and the judgement3 sample. */
function sets(): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (existsSync(`${dir}/expect.json`)) found.push(dir);
    if (depth === 0) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) walk(`${dir}/${entry.name}`, depth - 1);
  };
  walk(`${ROOT}fixtures`, 2);
  found.push(`${ROOT}test/fixtures/judgement3`);
  return found.sort();
}

/** The first denial's compaction index that `replay --json` reports for a case. */
async function firstDeny(file: string, flags: readonly string[]): Promise<number | null> {
  const bytes = await replayBytes(file, flags);
  if (bytes.startsWith("exit ")) throw new Error(`replay ${file}: ${bytes.split("\n")[0]}`);
  return (JSON.parse(bytes) as { firstDeny: number | null }).firstDeny;
}

const SETS = sets();

describe("the floor: every held case stays right", () => {
  it("finds the sets: the handed judgement sets, the held sets, the generator's sample", () => {
    const names = SETS.map((dir) => dir.slice(ROOT.length));
    for (const name of [
      "fixtures/judgement",
      "fixtures/judgement2",
      "fixtures/held/sessions",
      "fixtures/held/bugs2",
      "fixtures/held/real-adv",
      "fixtures/held/bugs3",
      "test/fixtures/judgement3",
    ])
      expect(names).toContain(name);
  });

  for (const dir of SETS) {
    const expected = JSON.parse(readFileSync(`${dir}/expect.json`, "utf8")) as Record<string, Expected>;
    const scored = Object.entries(expected).filter(([, want]) => want.firstDeny !== "any");
    describe(dir.slice(ROOT.length), () => {
      it.each(scored)("%s", async (name, want) => {
        const accept = want.accept ?? [want.firstDeny];
        expect(accept).toContain(await firstDeny(`${dir}/${name}.json`, want.flags ?? []));
      });
    });
  }
});

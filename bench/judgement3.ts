/**
 * Scores the guard on many seeds of the judgement3 generator (test/support/judgement3/gen.mjs)
 * and prints the score per kind and every wrong case. Exit code 1 when any case is wrong.
 *
 *   npm run judgement3 -- [--seeds 1-300] [--per-kind 2]
 */
import { parseArgs } from "node:util";
import { KINDS, scoreSeed, type Wrong } from "../test/support/judgement3/score.js";

const { values } = parseArgs({ options: { seeds: { type: "string", default: "1-300" }, "per-kind": { type: "string", default: "2" } } });
const range = /^(\d+)-(\d+)$/.exec(values.seeds) ?? /^(\d+)()$/.exec(values.seeds);
const perKind = Number(values["per-kind"]);
if (!range || !(perKind >= 1)) {
  console.error("usage: npm run judgement3 -- [--seeds FROM-TO] [--per-kind K]");
  process.exit(2);
}
const from = Number(range[1]);
const to = range[2] ? Number(range[2]) : from;
const started = performance.now();
const byKind = new Map<string, { right: number; total: number }>(KINDS.map((kind) => [kind, { right: 0, total: 0 }]));
const wrong: Array<Wrong & { seed: number }> = [];
const refused: number[] = [];
for (let seed = from; seed <= to; seed++) {
  let score: ReturnType<typeof scoreSeed>;
  try {
    score = scoreSeed(seed, perKind);
  } catch {
    // The generator refuses a seed whose labels it cannot make hold: no case to score.
    refused.push(seed);
    continue;
  }
  for (const [kind, tally] of score.byKind) {
    const sum = byKind.get(kind)!;
    byKind.set(kind, { right: sum.right + tally.right, total: sum.total + tally.total });
  }
  for (const one of score.wrong) wrong.push({ ...one, seed });
}
let right = 0;
let total = 0;
for (const [kind, tally] of byKind) {
  right += tally.right;
  total += tally.total;
  console.log(`${kind.padEnd(3)} ${String(tally.right).padStart(5)}/${tally.total}`);
}
for (const one of wrong) console.log(`wrong: seed ${one.seed} ${one.name}: want ${one.want.join("|")} got ${one.got}`);
const falseDenials = wrong.filter((one) => one.want.includes(null)).length;
console.log(
  `judgement3 seeds ${from}-${to}, ${perKind} per kind: ${right}/${total} right (false denials ${falseDenials}, missed or late ${wrong.length - falseDenials}) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
if (refused.length > 0) console.log(`seeds the generator refused (no cases): ${refused.join(", ")}`);
process.exit(wrong.length === 0 ? 0 : 1);

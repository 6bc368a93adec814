/**
 * Checks predict.ts `tokensAtLeast` (one token per run of non-whitespace) against the six
 * real tokenizers on every tool output of the recorded exports under fixtures/ and on a few
 * adversarial texts (CJK, digit runs, punctuation runs, contractions, emoji, whitespace).
 * Prints, per tokenizer, how many texts the bound exceeds (must be 0), the smallest ratio of
 * tokens to the bound, and the share of the tokens the bound counts. Exit 1 on a violation.
 *
 *   npx tsx e2e/chunk-bound.ts
 */
import { readdirSync, readFileSync } from "node:fs";
import { tokensAtLeast } from "../src/judge/predict.js";
import { loadTokenizer, REAL_TOKENIZERS } from "./tokenizers.js";

const FOLDERS = [
  "fixtures",
  "fixtures/review",
  "fixtures/breaker",
  "fixtures/judgement",
  "fixtures/judgement2",
  "test/fixtures/judgement3",
];
const ADVERSARIAL = [
  "进度报告：第一阶段完成，第二阶段进行中。错误代码１２３４。",
  "1234567890 ".repeat(50),
  "=".repeat(500),
  "a_b_c-d.e/f:g ".repeat(40),
  "don't can't won't I'm you're ".repeat(20),
  "🙂🙃 😀".repeat(30),
  "\t\t\t    \n\n\n".repeat(30),
];

const texts = new Set<string>(ADVERSARIAL);
for (const folder of FOLDERS) {
  for (const name of readdirSync(folder)) {
    if (!name.endsWith(".json") || name === "expect.json" || name === "notes.json") continue;
    const session = JSON.parse(readFileSync(`${folder}/${name}`, "utf8")) as {
      messages?: Array<{ parts?: Array<{ type?: string; state?: { output?: unknown } }> }>;
    };
    for (const message of session.messages ?? []) {
      for (const part of message.parts ?? [])
        if (part.type === "tool" && typeof part.state?.output === "string") texts.add(part.state.output);
    }
  }
}
console.log(`${texts.size} texts`);
let violations = 0;
for (const name of REAL_TOKENIZERS) {
  const tokenizer = await loadTokenizer(name);
  let over = 0;
  let smallest = Infinity;
  let bound = 0;
  let real = 0;
  for (const text of texts) {
    const tokens = tokenizer.countTexts([text]);
    const atLeast = tokensAtLeast(text);
    if (atLeast > tokens) over += 1;
    if (atLeast > 0) smallest = Math.min(smallest, tokens / atLeast);
    bound += atLeast;
    real += tokens;
  }
  violations += over;
  console.log(
    `${name.padEnd(7)} over ${over}, smallest tokens / bound ${smallest.toFixed(2)}, the bound counts ${((100 * bound) / real).toFixed(0)}% of the tokens`,
  );
}
process.exit(violations === 0 ? 0 : 1);

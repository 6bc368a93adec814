import { readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import { wordsOf } from "../../../src/judge/explain.js";
import { RULES, type Evidence, type RuleName } from "../../../src/judge/rules/index.js";
import type { Rule, Words } from "../../../src/judge/rules/rule.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import { replayMessages } from "../../../src/core.js";
import { OPENCODE_WORDS } from "../../../src/hosts/opencode/words.js";

const loop = JSON.parse(readFileSync(new URL("../../../fixtures/opencode-1.18.33-loop-bash.json", import.meta.url), "utf8")) as {
  messages: unknown[];
};

describe("a rule is one file: its name, severity, check and words", () => {
  it("every rule in RULES has a unique name and its words (explain, short, next step)", () => {
    const names = RULES.map((rule) => rule.name);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of RULES) {
      expect(rule.words.explain, rule.name).toBeTypeOf("function");
      expect(rule.words.short, rule.name).toBeTypeOf("function");
      expect(rule.words.nextStep(OPENCODE_WORDS).trim(), rule.name).not.toBe("");
    }
  });

  it("the words are typed by the rule's own evidence, and the evidence map is derived from RULES", () => {
    expectTypeOf<RuleName>().toEqualTypeOf<(typeof RULES)[number]["name"]>();
    expectTypeOf<(typeof RULES)[0]["words"]>().toEqualTypeOf<Words<Evidence["no-progress"]>>();
    // @ts-expect-error a rule without words is not a Rule
    const withoutWords: Rule = { name: "x", severity: "info", check: () => ({ fired: false, evidence: null }) };
    expect(withoutWords.name).toBe("x");
  });

  it("every rule tells its evidence in words, fired or not, on a real export", () => {
    const rows = replayMessages(loop.messages, DEFAULT_SETTINGS);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      for (const rule of RULES) {
        const words = wordsOf(rule.name, row.evidence, OPENCODE_WORDS);
        expect(words.sentence, rule.name).toMatch(/\S/);
        expect(words.short, rule.name).toMatch(/\S/);
      }
    }
  });
});

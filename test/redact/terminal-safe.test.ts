/** The one function that makes untrusted text terminal-safe, and its JSON form. */
import { describe, expect, it } from "vitest";
import { terminalSafe, terminalSafeJson } from "../../src/redact/terminal-safe.js";

describe("terminalSafe", () => {
  it.each([
    ["\u001b[2J", "\\x1b[2J"],
    ["\u0007", "\\x07"],
    ["\u007f", "\\x7f"],
    ["\u009b31m", "\\x9b31m"],
    ["\u0085", "\\x85"],
    ["\u061c", "\\u061c"],
    ["\u200e", "\\u200e"],
    ["\u200f", "\\u200f"],
    ["\u202a\u202e", "\\u202a\\u202e"],
    ["\u2066\u2069", "\\u2066\\u2069"],
    ["a\tb\nc\rd", "a b c d"],
  ])("%j → %s", (text, safe) => {
    expect(terminalSafe(text)).toBe(safe);
  });

  it("leaves printable text alone: accents, CJK, emoji, right-to-left letters, zero-width joiners", () => {
    const text = "café 漢字 👩‍💻 שלום \u200d";
    expect(terminalSafe(text)).toBe(text);
  });
});

describe("terminalSafeJson", () => {
  it("writes C1 and bidi controls as \\u escapes, as JSON.stringify writes C0 ones, and parses back the same", () => {
    const value = { id: "ses_\u001b\u009b\u007f\u061c\u200e\u200f\u202e\u2068", n: 1, list: ["\u0085"] };
    const json = terminalSafeJson(value);
    expect(json).toBe('{"id":"ses_\\u001b\\u009b\\u007f\\u061c\\u200e\\u200f\\u202e\\u2068","n":1,"list":["\\u0085"]}');
    expect(JSON.parse(json)).toEqual(value);
  });
});

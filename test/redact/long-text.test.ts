/** Secret masking on texts of megabytes (a transcript's first message, a tool's name), and on the start of a text only. */
import { describe, expect, it } from "vitest";
import { redactedStart, redactSecrets } from "../../src/redact/secrets.js";

const MIB = 2 ** 20;

describe("redactSecrets on long text", () => {
  it("a run of millions of characters without whitespace is masked whole, not thrown on", () => {
    expect(redactSecrets("x1".repeat(3 * MIB))).toBe("[redacted]");
    expect(redactSecrets("x".repeat(6 * MIB))).toBe("[redacted]");
    expect(redactSecrets(`Bearer ${"a".repeat(6 * MIB)} done`)).toBe("Bearer [redacted] done");
  });

  it("a long text of ordinary lines is masked as each line is on its own", () => {
    const line = "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 and plain words, password: hunter2hunter2\n";
    const text = line.repeat(40_000);
    expect(text.length).toBeGreaterThan(2 * MIB);
    expect(redactSecrets(text)).toBe(redactSecrets(line).repeat(40_000));
  });

  it("a run just within the bound is still read by the patterns", () => {
    const run = "y".repeat(MIB - 20);
    expect(redactSecrets(`${run} sk-abcdefgh12 ${run}`)).toBe(`${run} sk-[redacted] ${run}`);
  });
});

describe("redactedStart", () => {
  it("masks a secret that the part shown cuts in half", () => {
    const title = `${"x".repeat(70)} sk-${"abcdefgh12".repeat(3)} more`;
    expect(redactedStart(title, 80)).toBe(`${"x".repeat(70)} sk-[redacted] more`.slice(0, 80));
    expect(title.slice(0, 80)).toBe(`${"x".repeat(70)} sk-abcdef`);
    expect(redactedStart(`see ghp_${"A1".repeat(50)}`, 80)).toBe("see gh_[redacted]");
  });

  it("is redactSecrets cut to length on a short text, and reads only the start of a long one", () => {
    const text = "curl -u admin:S3cretPass42 https://api.example.com and on";
    expect(redactedStart(text, 30)).toBe(redactSecrets(text).slice(0, 30));
    expect(redactedStart(`${"x".repeat(6 * MIB)}1`, 80)).toBe("x".repeat(80));
  });
});

import { describe, expect, it } from "vitest";
import { PREVIEW_MAX, previewInput, redactSecrets } from "../src/redact.js";

describe("redactSecrets", () => {
  it.each([
    ["OPENAI_API_KEY=sk-proj-abcdefghijklmnop123456", "sk-proj"],
    ["token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdef"],
    ["curl -H 'Authorization: Bearer abc.def.ghi-123456'", "abc.def"],
    ["aws AKIAABCDEFGHIJKLMNOP", "AKIAABCDEFGHIJKLMNOP"],
    ["password: hunter2hunter2", "hunter2"],
    ["id 0123456789abcdef0123456789abcdef01", "0123456789abcdef"],
    ["aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG", "wJalrXU"],
    ["docker login -u ci --password S3cretPass42", "S3cretPass42"],
    ["git clone https://deploy:S3cretPass42@example.com/r.git", "S3cretPass42"],
    ["curl -u admin:S3cretPass42 https://api.example.com", "S3cretPass42"],
    ["mysql -uroot -pS3cretPass42 app", "S3cretPass42"],
  ])("masks %j", (text, secret) => {
    expect(redactSecrets(text)).not.toContain(secret);
    expect(redactSecrets(text)).toContain("[redacted");
  });

  it.each([
    "npm test -- --run src/components/very-long-component-name-here/index.test.ts",
    "mkdir -p build && git push origin main",
    "curl https://example.com/a@b",
  ])("leaves ordinary commands and paths alone: %s", (text) => {
    expect(redactSecrets(text)).toBe(text);
  });
});

describe("previewInput", () => {
  it("shows the telling field of a tool input", () => {
    expect(previewInput({ description: "x", command: "echo hi" })).toBe('command="echo hi"');
    expect(previewInput({ filePath: "src/a.ts", offset: 95 })).toBe('filePath="src/a.ts"');
    expect(previewInput({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });

  it("is one short line without secrets", () => {
    const preview = previewInput({ command: `curl -H "Authorization: Bearer ${"x1".repeat(40)}"\n${"y".repeat(500)}` });
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_MAX);
    expect(preview).not.toContain("\n");
    expect(preview).not.toContain("x1x1");
    expect(preview.endsWith("…")).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/redact/secrets.js";

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

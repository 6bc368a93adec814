/**
 * Short, redacted previews of tool inputs: the only part of a tool call the guard ever
 * shows (in evidence, logs, toasts and replay output). Raw outputs are never shown.
 */
import { canonicalJson } from "./signature.js";

/** Longest preview, characters. */
export const PREVIEW_MAX = 60;

/** Fields whose value says best what a call did (bash `command`, read `filePath` …). */
const TELLING_FIELDS = ["command", "filePath", "path", "pattern", "url", "query"];

const SECRET_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/gi, "$1 [redacted]"],
  // Quotes may come escaped (`\"password\": \"…\"` inside a JSON-encoded string).
  [/((?:api[_-]?key|apikey|token|secret|password|passwd|pwd|authorization|auth)\\?["']?\s*[:=]\s*\\?["']?)(?:[^\s"',;&\\]|\\(?!["']))+/gi, "$1[redacted]"],
  // `--password S3cret`, `aws_secret_access_key wJal…`: a secret-naming word, a space, a value.
  [/(\b[\w-]*(?:password|passwd|secret|api[_-]?key|access[_-]?key|token)[\w-]*\s+)(?!-)[^\s"',;&]+/gi, "$1[redacted]"],
  // Credentials in a URL (`https://user:pass@host`, `postgres://app:pass@db`).
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, "$1[redacted]@"],
  // `curl -u user:pass`, `--user user:pass`; `mysql -pS3cret` (the password glued to -p).
  [/((?:^|\s)(?:-u\s*|--user[=\s]+))[^\s:]+:\S+/g, "$1[redacted]"],
  [/(\bmysql(?:dump|admin)?\b[^|;&\n]*?\s-p)[^\s-]\S*/g, "$1[redacted]"],
  [/\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, "$1-[redacted]"],
  [/\bgh[pousr]_[A-Za-z0-9]{10,}/g, "gh_[redacted]"],
  [/\bgithub_pat_[A-Za-z0-9_]{10,}/g, "github_pat_[redacted]"],
  [/\bxox[abprs]-[A-Za-z0-9-]{8,}/g, "xox-[redacted]"],
  [/\bAKIA[0-9A-Z]{16}\b/g, "AKIA[redacted]"],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, "[redacted-jwt]"],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, "[redacted-key]"],
];

/** Long runs of letters and digits mixed (hex, base64 keys) read as secrets too. */
const LONG_TOKEN = /[A-Za-z0-9_+=-]{32,}/g;

/**
 * Masks secret-shaped substrings: `sk-…`, `ghp_…`, `Bearer …`, `api_key=…`, `--password …`,
 * credentials in URLs, `curl -u user:pass`, `mysql -p…`, JWTs, private keys, AWS key ids,
 * and any 32+ character run that mixes letters and digits.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out.replace(LONG_TOKEN, (run) => (/\d/.test(run) && /[A-Za-z]/.test(run) ? "[redacted]" : run));
}

/**
 * A one-line preview of a tool input, at most {@link PREVIEW_MAX} characters, secrets masked.
 * For an object with a telling field (`command`, `filePath` …) it shows `field=value`;
 * otherwise the canonical JSON.
 */
export function previewInput(input: unknown): string {
  let text: string;
  const field =
    typeof input === "object" && input !== null
      ? TELLING_FIELDS.find((name) => typeof (input as Record<string, unknown>)[name] === "string")
      : undefined;
  if (field !== undefined) text = `${field}=${JSON.stringify((input as Record<string, string>)[field])}`;
  else text = canonicalJson(input);
  // Redact a bounded prefix. A secret cut at its edge can be too short to match its pattern
  // (all match from 32 characters on), and redactions before it can pull it into view: a
  // word of up to 47 characters at the cut is dropped (a longer one is masked whole as a
  // LONG_TOKEN when it mixes letters and digits).
  const cut = text.length > 4 * PREVIEW_MAX;
  const head = cut ? text.slice(0, 4 * PREVIEW_MAX).replace(/(?<![\w.~+/=-])[\w.~+/=-]{1,47}$/, "") : text;
  const flat = redactSecrets(head).replace(/\s+/g, " ").trim();
  return cut || flat.length > PREVIEW_MAX ? `${flat.slice(0, PREVIEW_MAX - 1)}…` : flat;
}

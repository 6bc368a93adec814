/**
 * Secret masking: the second layer under preview.ts's allow-list (which shows only what is
 * known to be harmless), and the filter for error messages the guard logs.
 */

/** Longest preview of a tool call, characters. */
export const PREVIEW_MAX = 60;

const SECRET_PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/gi, "$1 [redacted]"],
  // Quotes may come escaped (`\"password\": \"…\"` inside a JSON-encoded string).
  [
    /((?:api[_-]?key|apikey|token|secret|password|passwd|pwd|authorization|auth)\\?["']?\s*[:=]\s*\\?["']?)(?:[^\s"',;&\\]|\\(?!["']))+/gi,
    "$1[redacted]",
  ],
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
 * Matches wherever any pattern above would (case ignored, which only widens the patterns
 * that heed it): a text it does not match is left as it is by every replacement, so it is
 * returned without running them one by one.
 */
const ANY_SECRET = new RegExp([...SECRET_PATTERNS.map(([pattern]) => pattern.source), LONG_TOKEN.source].join("|"), "i");

/**
 * Masks secret-shaped substrings: `sk-…`, `ghp_…`, `Bearer …`, `api_key=…`, `--password …`,
 * credentials in URLs, `curl -u user:pass`, `mysql -p…`, JWTs, private keys, AWS key ids,
 * and any 32+ character run that mixes letters and digits.
 */
export function redactSecrets(text: string): string {
  if (!ANY_SECRET.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out.replace(LONG_TOKEN, (run) => (/\d/.test(run) && /[A-Za-z]/.test(run) ? "[redacted]" : run));
}

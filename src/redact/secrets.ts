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
 * Longest run of non-whitespace characters the patterns are run over, characters: their
 * repetitions (`{32,}`) overflow V8's backtracking stack on runs of a few million characters
 * ("Maximum call stack size exceeded").
 */
const MAX_RUN = 1 << 20;

/**
 * `text` with every run of more than {@link MAX_RUN} non-whitespace characters replaced by
 * `[redacted]` whole: nothing in such a run is shown, nothing around it changes.
 */
function maskLongRuns(text: string): string {
  const pieces: string[] = [];
  const space = /\s+/g;
  let run = 0;
  let kept = 0;
  for (;;) {
    const found = space.exec(text);
    const end = found ? found.index : text.length;
    if (end - run > MAX_RUN) {
      pieces.push(text.slice(kept, run), "[redacted]");
      kept = end;
    }
    if (!found) break;
    run = found.index + found[0].length;
  }
  if (pieces.length === 0) return text;
  pieces.push(text.slice(kept));
  return pieces.join("");
}

/**
 * Masks secret-shaped substrings: `sk-…`, `ghp_…`, `Bearer …`, `api_key=…`, `--password …`,
 * credentials in URLs, `curl -u user:pass`, `mysql -p…`, JWTs, private keys, AWS key ids,
 * and any 32+ character run that mixes letters and digits; a run of more than 2^20
 * (1,048,576) characters without whitespace is masked whole. Never throws, whatever the
 * text's length.
 */
export function redactSecrets(text: string): string {
  const bounded = text.length > MAX_RUN ? maskLongRuns(text) : text;
  if (!ANY_SECRET.test(bounded)) return bounded;
  let out = bounded;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out.replace(LONG_TOKEN, (run) => (/\d/.test(run) && /[A-Za-z]/.test(run) ? "[redacted]" : run));
}

/** Characters of a text {@link redactedStart} reads. */
const START_READ = 1000;

/**
 * The first `max` characters (at most a few hundred) of `text` as {@link redactSecrets}
 * would show them, reading only its first 1,000 characters: a secret that starts in the part
 * shown and runs on past `max` is still masked.
 */
export const redactedStart = (text: string, max: number): string => redactSecrets(text.slice(0, START_READ)).slice(0, max);

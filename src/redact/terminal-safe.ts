/**
 * Untrusted text (from a session, a file name, what opencode said) made safe to print: the one
 * definition of what must not reach a terminal raw, used by every output (the CLI's tables,
 * chart and JSON, the audit page, the plugin's toast and log lines).
 */

/**
 * Characters that must not reach a terminal raw: C0 controls (ESC starts every escape
 * sequence), DEL, C1 controls (`\u009b` is a one-byte CSI), and the bidi controls that
 * reorder what follows them: the marks U+200E (LRM), U+200F (RLM) and U+061C (ALM), the
 * embeddings and overrides U+202A–U+202E and the isolates U+2066–U+2069.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** The same characters but C0 ones, which JSON.stringify already escapes. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const hex = (code: number, digits: number): string => code.toString(16).padStart(digits, "0");

/**
 * Untrusted text made safe for one terminal line: tab, newline and carriage return become a
 * space, every other character of {@link UNSAFE} a visible escape (`\x1b`, `\x9b`, `\u202e`).
 * Printable text is untouched.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => {
    if (c === "\t" || c === "\n" || c === "\r") return " ";
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
  });
}

/**
 * `JSON.stringify(value)` safe for a terminal: besides the C0 controls JSON.stringify escapes,
 * DEL, C1 and the bidi controls of {@link UNSAFE} are written as `\u` escapes. Still valid JSON
 * that parses back to the same value (those characters only occur inside strings).
 */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE_IN_JSON, (c) => `\\u${hex(c.charCodeAt(0), 4)}`);
}

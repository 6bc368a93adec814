/**
 * A small bash lexer: a command line split into words, redirections and operators, as the
 * parsed command (./command.ts) and redaction's preview (redact/preview.ts) need it.
 */

/** A word of the command; `plain` when it has no quoting, escape or expansion. */
export interface Word {
  readonly kind: "word";
  readonly raw: string;
  readonly plain: boolean;
}
/** A redirection (`>`, `2>&1`, `<<EOF`, `<(…)`); its target is a word after it. */
export interface Redirect {
  readonly kind: "redirect";
}
/** A control operator: `&&`, `||`, `|`, `;`, `&`, a newline, `(`, `)`. */
export interface Operator {
  readonly kind: "op";
  readonly op: string;
}
export type Token = Word | Redirect | Operator;

/** A word as {@link lex} reads it: also what it stands for once quotes and escapes are removed. */
export interface LexedWord extends Word {
  /**
   * The word with its quotes and escapes removed (`'a b'` → `a b`, `\"x\"` → `"x"`). Parameter
   * expansions are kept as written (`$HOME`); `$(…)`, `${…}` and backquotes stand for nothing.
   */
  readonly value: string;
}
/** A redirection as {@link lex} reads it. */
export interface LexedRedirect extends Redirect {
  /** Whether the next word is its target (`> file`, `2>&1`, `<<< text`); not for `<(…)` or a heredoc. */
  readonly target: boolean;
  /** Whether it sends output somewhere (`>`, `>>`, `&>`, `2>&1`), not input in (`<`, `<<`, `<<<`, `<(…)`). */
  readonly output: boolean;
}
/** A token as {@link lex} reads it. */
export type Lexed = LexedWord | LexedRedirect | Operator;

/**
 * White space between words: every character {@link META}'s `\s` ends a word with but the
 * line feed (an operator of its own), so that each character ends a word or begins one: a
 * no-break space between words is a blank, not a word of no characters that never ends.
 */
const BLANK = /[^\S\n]/;
/** What `$'…'` makes of the common backslash escapes; any other escaped character stands for itself. */
const ANSI_C: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", e: "\u001b" };
const META = /[|&;()<>\s]/;

/**
 * Splits a shell command into words, redirections and operators, the way bash does for
 * what matters here: quotes, escapes, `$(…)`, `${…}`, backquotes and `<(…)` stay inside one
 * word; comments and heredoc bodies are dropped. Anything unterminated runs to the end, as
 * one word that is not plain (so it is never shown).
 */
export function tokenize(src: string): Token[] {
  return lex(src);
}

/** The same tokens as {@link tokenize}, each word with its value and each redirection with whether a target word follows. */
export function lex(src: string): Lexed[] {
  const tokens: Lexed[] = [];
  const heredocs: Array<{ delimiter: string; strip: boolean }> = [];
  const n = src.length;
  let i = 0;

  /** The end of a balanced `open … close` run starting at `start` (just after the opener). */
  const balanced = (start: number, open: string, close: string): number => {
    let depth = 1;
    let j = start;
    while (j < n && depth > 0) {
      const c = src[j]!;
      if (c === "\\") j += 2;
      else if (c === "'") j = skipQuote(j + 1, "'");
      else if (c === '"') j = skipDouble(j + 1);
      else if (c === "`") j = skipQuote(j + 1, "`");
      else {
        if (c === open) depth++;
        else if (c === close) depth--;
        j++;
      }
    }
    return j;
  };
  /** After the closing `quote` of a run starting at `start` (after the opener); backslash escapes in backquotes. */
  const skipQuote = (start: number, quote: string): number => {
    let j = start;
    while (j < n && src[j] !== quote) j += quote === "`" && src[j] === "\\" ? 2 : 1;
    return Math.min(j + 1, n + 1);
  };
  /** After the closing quote of `$'…'`, where a backslash escapes the next character. */
  const skipAnsiC = (start: number): number => {
    let j = start;
    while (j < n && src[j] !== "'") j += src[j] === "\\" ? 2 : 1;
    return Math.min(j + 1, n + 1);
  };
  const skipDouble = (start: number): number => {
    let j = start;
    while (j < n && src[j] !== '"') {
      if (src[j] === "\\") j += 2;
      else if (src.startsWith("$(", j)) j = balanced(j + 2, "(", ")");
      else if (src.startsWith("${", j)) j = balanced(j + 2, "{", "}");
      else if (src[j] === "`") j = skipQuote(j + 1, "`");
      else j++;
    }
    return Math.min(j + 1, n + 1);
  };

  /** Reads one word from `i`; returns its raw text, whether it is plain, and its unquoted value. */
  const readWord = (): { raw: string; plain: boolean; value: string } => {
    const start = i;
    let plain = true;
    let value = "";
    while (i < n && !META.test(src[i]!)) {
      const c = src[i]!;
      if (c === "\\") {
        plain = false;
        if (src[i + 1] === "\n") i += 2;
        else {
          value += src[i + 1] ?? "";
          i += 2;
        }
      } else if (c === "'") {
        plain = false;
        const end = skipQuote(i + 1, "'");
        value += src.slice(i + 1, end - 1);
        i = end;
      } else if (c === '"') {
        plain = false;
        const end = skipDouble(i + 1);
        // Inside double quotes a backslash escapes only `$`, a backquote, `"`, `\` and a newline.
        value += src.slice(i + 1, end - 1).replace(/\\([$`"\\\n])/g, (_, e: string) => (e === "\n" ? "" : e));
        i = end;
      } else if (c === "$" && src[i + 1] === "'") {
        plain = false;
        const end = skipAnsiC(i + 2);
        value += src.slice(i + 2, end - 1).replace(/\\(.)/gs, (_, e: string) => ANSI_C[e] ?? e);
        i = end;
      } else if (c === "$" && (src[i + 1] === "(" || src[i + 1] === "{")) {
        plain = false;
        i = src[i + 1] === "(" ? balanced(i + 2, "(", ")") : balanced(i + 2, "{", "}");
      } else if (c === "`") {
        plain = false;
        i = skipQuote(i + 1, "`");
      } else {
        if (c === "$") plain = false;
        value += c;
        i++;
      }
      // `NAME=(a b c)`: an array assignment is one word.
      if (src[i] === "(" && /^[A-Za-z_][A-Za-z0-9_]*\+?=$/.test(src.slice(start, i))) {
        plain = false;
        i = balanced(i + 1, "(", ")");
      }
    }
    i = Math.min(i, n);
    return { raw: src.slice(start, i), plain, value };
  };

  /** Drops heredoc bodies after a newline: lines up to each pending delimiter. */
  const skipHeredocs = (): void => {
    for (const { delimiter, strip } of heredocs.splice(0)) {
      while (i < n) {
        const end = src.indexOf("\n", i);
        const line = src.slice(i, end < 0 ? n : end);
        i = end < 0 ? n : end + 1;
        if ((strip ? line.replace(/^\t+/, "") : line) === delimiter) break;
      }
    }
  };

  while (i < n) {
    const c = src[i]!;
    if (BLANK.test(c)) {
      i++;
    } else if (c === "\\" && src[i + 1] === "\n") {
      i += 2;
    } else if (c === "\n") {
      tokens.push({ kind: "op", op: "\n" });
      i++;
      skipHeredocs();
    } else if (c === "#") {
      while (i < n && src[i] !== "\n") i++;
    } else if (c === "|" || c === "&" || c === ";") {
      const two = src.slice(i, i + 2);
      if (two === "&>") {
        tokens.push({ kind: "redirect", target: true, output: true });
        i += src[i + 2] === ">" ? 3 : 2;
      } else if (two === "&&" || two === "||") {
        tokens.push({ kind: "op", op: two });
        i += 2;
      } else if (two === "|&") {
        tokens.push({ kind: "op", op: "|" });
        i += 2;
      } else if (two === ";;" || two === ";&") {
        tokens.push({ kind: "op", op: ";" });
        i += src.slice(i, i + 3) === ";;&" ? 3 : 2;
      } else {
        tokens.push({ kind: "op", op: c });
        i++;
      }
    } else if (c === "(" || c === ")") {
      tokens.push({ kind: "op", op: c });
      i++;
    } else if (c === "<" || c === ">") {
      const target = src[i + 1] !== "(" && !(src.startsWith("<<", i) && src[i + 2] !== "<");
      tokens.push({ kind: "redirect", target, output: c === ">" });
      if (src[i + 1] === "(") {
        i = balanced(i + 2, "(", ")"); // process substitution: one elided word
      } else if (src.startsWith("<<<", i)) {
        i += 3;
      } else if (src.startsWith("<<", i)) {
        const strip = src[i + 2] === "-";
        i += strip ? 3 : 2;
        while (i < n && BLANK.test(src[i]!)) i++;
        const { value } = readWord();
        if (value !== "") heredocs.push({ delimiter: value, strip });
      } else {
        i++;
        while (i < n && /[<>&|]/.test(src[i]!)) i++;
      }
    } else {
      const { raw, plain, value } = readWord();
      // `2>&1`, `2>file`: a file descriptor glued to a redirection is part of it.
      if (/^\d+$/.test(raw) && (src[i] === "<" || src[i] === ">")) continue;
      tokens.push({ kind: "word", raw, plain, value });
    }
  }
  return tokens;
}

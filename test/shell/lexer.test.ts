import { describe, expect, it } from "vitest";
import { lex, tokenize, type Lexed } from "../../src/shell/lexer.js";

/** Words as their values, operators as themselves, redirections as `>` (`>_` when no target word follows). */
const shape = (tokens: readonly Lexed[]): string[] =>
  tokens.map((t) => (t.kind === "word" ? t.value : t.kind === "op" ? t.op : t.target ? ">" : ">_"));

describe("lex: word values and redirection targets", () => {
  it.each<[string, string[]]>([
    ["sleep 30 && gh run view", ["sleep", "30", "&&", "gh", "run", "view"]],
    ["echo 'a b' \"c d\" e\\ f", ["echo", "a b", "c d", "e f"]],
    ['echo "say \\"hi\\" for \\$5 \\n"', ["echo", 'say "hi" for $5 \\n']],
    ["bash -c 'sleep 30 && gh pr checks 42'", ["bash", "-c", "sleep 30 && gh pr checks 42"]],
    ["curl 'https://x/api?a=1&b=2' &", ["curl", "https://x/api?a=1&b=2", "&"]],
    ["printf $'a\\tb\\n' $'it\\'s'", ["printf", "a\tb\n", "it's"]],
    ["echo $HOME ${USER} $(date) `id`", ["echo", "$HOME", "", "", ""]],
    ["npm test > out.log 2>&1", ["npm", "test", ">", "out.log", ">", "1"]],
    ["diff <(sort a) b", ["diff", ">_", "b"]],
    ["cat <<'EOF'\nsleep 30\nEOF\nls", ["cat", ">_", "\n", "ls"]],
    ["grep x <<< 'sleep 30'", ["grep", "x", ">", "sleep 30"]],
    ["npm start &> log &", ["npm", "start", ">", "log", "&"]],
  ])("%j", (src, tokens) => {
    expect(shape(lex(src))).toEqual(tokens);
  });

  it("ends on every white space JavaScript knows: a no-break space, an em space, a line separator between or after words", () => {
    for (const space of ["\u00a0", "\u2003", "\u2028", "\u3000", "\ufeff"]) {
      expect(shape(lex(`npm${space}test${space}`)), JSON.stringify(space)).toEqual(["npm", "test"]);
      expect(shape(lex(`${space}`))).toEqual([]);
    }
  });

  it("tokenize gives the same tokens as lex", () => {
    const src = "FOO=1 sudo -u x bash -lc 'a && b' | tee >(wc -l) 2>/dev/null; echo \"$x\" # note";
    expect(tokenize(src)).toEqual(lex(src));
  });

  it("keeps each word's raw text and plainness", () => {
    expect(lex("sleep '30'")).toEqual([
      { kind: "word", raw: "sleep", plain: true, value: "sleep" },
      { kind: "word", raw: "'30'", plain: false, value: "30" },
    ]);
  });
});

describe("lex: which way a redirection points", () => {
  it.each<[string, boolean[]]>([
    ["cat < a.txt", [false]],
    ["echo x > a.txt", [true]],
    ["cmd >> log 2>&1", [true, true]],
    ["cmd &> all.log", [true]],
    ["cat <<'EOF'\nbody\nEOF", [false]],
    ["diff <(sort a) b", [false]],
  ])("%s", (command, outputs) => {
    expect(lex(command).flatMap((token) => (token.kind === "redirect" ? [token.output] : []))).toEqual(outputs);
  });
});

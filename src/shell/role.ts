/**
 * What a shell command line does: does it only read, check the code (a test, build or lint
 * run), or may it change something; and which file a reading command shows. Lines are read
 * through the parsed command (./command.ts `simpleCommandsOf`). A command not known to read is taken to change
 * something: the cautious side, since an effect counts as new work.
 *
 * The verbs decide, not the nouns: `gh pr view` reads and `gh pr checkout` changes the
 * working tree; `kubectl rollout status` reads and `kubectl rollout restart` restarts pods.
 */
import { simpleCommandsOf } from "./command.js";

/** What a command does: reads, checks the code, or may change something. */
export type CommandKind = "read" | "check" | "effect";

/** Programs that only read, whatever their arguments (save the flags of {@link WRITING_FLAG}). */
const READING_PROGRAMS = new Set(
  (
    "cat head tail less more nl wc grep egrep fgrep rg ag ack find fd ls tree stat file du df pwd cd echo printf true false " +
    "test [ [[ which type whereis realpath readlink basename dirname sort uniq cut tr column jq yq xxd od hexdump strings " +
    "diff cmp comm awk gawk sed perl bat batcat printenv date uname id whoami hostname ps lsof ss netstat sleep curl"
  ).split(" "),
);

/** Programs that check the code and answer, unless a flag of {@link WRITING_FLAG} makes them write. */
const CHECK_PROGRAMS = new Set(
  "tsc eslint mypy pyright flake8 pylint pytest jest vitest mocha rspec phpunit rubocop golangci-lint staticcheck shellcheck hadolint".split(
    " ",
  ),
);

/** Formatters: they rewrite files unless told only to check (`--check`, `--diff`, `-l`). */
const FORMATTERS = new Set(["black", "isort", "prettier", "gofmt", "rustfmt", "autopep8", "yapf"]);
const CHECK_ONLY = /^(?:--check\S*|-c|--diff|-l|--list-different|-d)$/;

/** Words that run the command after them: `env X=1 cmd`, `time cmd`, `xargs cmd`. */
const PREFIXES = new Set(["env", "command", "time", "nice", "nohup", "sudo", "xargs", "exec"]);

/** `table[key]` when `key` is the table's own (a program named `valueOf` or `__proto__` is not in it). */
const ownValue = <T>(table: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

/**
 * Reading verbs of programs that also change things, as paths of words after the program
 * (flags and their values skipped): `git log`, `gh pr view`, `kubectl rollout status`.
 */
const READING_VERBS: Readonly<Record<string, readonly string[]>> = {
  git: [
    "show",
    "log",
    "diff",
    "status",
    "grep",
    "blame",
    "rev-parse",
    "ls-files",
    "ls-tree",
    "describe",
    "cat-file",
    "shortlog",
    "remote -v",
    "remote get-url",
    "remote show",
    "config --get",
    "config --list",
  ],
  gh: [
    ..."pr issue run repo release workflow gist label"
      .split(" ")
      .flatMap((noun) => ["view", "list", "status", "checks", "diff"].map((verb) => `${noun} ${verb}`)),
    "api",
    "search",
    "auth status",
  ],
  kubectl: [
    "get",
    "describe",
    "logs",
    "top",
    "explain",
    "version",
    "api-resources",
    "cluster-info",
    "rollout status",
    "rollout history",
    "config view",
    "config current-context",
  ],
  docker: ["ps", "logs", "inspect", "images", "version", "info", "compose ps", "compose logs", "compose config"],
  helm: ["list", "status", "get", "history", "show", "template", "lint"],
  npm: ["ls", "list", "view", "outdated", "why", "explain", "config get"],
  go: ["list", "version", "env", "doc", "vet", "test", "build"],
  cargo: ["tree", "metadata", "test", "check", "clippy", "build"],
  terraform: ["plan", "show", "validate", "output", "state list", "state show"],
};

/** Flags of the programs above that take a value: `kubectl -n ns get`, `gh -R o/r pr view`, `git -C dir log`. */
const VALUE_FLAGS = new Set([
  "-n",
  "--namespace",
  "--context",
  "--kubeconfig",
  "-R",
  "--repo",
  "-C",
  "-c",
  "-f",
  "--file",
  "-p",
  "--project-name",
]);

/** Flags that make a program write: `sed -i`, `perl -pi`, `prettier --write`, `eslint --fix`, `curl -X POST`, `find -delete`, `jest --updateSnapshot`. */
const WRITING_FLAG =
  /^(?:-i\S*|-pi\S*|--in-place\S*|--write|-w|--fix\S*|-o|-O|--output\S*|--output-document\S*|-delete|-exec\S*|-execdir|-ok|-X\S*|--request\S*|--method\S*|--data\S*|--form\S*|--field\S*|--raw-field\S*|--upload-file|--update\S*|--updateSnapshot)$/;
/** Short flags that write for one program only: `curl -d`, `gh api -f`, `jest -u`. */
const PROGRAM_WRITING_FLAG: Readonly<Record<string, RegExp>> = {
  curl: /^(?:-d|-F|-T)$/,
  gh: /^(?:-f|-F|--input)$/,
  jest: /^-u$/,
  vitest: /^-u$/,
};
/** Programs where `-u`, `-d`, `-f`, `-D` … read (`sort -u`, `diff -u`, `cut -d`, `tail -f`, `grep -f`, `ls -d`). */
const OWN_MEANING = new Set([
  "sort",
  "uniq",
  "diff",
  "cut",
  "tail",
  "head",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ls",
  "wc",
  "du",
  "df",
  "ps",
  "date",
  "find",
  "fd",
  "tree",
  "git",
  "jq",
  "nl",
  "column",
  "tr",
  "comm",
  "cmp",
  "xxd",
  "od",
  "uname",
  "id",
  "ss",
  "lsof",
  "cat",
  "bat",
  "less",
]);
/** The flags that still write for those programs. */
const WRITING_EVERYWHERE = /^(?:-i\S*|--in-place\S*|--write|--fix\S*|-delete|-exec\S*|-execdir|-ok|-D|--delete)$/;

/** Words that run the tool named next: `npx vitest`, `uv run mypy`, `bundle exec rspec`, `python -m pytest`. */
const PASSTHROUGH: Readonly<Record<string, readonly string[]>> = {
  npx: [""],
  bunx: [""],
  uvx: [""],
  uv: ["run", "tool run"],
  poetry: ["run"],
  bundle: ["exec"],
  pnpm: ["exec", "dlx"],
  yarn: ["exec", "dlx"],
  bun: ["x"],
  python: ["-m"],
  python3: ["-m"],
};
/** Runners of a project's named scripts or targets: `npm run lint`, `npm test`, `make check`, `./gradlew build`. */
const SCRIPT_RUNNERS = new Set("npm pnpm yarn bun make gradle gradlew mvn dotnet rails rake just task uv".split(" "));
/** A script, target or tool that checks the code. */
const CHECK_WORD =
  /lint|test|check|clippy|vet|build|compile|verify|validate|spec|typecheck|tsc|pytest|mypy|pyright|ruff|flake8|vitest|jest|mocha|eslint/i;
/** A script, target or tool that changes things even when it also names a check: `lint:fix`, `build-and-deploy`, `test:update`. */
const EFFECT_WORD =
  /fix|format|fmt|write|update|generate|codegen|migrate|deploy|release|publish|install|clean|seed|reset|sync|upload|push|apply/i;

/** A database client's query given inline (`psql -c`, `mysql -e`, `sqlite3 db "…"`): a read when it only selects. */
const DB_CLIENTS = new Set(["psql", "mysql", "sqlite3", "clickhouse-client", "duckdb"]);
const READ_QUERY = /^\s*(?:select|show|explain|describe|desc|with\b[\s\S]*\bselect|\\d)/i;

/** The words after `at` with flags (and the values of {@link VALUE_FLAGS}) left out. */
function operands(words: readonly string[], at: number): string[] {
  const found: string[] = [];
  for (let i = at; i < words.length; i++) {
    const word = words[i]!;
    if (word.startsWith("-")) {
      if (VALUE_FLAGS.has(word)) i++;
      continue;
    }
    found.push(word);
  }
  return found;
}

/** Does one simple command only read, check, or may it change something? */
function commandKind(words: readonly string[]): CommandKind {
  let at = 0;
  // Leading assignments (`CI=1 npm test`) and prefixes (`env`, `time`, `xargs -0`) run what follows.
  for (;;) {
    const word = words[at];
    if (word === undefined) return "read";
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) at++;
    else if (PREFIXES.has(word.replace(/^.*\//, ""))) {
      at++;
      while (words[at]?.startsWith("-")) at++;
    } else break;
  }
  const program = words[at]!.replace(/^.*\//, "");
  const rest = words.slice(at + 1);
  const writing = OWN_MEANING.has(program) ? WRITING_EVERYWHERE : WRITING_FLAG;
  const own = ownValue(PROGRAM_WRITING_FLAG, program);
  if (rest.some((word) => writing.test(word) || own?.test(word))) return "effect";
  if (program === "git" && operands(rest, 0)[0] === "branch") return operands(rest, 0).length === 1 ? "read" : "effect";
  if (READING_PROGRAMS.has(program)) return "read";
  if (CHECK_PROGRAMS.has(program)) return "check";
  if (FORMATTERS.has(program))
    return rest.some((word) => CHECK_ONLY.test(word)) ? "check" : program === "prettier" && !rest.includes("--write") ? "read" : "effect";
  if (program === "ruff") return rest[0] === "format" && !rest.some((word) => CHECK_ONLY.test(word)) ? "effect" : "check";
  if (DB_CLIENTS.has(program)) {
    const query = rest.find((word, i) => i > 0 && /^(?:-c|--command|-e|--execute)$/.test(rest[i - 1]!)) ?? rest.at(-1);
    return query !== undefined && READ_QUERY.test(query) && !/;\s*\S/.test(query.trim().replace(/;\s*$/, "")) ? "read" : "effect";
  }
  const verbs = ownValue(READING_VERBS, program);
  const path = operands(rest, 0);
  if (verbs?.some((verb) => verb.split(" ").every((part, i) => (part.startsWith("-") ? rest.includes(part) : path[i] === part)))) {
    return CHECK_WORD.test(path[0] ?? "") && path[0] !== "status" ? "check" : "read";
  }
  for (const verb of ownValue(PASSTHROUGH, program) ?? []) {
    const parts = verb === "" ? [] : verb.split(" ");
    const from = parts.length === 0 ? rest.findIndex((word) => !word.startsWith("-")) : rest.indexOf(parts[0]!);
    if (from === -1 || !parts.every((part, i) => rest[from + i] === part)) continue;
    const tool = rest.slice(from + parts.length);
    // `python -m build`: the module is the program.
    return tool.length === 0 ? "effect" : commandKind(tool);
  }
  if (SCRIPT_RUNNERS.has(program)) {
    const name = (path[0] === "run" ? path[1] : path[0] === "t" ? "test" : path[0])?.replace(/^.*\//, "");
    if (name === undefined || EFFECT_WORD.test(name)) return "effect";
    return CHECK_WORD.test(name) ? "check" : "effect";
  }
  // Another subcommand: a check when it names one (`cargo nextest`), else it may change something.
  if (verbs) return path[0] !== undefined && !EFFECT_WORD.test(path[0]) && CHECK_WORD.test(path[0]) ? "check" : "effect";
  if (EFFECT_WORD.test(program)) return "effect";
  return CHECK_WORD.test(program) ? "check" : "effect";
}

/**
 * What a shell command line does: `effect` when any of its simple commands may change
 * something or writes into a file, else `check` when one of them is a check, else `read`.
 */
export function commandRole(command: string): CommandKind {
  let kind: CommandKind = "read";
  for (const simple of simpleCommandsOf(command)) {
    const one = simple.writes ? "effect" : commandKind(simple.words);
    if (one === "effect") return "effect";
    if (one === "check") kind = "check";
  }
  return kind;
}

/** Of {@link FILE_SHOWERS}, those whose first operand is a script (`sed -n '1,9p' f`, `awk 'NR<9' f`). */
const SCRIPTED = new Set(["sed", "awk", "gawk", "perl"]);

/** Programs that show a file's lines: the file is their last operand (`sed -n '1,9p' f`, `head -n 9 f`, `perl -ne … f`). */
const FILE_SHOWERS = new Set(["cat", "head", "tail", "sed", "awk", "gawk", "perl", "bat", "batcat", "nl", "less", "more"]);

/**
 * The file a reading command line shows, as written (relative to a `cd` into a relative
 * folder before it), or undefined when it shows none or several: `cd src && head -n 9 a.ts`
 * shows `src/a.ts`; `git show REV:path` names its path.
 */
export function shownFile(command: string): string | undefined {
  let folder = "";
  let file: string | undefined;
  for (const { words } of simpleCommandsOf(command)) {
    const program = words[0]?.replace(/^.*\//, "");
    if (program === "cd") {
      const to = words[1] ?? "";
      folder = to.startsWith("/") ? `${to}/` : `${folder}${to}/`;
      continue;
    }
    let path: string | undefined;
    if (program === "git" && words[1] === "show")
      path = words
        .slice(2)
        .find((word) => word.includes(":"))
        ?.replace(/^[^:]*:/, "");
    else if (program !== undefined && FILE_SHOWERS.has(program)) {
      // The last operand; for a program without a script (`cat`, `head`), the only one.
      const paths = words.slice(1).filter((word) => !word.startsWith("-") && /[./]/.test(word) && !/^[\d,]+p?$/.test(word));
      if (paths.length === 1 || (SCRIPTED.has(program) && paths.length > 0)) path = paths.at(-1);
    }
    if (path === undefined) continue;
    if (file !== undefined) return undefined;
    file = path.startsWith("/") ? path : `${folder}${path}`;
  }
  return file;
}

/** A path's segments, `.` and `..` resolved: `./src/../lib/a.ts` → `["lib", "a.ts"]`. */
export function pathSegments(path: string): string[] {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts;
}

/**
 * The word lists the parsed command (./command.ts) and redaction's bash preview
 * (redact/preview.ts) are built from: the subcommand words the preview may show, the programs
 * whose arguments are data, interpreters, shell keywords, and the prefix commands (`sudo`,
 * `env`, `timeout` …) with the options they take. Showing a word is a decision made here:
 * anything not listed is elided.
 */

/**
 * Subcommand words shown after a program: common CLI verbs and nouns, npm script names and
 * tool names. Only these are shown, so an argument that is user data (`vault login hunter`,
 * `redis-cli auth foobared`, `echo pw`, `cd app`) is elided unless it is one of these words.
 */
export const SUBCOMMANDS = new Set(
  (
    "add agent alias all analyze api apply approve archive artifacts attach audit auth autoremove backup bench benchmark " +
    "branch build builder buildx bump bundle cache cancel cat check checkout cherry-pick ci clean clear clippy clone close " +
    "cluster commit compile completion compose config configmap configure connect container containers context contexts " +
    "coverage cp create cron db debug delete demo deploy deployment deployments deps describe destroy dev dgst diff disable " +
    "dist doc docs doctor down download drop e2e edit enable enc env eslint events exec explain fetch fix fmt format fsck " +
    "fuzz gc generate generic genrsa get grep help history image images import info init inspect install integration issue " +
    "issues jest kill label lint list load lock log login logout logs ls merge migrate migration migrations mod modules mv " +
    "namespace namespaces network new node nodes ns outdated pack package packages passwd password patch plan plugin plugins " +
    "pod pods pr prepare preview prettier prisma production prune ps publish pull push pytest query rand rebase rebuild " +
    "refresh release reload remote remove rename repo req replace reset restart restore revert review rm rmi rollback rollout " +
    "run runs scale schema search secret secrets seed serve server service services set setup shell show sign staging stash " +
    "start state stats status stop storybook submodule switch sync system tag tags test tests tidy token top tree tsc " +
    "typecheck unit uninstall unset up update upgrade upload validate vendor verify version vet view vitest volume volumes " +
    "wait watch whoami why workflow workflows workspace worktree x509 s3 ec2 iam sts ecr eks sso"
  ).split(" "),
);

/** Programs whose arguments are data, never subcommands: nothing after them is shown. */
export const DATA_PROGRAMS = new Set([
  "echo",
  "printf",
  "print",
  "yes",
  "export",
  "set",
  "declare",
  "local",
  "readonly",
  "typeset",
  "alias",
  "read",
  "eval",
]);

/** Interpreters whose first argument is a script (`python manage.py migrate`, `sh ./test.sh`). */
export const INTERPRETER = /^(?:python[0-9.]*|node|nodejs|ruby|perl|php|sh|bash|zsh|dash|ksh|fish|tsx|ts-node)$/;

/** Shell keywords that precede a command; the command after them is previewed like any other. */
export const KEYWORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{"]);

/** Words that close a compound command, shown as they are. */
export const CLOSERS = new Set(["}", "fi", "done", "esac", "[", "[["]);

/** How a prefix command (`sudo`, `env`, `timeout` …) takes its options before the command it runs. */
export interface PrefixSpec {
  /** Short options without a value. */
  readonly flags?: string;
  /** Short options that take a value (glued or the next word). */
  readonly values?: string;
  /** Long options: true when the option takes a value. */
  readonly long?: Readonly<Record<string, boolean>>;
  /** Leading `NAME=value` words (env). */
  readonly assignments?: boolean;
  /** One duration word before the command (timeout). */
  readonly duration?: boolean;
  /** `-10` style numeric options (nice). */
  readonly numeric?: boolean;
}

const NPX: PrefixSpec = { flags: "yq", values: "p", long: { yes: false, no: false, quiet: false, package: true } };
/**
 * Commands that run another command. Their options are elided; an option not listed here
 * ends the preview of the command, since its value could otherwise be taken for a program.
 */
export const PREFIXES: Readonly<Record<string, PrefixSpec>> = {
  sudo: {
    flags: "AbBEHikKlnPSsVv",
    values: "CDghpRrTtUu",
    long: {
      user: true,
      group: true,
      prompt: true,
      chdir: true,
      host: true,
      "close-from": true,
      role: true,
      type: true,
      "other-user": true,
      "command-timeout": true,
      stdin: false,
      "preserve-env": false,
      login: false,
      shell: false,
      "non-interactive": false,
      "set-home": false,
      "reset-timestamp": false,
      "remove-timestamp": false,
      background: false,
      askpass: false,
      bell: false,
    },
  },
  doas: { flags: "ns", values: "uC" },
  env: {
    flags: "i0v",
    values: "uC",
    long: { "ignore-environment": false, null: false, unset: true, chdir: true, debug: false },
    assignments: true,
  },
  time: {
    flags: "pvaq",
    values: "fo",
    long: { format: true, output: true, portability: false, verbose: false, append: false, quiet: false },
  },
  nice: { values: "n", long: { adjustment: true }, numeric: true },
  nohup: {},
  exec: { flags: "cl", values: "a" },
  command: { flags: "p" },
  builtin: {},
  timeout: {
    flags: "v",
    values: "ks",
    long: { "kill-after": true, signal: true, "preserve-status": false, foreground: false, verbose: false },
    duration: true,
  },
  stdbuf: { values: "ioe", long: { input: true, output: true, error: true } },
  ionice: { flags: "t", values: "cnp", long: { class: true, classdata: true, pid: true, ignore: false } },
  xargs: {
    flags: "0prtx",
    values: "aEdIiLlnPs",
    long: {
      null: false,
      "no-run-if-empty": false,
      verbose: false,
      interactive: false,
      "arg-file": true,
      delimiter: true,
      "max-args": true,
      "max-procs": true,
      "max-lines": true,
      "max-chars": true,
      replace: false,
    },
  },
  watch: {
    flags: "bcegtpx",
    values: "n",
    long: { interval: true, beep: false, color: false, errexit: false, "no-title": false, precise: false, exec: false },
  },
  npx: NPX,
  bunx: NPX,
  pnpx: NPX,
  sshpass: { flags: "ve", values: "pfdP" },
};

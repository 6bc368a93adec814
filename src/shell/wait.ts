/**
 * How long a bash command line waits on purpose, read from its parsed simple commands
 * (./command.ts). A line with a real background job (`npm start & sleep 30 && curl …`) is no
 * wait: its sleep waits for that process to start, not for the world.
 */
import { durationSeconds, findProgram, parseCommandLine, programName, type SimpleCommand } from "./command.js";
import { DATA_PROGRAMS } from "./words.js";

/**
 * Every wait {@link commandWaitSeconds} knows names one of these words: a command without
 * any is not lexed.
 */
const WAIT_WORDS = /sleep|wait|watch|rollout/;

/**
 * How long a bash command line waits, in seconds: the longest wait of its simple commands
 * (Infinity for one that blocks until the world changes), 0 when it sends a job to the
 * background. A simple command waits when it is
 * - `sleep` of its summed durations (`30`, `10.5`, `2m`, `1m 30s`, `infinity`); any sleep
 *   inside a `while` or `until` loop (`until curl -sf …; do sleep 2; done`) blocks, as the
 *   loop polls until something changes;
 * - `watch …`, `wait-on …` (also through `npx`), `gh run watch`, `kubectl wait`,
 *   `kubectl rollout status` (global flags such as `-n ns` may come before the subcommand),
 *   `aws <service> wait …`, `az … wait`, `docker wait`, or any program given `--watch` or
 *   `--wait` (`gh pr checks --watch`, `helm upgrade --wait`, `docker compose up --wait`; not
 *   a program whose arguments are data, such as `echo`): it blocks, for at most its
 *   `--timeout` when that is given and above 0;
 * and `timeout N` around any of these bounds it to N seconds.
 */
export function commandWaitSeconds(command: string): number {
  if (!WAIT_WORDS.test(command)) return 0;
  const line = parseCommandLine(command);
  if (line.background) return 0;
  let longest = 0;
  for (const simple of line.commands) longest = Math.max(longest, simpleWaitSeconds(simple));
  return longest;
}

/** Options that take a value before a program's subcommand, so that `kubectl -n default rollout status` reads `rollout status`. */
const GLOBAL_VALUE_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  kubectl: new Set(
    "-n --namespace --context --cluster --kubeconfig --user -s --server --token --as --as-group --as-uid --request-timeout --cache-dir --certificate-authority --client-certificate --client-key --tls-server-name -v --v --profile --profile-output --password --username".split(
      " ",
    ),
  ),
  gh: new Set(["-R", "--repo"]),
  aws: new Set(
    "--region --profile --output --endpoint-url --query --cli-read-timeout --cli-connect-timeout --color --ca-bundle --cli-binary-format".split(
      " ",
    ),
  ),
  docker: new Set(["-c", "--context", "-H", "--host", "--config", "-l", "--log-level"]),
  podman: new Set(["-c", "--connection", "--url", "--log-level"]),
};

/** The words of `args` that are not options or their values (options taking a value are `valued`); all words after `--`. */
function positionals(args: readonly string[], valued: ReadonlySet<string> | undefined): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === "--") {
      out.push(...args.slice(i + 1));
      break;
    }
    if (word.startsWith("-") && word.length > 1) {
      if (!word.includes("=") && valued?.has(word)) i++;
    } else out.push(word);
  }
  return out;
}

/** Is `--name` (or `--name=…` with a value other than false) among the words? */
function hasFlag(args: readonly string[], name: string): boolean {
  const long = `--${name}`;
  for (const word of args) {
    if (word === long) return true;
    if (word.startsWith(`${long}=`) && !/^(?:false|0|no)$/i.test(word.slice(long.length + 1))) return true;
  }
  return false;
}

/** The value of `--timeout` (`--timeout=90s`, `--timeout 5m`) in seconds, or NaN. */
function timeoutOption(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === "--timeout") return durationSeconds(args[i + 1] ?? "");
    if (word.startsWith("--timeout=")) return durationSeconds(word.slice("--timeout=".length));
  }
  return NaN;
}

/** How long one simple command waits, in seconds (see {@link commandWaitSeconds}). */
function simpleWaitSeconds({ words, cap, inLoop }: SimpleCommand): number {
  const found = findProgram(words);
  if (found === undefined) return 0;
  const name = programName(words[found.at]!);
  const args = words.slice(found.at + 1);
  let seconds = 0;
  if (name === "sleep") {
    seconds = args.length === 0 ? 0 : args.reduce((sum, arg) => sum + durationSeconds(arg), 0);
    if (Number.isNaN(seconds)) seconds = 0;
    else if (inLoop && seconds > 0) seconds = Infinity;
  } else if (blocks(name, args)) {
    const limit = timeoutOption(args);
    seconds = limit > 0 ? limit : Infinity;
  }
  return Math.min(seconds, cap, found.cap);
}

/** Does the program `name` with `args` block until something outside changes? */
function blocks(name: string, args: readonly string[]): boolean {
  if (name === "watch" || name === "wait-on") return true;
  const path = positionals(args, Object.hasOwn(GLOBAL_VALUE_OPTIONS, name) ? GLOBAL_VALUE_OPTIONS[name] : undefined);
  switch (name) {
    case "kubectl":
      if (path[0] === "wait") return true;
      if (path[0] === "rollout" && path[1] === "status") return !args.some((a) => /^(?:--watch|-w)=(?:false|0)$/i.test(a));
      break;
    case "gh":
      if (path[0] === "run" && path[1] === "watch") return true;
      break;
    case "aws":
      if (path[1] === "wait") return true;
      break;
    case "az": {
      // `az vm wait`, `az deployment group wait`: the command's words come before its options.
      const end = args.findIndex((a) => a.startsWith("-"));
      if ((end < 0 ? args : args.slice(0, end)).includes("wait")) return true;
      break;
    }
    case "docker":
    case "podman":
      if (path[0] === "wait") return true;
      break;
  }
  return !DATA_PROGRAMS.has(name) && (hasFlag(args, "watch") || hasFlag(args, "wait"));
}

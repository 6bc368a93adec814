import { toolCall } from "../support/calls.js";
import { describe, expect, it } from "vitest";
import { callKind } from "../../src/judge/tool-kinds.js";
import { MIN_WAIT_SECONDS, waitParamSeconds } from "../../src/hosts/actions.js";
import type { ToolCall } from "../../src/model/entry.js";
import { commandLines, commandsOf, durationSeconds } from "../../src/shell/command.js";
import { commandWaitSeconds } from "../../src/shell/wait.js";

const call = (tool: string, input: unknown = {}) => toolCall(tool, input);
/** The host read the call as a deliberate wait. */
const isWait = (c: ToolCall): boolean => c.action.kind === "wait";
const bash = (command: string, extra: Record<string, unknown> = {}) => call("bash", { command, ...extra });

describe("commandWaitSeconds: how long a bash line waits", () => {
  it.each<[string, number]>([
    ["sleep 30 && gh run view 123", 30],
    ["sleep 2m; kubectl get pods", 120],
    ["/bin/sleep 30 && gh run view 123", 30],
    ["command sleep 30 && gh run view 123", 30],
    ["while true; do sleep 30; gh run view; done", Infinity],
    ["for i in 1 2 3; do sleep 15; curl -s x; done", 15],
    ["bash -c 'sleep 30 && gh pr checks 42'", 30],
    ['sh -c "sleep 20; make status"', 20],
    ["bash -lc 'sleep 45; gh run view 9'", 45],
    ["timeout 120 kubectl rollout status deploy/web", 120],
    ["timeout 5 kubectl rollout status deploy/web", 5],
    ["timeout 60 sleep 30", 30],
    ["timeout 120 npm test", 0],
    ["timeout 5 bash -c 'sleep 30'", 5],
    ["kubectl -n default rollout status deploy/web --timeout=90s", 90],
    ["kubectl --context prod -n apps rollout status deploy/api", Infinity],
    ["kubectl rollout status deploy/web --watch=false", 0],
    ["kubectl wait --for=condition=ready pod -l app=x --timeout=60s", 60],
    ["kubectl wait --for=condition=ready pod -l app=x --timeout 2m", 120],
    ["gh run watch 123", Infinity],
    ["gh pr checks 42 --watch", Infinity],
    ["watch -n 5 kubectl get pods", Infinity],
    ["helm upgrade x ./chart --wait", Infinity],
    ["helm upgrade x ./chart --wait --timeout 5m", 300],
    ["helm upgrade x ./chart --wait=false", 0],
    ["docker compose up --wait", Infinity],
    ["docker wait web-1", Infinity],
    ["aws cloudformation wait stack-create-complete --stack-name x", Infinity],
    ["aws --region eu-west-1 ecs wait services-stable --cluster c --services s", Infinity],
    ["az vm wait --created -g rg -n vm", Infinity],
    ["az deployment group wait --created -g rg -n dep", Infinity],
    ["npx wait-on http://localhost:3000", Infinity],
    ["npx -y wait-on tcp:5432", Infinity],
    ["pnpm dlx wait-on http://localhost:3000", Infinity],
    ["sleep 10.5 && x", 10.5],
    ["sleep 1m 30s; x", 90],
    ["sudo -u deploy sleep 30", 30],
    ["env CI=1 sleep 30", 30],
    ["sleep 30 && curl 'https://x/api?a=1&b=2'", 30],
    ["sleep 20 && grep 'R&D' notes.txt", 20],
    ["sleep 30 > /dev/null 2>&1 && gh run view", 30],
    ["if sleep 30; then gh run view; fi", 30],
    ["until curl -sf localhost:3000/health; do sleep 2; done", Infinity],
    ["while ! pg_isready -h db; do sleep 1; done && npm run migrate", Infinity],
    ["timeout 60 bash -c 'until curl -sf x; do sleep 2; done'", 60],
    ["timeout 5 bash -c 'until curl -sf x; do sleep 2; done'", 5],
    ["for i in 1 2 3; do sleep 2; curl -s x; done", 2],
    ["for f in a b; do while read -r l; do echo $l; done < $f; sleep 2; done", 2],
    ["until curl -sf x; do sleep 2; done & npm test", 0],
    ["sleep 2 && curl localhost:3000", 2],
    ["npm start & sleep 30 && curl localhost:3000", 0],
    ["bash -c 'npm start & sleep 30; curl localhost:3000'", 0],
    ["grep -r 'sleep 30' src/", 0],
    ['echo "sleep 30"', 0],
    ["echo --wait", 0],
    ["git log --grep=watch", 0],
    ["cat watch.txt", 0],
    ["npm run watch:css", 0],
    ["command -v sleep", 0],
    ["sleep $DELAY && gh run view", 0],
    ["# sleep 30\nls", 0],
  ])("%s → %s s", (command, seconds) => {
    expect(commandWaitSeconds(command)).toBe(seconds);
  });
});

describe("isWait: bash", () => {
  it.each([
    "sleep 30 && gh run view 123",
    "sleep 2m; kubectl get pods",
    "/bin/sleep 30 && gh run view 123",
    "command sleep 30 && gh run view 123",
    "while true; do sleep 30; gh run view; done",
    "for i in 1 2 3; do sleep 15; curl -s x; done",
    "bash -c 'sleep 30 && gh pr checks 42'",
    'sh -c "sleep 20; make status"',
    "timeout 120 kubectl rollout status deploy/web",
    "kubectl -n default rollout status deploy/web --timeout=90s",
    "kubectl wait --for=condition=ready pod -l app=x --timeout=60s",
    "gh run watch 123",
    "gh pr checks 42 --watch",
    "watch -n 5 kubectl get pods",
    "helm upgrade x --wait",
    "docker compose up --wait",
    "aws cloudformation wait stack-create-complete --stack-name x",
    "az vm wait --created -g rg -n vm",
    "npx wait-on http://localhost:3000",
    "sleep 10.5 && x",
    "sleep 30 && curl 'https://x/api?a=1&b=2'",
    "sleep 20 && grep 'R&D' notes.txt",
  ])("waits: %s", (command) => {
    expect(isWait(bash(command))).toBe(true);
    expect(callKind(bash(command))).toBe("wait");
  });

  it.each([
    "sleep 2 && curl localhost:3000",
    "npm start & sleep 30 && curl localhost:3000",
    "grep -r 'sleep 30' src/",
    'echo "sleep 30"',
    "git log --grep=watch",
    "cat watch.txt",
    "timeout 5 kubectl rollout status deploy/web",
    "kubectl wait --for=condition=ready pod/x --timeout=5s",
  ])("does not wait: %s", (command) => {
    expect(isWait(bash(command))).toBe(false);
    expect(callKind(bash(command))).not.toBe("wait");
  });

  it("reads bash from its command only: its own timeout parameter is a kill limit", () => {
    expect(isWait(bash("npm test", { timeout: 120_000 }))).toBe(false);
    expect(isWait(call("bash", { timeout: 120_000 }))).toBe(false);
    expect(isWait(call("bash", null))).toBe(false);
  });
});

describe("isWait: a tool's own wait parameter", () => {
  it.each<[string, unknown, boolean]>([
    ["write_stdin", { session_id: 2, chars: "", yield_time_ms: 45_000 }, true],
    ["write_stdin", { session_id: 2, yield_time_ms: 30_000 }, true],
    ["write_stdin", { session_id: 2, chars: "y\n", yield_time_ms: 45_000 }, false],
    ["write_stdin", { session_id: 2, chars: "", yield_time_ms: 2_000 }, false],
    ["exec_command", { cmd: "python train.py", yield_time_ms: 10_000 }, true],
    ["exec_command", { cmd: "python train.py", yield_time_ms: 9_999 }, false],
    ["exec_command", { cmd: "ls" }, false],
    ["job_wait", { job: "x", wait: 60 }, true],
    ["pipeline_status", { run_id: 1, wait: 20 }, true],
    ["ci_status", { id: 1, timeout: 120 }, true],
    ["await_job", { job_id: "bf-1", timeout: 90 }, true],
    ["ci_status", { id: 1, timeout: 5 }, false],
    ["ci_status", { id: 1 }, false],
    ["job_wait", { job: "x", block: true }, true],
    ["job_wait", { job: "x", block: true, timeout: 5 }, false],
    ["run_query", { sql: "select 1", block: true }, false],
    ["job_wait", { job: "x", wait_ms: 15_000 }, true],
    ["job_wait", { job: "x", wait_seconds: 30 }, true],
    ["poll_build", { id: 7, timeout_ms: 60_000 }, true],
    ["poll_build", { id: 7, timeout_seconds: 30 }, true],
    ["job_wait", { job: "x", wait: "2m" }, true],
    ["read", { filePath: "x", offset: 1 }, false],
    ["webfetch", { url: "https://x", timeout: 60 }, false],
    ["postgres_query", { sql: "select 1", timeout: 30_000 }, false],
  ])("%s %j → %s", (tool, input, waits) => {
    expect(isWait(call(tool, input))).toBe(waits);
    expect(callKind(call(tool, input)) === "wait").toBe(waits);
  });

  it("a tool that changes files or only plans keeps its kind, whatever it carries", () => {
    expect(callKind(call("edit", { filePath: "x", wait: 60 }))).toBe("change");
    expect(callKind(call("todowrite", { todos: [], wait: 60 }))).toBe("plan");
  });

  it.each<[string, unknown, number]>([
    ["job_wait", { wait: 60 }, 60],
    ["job_wait", { wait: 60_000 }, 60],
    ["job_wait", { wait: "45000" }, 45],
    ["ci_status", { timeout: 120 }, 120],
    ["ci_status", { timeout: 45_000 }, 45],
    ["write_stdin", { chars: "", yield_time_ms: 45_000 }, 45],
    ["job_wait", { block: true }, Infinity],
    ["job_wait", { wait: -5 }, 0],
    ["job_wait", { wait: "soon" }, 0],
    ["job_wait", null, 0],
    ["job_wait", "wait 60", 0],
  ])("waitParamSeconds(%s, %j) = %s", (tool, input, seconds) => {
    expect(waitParamSeconds(tool, input)).toBe(seconds);
  });

  it("keeps the kinds by name when nothing waits", () => {
    expect(callKind(call("websearch", { query: "x" }))).toBe("asking");
    expect(callKind(call("edit", { filePath: "x" }))).toBe("change");
    expect(callKind(call("todowrite", { todos: [] }))).toBe("plan");
    expect(callKind(call("read", { filePath: "x" }))).toBe("question");
  });
});

describe("durationSeconds", () => {
  it.each<[string, number]>([
    ["30", 30],
    ["10.5", 10.5],
    ["30s", 30],
    ["2m", 120],
    ["1h", 3600],
    ["1d", 86_400],
    ["500ms", 0.5],
    ["1m30s", 90],
    ["5m0s", 300],
    ["infinity", Infinity],
    ["", NaN],
    ["abc", NaN],
    ["-5", NaN],
    ["$N", NaN],
  ])("%j → %s", (word, seconds) => {
    expect(durationSeconds(word)).toBe(seconds);
  });
});

describe("commandsOf and commandLines", () => {
  it.each<[string, string[][]]>([
    [
      "sleep 30 && gh run view 123",
      [
        ["sleep", "30"],
        ["gh", "run", "view", "123"],
      ],
    ],
    ["a; b || c | d & e\nf", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]],
    ["while true; do sleep 30; gh run view; done", [["true"], ["sleep", "30"], ["gh", "run", "view"]]],
    [
      "for i in 1 2 3; do sleep 15; curl -s x; done",
      [
        ["sleep", "15"],
        ["curl", "-s", "x"],
      ],
    ],
    [
      "if npm test; then echo 'all ok'; fi",
      [
        ["npm", "test"],
        ["echo", "all ok"],
      ],
    ],
    ["bash -c 'sleep 30 && gh pr checks 42 | tail'", [["sleep", "30"], ["gh", "pr", "checks", "42"], ["tail"]]],
    [
      'sh -c "sleep 20; make status"',
      [
        ["sleep", "20"],
        ["make", "status"],
      ],
    ],
    [
      "sudo bash -lc 'npm ci && npm test'",
      [
        ["npm", "ci"],
        ["npm", "test"],
      ],
    ],
    ["bash -c \"bash -c 'sleep 30'\"", [["sleep", "30"]]],
    ["bash script.sh --fast", [["bash", "script.sh", "--fast"]]],
    ["npm test > out.log 2>&1", [["npm", "test"]]],
    [
      "curl 'https://x/api?a=1&b=2' | jq .",
      [
        ["curl", "https://x/api?a=1&b=2"],
        ["jq", "."],
      ],
    ],
    [
      "(cd app && npm test)",
      [
        ["cd", "app"],
        ["npm", "test"],
      ],
    ],
    [
      "{ sleep 30; gh run view; }",
      [
        ["sleep", "30"],
        ["gh", "run", "view"],
      ],
    ],
    ['echo "a \\"b\\""', [["echo", 'a "b"']]],
    ["diff <(sort a) b", [["diff", "b"]]],
    ["cat <<EOF\nsleep 30\nEOF\nls", [["cat"], ["ls"]]],
    ["", []],
  ])("commandsOf(%j)", (command, commands) => {
    expect(commandsOf(command)).toEqual(commands);
  });

  it.each<[string, string[]]>([
    ["sleep 30 && gh pr checks 42", ["sleep 30", "gh pr checks 42"]],
    ["if npm test; then echo 'all ok'; fi", ["npm test", "echo all ok"]],
    ["bash -c 'npm run lint; npm test'", ["npm run lint", "npm test"]],
    ["npm  test   --  --grep   x", ["npm test -- --grep x"]],
    ["grep 'a && b' f.txt || true", ["grep a && b f.txt", "true"]],
  ])("commandLines(%j)", (command, lines) => {
    expect(commandLines(command)).toEqual(lines);
  });
});

describe("MIN_WAIT_SECONDS", () => {
  it("is ten seconds", () => expect(MIN_WAIT_SECONDS).toBe(10));
});

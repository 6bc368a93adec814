/**
 * A breaker's cases against the information model (src/judge/information.ts): healthy
 * sessions a first draft stopped, loops it missed, and the classifications behind them. Each
 * case asserts what a careful engineer wants; one known gap is asserted as the cautious
 * behaviour it has, with why.
 */
import { toolCall } from "./support/calls.js";
import { describe, expect, it } from "vitest";
import { replayMessages } from "../src/core.js";
import { DEFAULT_SETTINGS, type GuardSettings } from "../src/config/settings.js";
import { commandRole } from "../src/shell/role.js";
import { callKind } from "../src/judge/tool-kinds.js";
import type { ToolCall } from "../src/model/entry.js";
import { bash, SessionBuilder, type ToolSpec } from "./support/session.js";

const settings = (over: Partial<GuardSettings> = {}): GuardSettings => ({ ...DEFAULT_SETTINGS, ...over });
/** [compaction index, rule] of the first deny, or null. */
const stop = (session: SessionBuilder, over: Partial<GuardSettings> = {}) => {
  const row = replayMessages(session.messages, settings(over)).find((r) => r.decision === "deny");
  return row ? ([row.compaction.index, row.rule] as const) : null;
};

/** The read tool's answer as opencode 1.18.33 writes it: numbered lines, a path and a trailer. */
const read = (filePath: string, body: string, extra: { offset?: number; limit?: number } = {}, total?: number): ToolSpec => {
  const lines = body.split("\n");
  const start = extra.offset ?? 1;
  const end = start + lines.length - 1;
  const trailer =
    total === undefined
      ? `(End of file - total ${end} lines)`
      : `(Showing lines ${start}-${end} of ${total}. Use offset=${end + 1} to continue.)`;
  return {
    tool: "read",
    input: { filePath, ...extra },
    output: `<path>${filePath}</path>\n<type>file</type>\n<content>\n${lines.map((l, i) => `${start + i}: ${l}`).join("\n")}\n\n${trailer}\n</content>`,
  };
};
const edit = (filePath: string, oldString: string, newString: string): ToolSpec => ({
  tool: "edit",
  input: { filePath, oldString, newString },
  output: "Edit applied successfully.",
});
const write = (filePath: string, content: string): ToolSpec => ({
  tool: "write",
  input: { filePath, content },
  output: "Wrote file successfully.",
});
const explore = (prompt: string, report: string, child: string): ToolSpec => ({
  tool: "task",
  input: { description: "count call sites", prompt, subagent_type: "explore" },
  output: `<task id="ses_${child}" state="completed">\n<task_result>\n${report}\n</task_result>\n</task>`,
});

describe("false denials: healthy sessions the information model stops", () => {
  it("a test that fails before the fix and passes after it, re-run alone in the next cycle: never denied", () => {
    // The pass is the most important news of the session; it is judged against the failing answers given before the fix (asked is not cleared by an effect) and states no new name or number.
    const failing = `F                                                                        [100%]
=================================== FAILURES ===================================
________________________________ test_last_page ________________________________

    def test_last_page():
>       assert last_page(total=95, size=10) == 10
E       assert 9 == 10
E        +  where 9 = last_page(total=95, size=10)

tests/test_paginate.py:8: AssertionError
=========================== short test summary info ============================
FAILED tests/test_paginate.py::test_last_page - assert 9 == 10
1 failed in 0.05s`;
    const passing = `.                                                                        [100%]\n1 passed in 0.04s`;
    const test = "pytest tests/test_paginate.py::test_last_page -q";
    const session = new SessionBuilder().user("test_last_page fails, fix it");
    session
      .step(bash(test, failing), 40_000)
      .step(read("/p/app/paginate.py", "def last_page(total, size):\n    return total // size"), 100_000);
    session.compact();
    session.step(
      read(
        "/p/tests/test_paginate.py",
        "from app.paginate import last_page\n\n\ndef test_last_page():\n    assert last_page(total=95, size=10) == 10",
      ),
      40_000,
    );
    session.step(edit("/p/app/paginate.py", "    return total // size", "    return -(-total // size)"), 100_000);
    session.compact();
    session.step(bash(test, passing), 40_000);
    session.compact();
    expect(stop(session)).toBeNull();
  });

  it("an explore subagent re-counting after an edit, whose counts trade places (3 old / 2 new → 2 old / 3 new): never denied", () => {
    // The edit moved one call site; the report says so. Compared with the pre-edit report as a set of numbers and names, it looks like the same report.
    const prompt = "Count the call sites of fetchUser and getUser under src/ and list each file.";
    const session = new SessionBuilder().user("migrate every call of fetchUser() to getUser()");
    session.step(
      read(
        "/p/src/api/users.ts",
        "import { fetchUser, getUser } from '../users';\n\nexport const show = (req) => fetchUser(req.params.id);",
      ),
      40_000,
    );
    session.step(
      explore(
        prompt,
        "fetchUser is called in 3 places: src/api/users.ts, src/pages/profile.tsx, src/jobs/sync.ts.\ngetUser is called in 2 places: src/api/admin.ts, src/pages/settings.tsx.",
        "aB3kQ9zXw1",
      ),
      100_000,
    );
    session.compact();
    session.step(
      read("/p/src/jobs/sync.ts", "export async function sync(id: string) {\n  const user = await fetchUser(id);\n  return save(user);\n}"),
      40_000,
    );
    session.step(edit("/p/src/jobs/sync.ts", "await fetchUser(id)", "await getUser(id)"), 100_000);
    session.compact();
    session.step(
      explore(
        prompt,
        "fetchUser is called in 2 places: src/api/users.ts, src/pages/profile.tsx.\ngetUser is called in 3 places: src/api/admin.ts, src/pages/settings.tsx, src/jobs/sync.ts.",
        "Zp8LmN2qR7",
      ),
      40_000,
    );
    session.compact();
    expect(stop(session)).toBeNull();
  });

  it("reviewing PRs one by one (gh pr checkout N, then the same passing test suite): never denied", () => {
    // `gh pr checkout` replaces the code under test; commandRole calls it a read (gh `pr` is listed as a reading subcommand), so three equal test answers look like a check re-run with nothing changed.
    const suite = ` RUN  v1.6.0 /home/dev/proj

 ✓ src/parse.test.ts  (14 tests) 12ms
 ✓ src/format.test.ts  (9 tests) 8ms
 ✓ src/cli.test.ts  (6 tests) 41ms

 Test Files  3 passed (3)
      Tests  29 passed (29)
   Start at  10:42:07
   Duration  612ms (transform 201ms, setup 0ms, collect 310ms, tests 61ms, environment 0ms, prepare 402ms)
`;
    const branches: Record<number, string> = { 101: "fix-typo-in-help", 102: "bump-deps", 103: "docs-readme", 104: "refactor-format" };
    const session = new SessionBuilder().user(
      "check out each open PR (101 to 104) and run the test suite on it; tell me which ones break it",
    );
    session.step(
      bash(
        "gh pr list --state open",
        "101\tFix typo in help\tfix-typo-in-help\tOPEN\n102\tBump deps\tbump-deps\tOPEN\n103\tREADME tweaks\tdocs-readme\tOPEN\n104\tRefactor format\trefactor-format\tOPEN",
      ),
      30_000,
    );
    for (const n of [101, 102, 103, 104]) {
      session.step(
        bash(`gh pr checkout ${n}`, `Switched to branch '${branches[n]}'\nYour branch is up to date with 'origin/${branches[n]}'.`),
        50_000,
      );
      session.step(bash("npm test", suite), 100_000);
      session.compact();
    }
    expect(stop(session)).toBeNull();
  });

  it("restarting services one by one with a smoke test after each (kubectl rollout restart): never denied", () => {
    // `kubectl rollout restart` changes the cluster; `rollout` is listed as a reading subcommand, so the equal smoke-test answers look like a check re-run with only reads between.
    const smoke =
      "checking https://staging.example.com/health ... 200 OK\nchecking https://staging.example.com/api/v1/status ... 200 OK\nall 2 checks passed";
    const session = new SessionBuilder().user("restart each staging service one at a time and run the smoke test after each");
    for (const service of ["api", "worker", "scheduler", "gateway"]) {
      session.step(bash(`kubectl rollout restart deployment/${service} -n staging`, `deployment.apps/${service} restarted`), 50_000);
      session.step(bash("./scripts/smoke-test.sh staging", smoke), 100_000);
      session.compact();
    }
    expect(stop(session)).toBeNull();
  });

  it("auditing each package's tsconfig.json when several are identical: never denied", () => {
    // Each file is a new question whose answer is about that file; "seen" lines are keyed by text alone, so an identical file in another package brings nothing.
    const tsconfig = `{\n  "extends": "../../tsconfig.base.json",\n  "compilerOptions": {\n    "outDir": "dist",\n    "rootDir": "src",\n    "composite": true\n  },\n  "include": ["src"]\n}`;
    const packages = ["core", "cli", "server", "web", "utils", "config", "db", "auth"];
    const session = new SessionBuilder().user("audit every package's tsconfig.json and tell me which ones don't extend the base config");
    session.step(bash("ls packages", packages.join("\n")), 30_000);
    for (let c = 0; c < 4; c++) {
      session.step(read(`/p/packages/${packages[2 * c]}/tsconfig.json`, tsconfig), 60_000);
      session.step(read(`/p/packages/${packages[2 * c + 1]}/tsconfig.json`, tsconfig), 100_000);
      session.compact();
    }
    expect(stop(session)).toBeNull();
  });

  it("paging forward through a data file whose rows repeat, looking for where they change: never denied", () => {
    // Every page covers lines never shown before; with line numbers stripped, equal rows on a new page count as seen.
    const rows = Array.from({ length: 40 }, () => "sensor-7,0.000,0.000,0.000,ok").join("\n");
    const session = new SessionBuilder().user("find the first row where sensor-7 stops reporting ok in data/readings.csv");
    session.step(read("/p/data/readings.csv", `sensor,x,y,z,state\n${rows}`, { offset: 1, limit: 41 }, 9000), 40_000);
    for (let c = 0; c < 4; c++) {
      session.step(read("/p/data/readings.csv", rows, { offset: 42 + c * 80, limit: 40 }, 9000), 70_000);
      session.step(read("/p/data/readings.csv", rows, { offset: 82 + c * 80, limit: 40 }, 9000), 100_000);
      session.compact();
    }
    expect(stop(session)).toBeNull();
  });

  it("tuning a setting: restore the best config (the same write as cycle 1) and re-bench, then try the next value: never denied", () => {
    // The restoring write repeats an earlier write, but another effect changed that file in between: it changes the world again, and the bench answer confirms it.
    const config = `{\n  "port": 8080,\n  "workers": 4,\n  "cache": { "enabled": true, "ttlSeconds": 300 },\n  "logLevel": "info"\n}`;
    const session = new SessionBuilder().user("the benchmark regressed; tune workers in config.json and keep the best");
    session.step(write("/p/config.json", config), 40_000).step(bash("node bench.js", "req/s: 10234\np99: 41ms"), 100_000);
    session.compact();
    session
      .step(edit("/p/config.json", `"workers": 4`, `"workers": 16`), 40_000)
      .step(bash("node bench.js", "req/s: 8120\np99: 77ms"), 100_000);
    session.compact();
    session.step(write("/p/config.json", config), 40_000).step(bash("node bench.js", "req/s: 10234\np99: 41ms"), 100_000);
    session.compact();
    session
      .step(edit("/p/config.json", `"workers": 4`, `"workers": 8`), 40_000)
      .step(bash("node bench.js", "req/s: 11020\np99: 38ms"), 100_000);
    session.compact();
    expect(stop(session)).toBeNull();
  });

  it("a PR's review status flips to APPROVED between two looks: that cycle is not denied", () => {
    // The answer moved in substance (REVIEW_REQUIRED → APPROVED, BLOCKED → CLEAN), but factsOf keeps only identifiers and numbers, so a changed status word is no fact.
    const view = "gh pr view 42 --json number,state,reviewDecision,mergeStateStatus";
    const session = new SessionBuilder().user("PR 42 needs a review; once it is approved, merge it");
    session.step(bash(view, `{"mergeStateStatus":"BLOCKED","number":42,"reviewDecision":"REVIEW_REQUIRED","state":"OPEN"}`), 40_000);
    session.step(
      read("/p/CONTRIBUTING.md", "# Contributing\n\nPRs need one approving review before merging.\nUse squash merges."),
      100_000,
    );
    session.compact();
    session.step(bash("sleep 300", ""), 40_000);
    session.step(
      bash(
        "gh pr checks 42",
        "build\tpass\t2m41s\thttps://github.com/acme/api/actions/runs/9123456780/job/25012345678\nlint\tpass\t48s\thttps://github.com/acme/api/actions/runs/9123456780/job/25012345679",
      ),
      100_000,
    );
    session.compact();
    session.step(bash(view, `{"mergeStateStatus":"CLEAN","number":42,"reviewDecision":"APPROVED","state":"OPEN"}`), 40_000);
    session.compact();
    expect(stop(session)).toBeNull();
  });
});

describe("missed loops", () => {
  it("the same log tail spelled another way each cycle, only its timestamps moving: a known gap, never denied", () => {
    // A new question's lines are compared as shown: reading the run-to-run noise out of every
    // answer would cost a replay several times its parse, so a timestamp makes each line new.
    // The same tail spelled the same way is a repeated question, compared without the noise,
    // and is stopped (below). The cautious side: a missed loop, never a false denial.
    const tail = (minute: number) =>
      [0, 1, 2, 3]
        .map((i) => `2025-03-04T10:${String(minute).padStart(2, "0")}:0${i}Z ERROR worker: connection refused (redis:6379), retrying in 5s`)
        .join("\n");
    const spellings = [
      "tail -n 4 logs/worker.log",
      "tail -4 logs/worker.log",
      "tail --lines=4 logs/worker.log",
      "tail -n4 logs/worker.log",
      "tail -n 4 ./logs/worker.log",
    ];
    const session = new SessionBuilder().user("why does the worker keep failing?");
    for (let c = 0; c < 5; c++) {
      session.step(bash(spellings[c]!, tail(c * 5)), 40_000);
      session.step(
        read("/p/src/worker.ts", "const redis = createClient({ url: process.env.REDIS_URL });\nawait redis.connect();"),
        100_000,
      );
      session.compact();
    }
    expect(stop(session)).toBeNull();
    const same = new SessionBuilder().user("why does the worker keep failing?");
    for (let c = 0; c < 5; c++) {
      same.step(bash(spellings[0]!, tail(c * 5)), 40_000);
      same.step(read("/p/src/worker.ts", "const redis = createClient({ url: process.env.REDIS_URL });\nawait redis.connect();"), 100_000);
      same.compact();
    }
    expect(stop(same)?.[0]).toBeLessThanOrEqual(3);
  });

  it("the same SQL count spelled another way each cycle, with the same short answer: a known gap, never denied", () => {
    // psql with a SELECT is now a read, but its answer (412, one row) is short and names
    // nothing: to a question not asked before it is information, as `ok` or `0` would be.
    // Telling two SQL spellings apart needs SQL; the cautious side is a missed loop, never a
    // false denial (docs/how-it-decides.md, no-new-work's gap).
    const spellings = [
      `psql -c "select count(*) from jobs where state = 'queued'"`,
      `psql -c "SELECT count(*) FROM jobs WHERE state='queued'"`,
      `psql -c "select count(*) from jobs where state='queued';"`,
      `psql --command "select count(*) from jobs where state='queued'"`,
      `psql -c "SELECT COUNT(*) FROM jobs WHERE state = 'queued';"`,
    ];
    const session = new SessionBuilder().user("why is the jobs queue stuck?");
    for (let c = 0; c < 5; c++) {
      session.step(bash(spellings[c]!, " count \n-------\n   412\n(1 row)\n"), 40_000);
      session.step(read("/p/src/queue.ts", "export async function claim() {\n  return db.query(CLAIM_SQL);\n}"), 100_000);
      session.compact();
    }
    expect(commandRole(spellings[0]!)).toBe("read");
    expect(stop(session)).toBeNull();
  });
});

describe("classification: what changes the world is an effect", () => {
  const call = (tool: string, input: unknown = {}): ToolCall => toolCall(tool, input, "ok");

  it.each([
    "gh pr checkout 101",
    "gh pr review 12 --approve",
    "gh workflow run deploy.yml --ref main",
    "gh repo clone acme/api",
    "git branch -D old-feature",
    "git remote add upstream https://github.com/acme/api.git",
    "kubectl rollout restart deployment/api",
    "kubectl rollout undo deployment/api",
    "curl -XPOST https://api.example.com/v1/deploys",
    "curl --request=DELETE https://api.example.com/v1/cache",
    "http POST :8080/api/users name=ann",
    "env NODE_ENV=production npm run deploy",
  ])("%s changes state: an effect, not a read", (command) => {
    // Verbs, not nouns, decide: `gh pr`, `git branch`, `kubectl rollout` have reading and writing verbs; a method flag's value and a wrapper's command count.
    expect(commandRole(command)).toBe("effect");
  });

  it.each(["black .", "isort .", "ruff format .", "npx jest -u", "npm run lint:fix", "python scripts/build_index.py"])(
    "%s rewrites files: an effect, not a check",
    (command) => {
      // A formatter, a snapshot update or a script whose name contains `build`/`test` changes the work; "check" is for runs that only answer.
      expect(commandRole(command)).toBe("effect");
    },
  );

  it.each([
    "github_create_pending_pull_request_review",
    "github_submit_pending_pull_request_review",
    "github_create_and_submit_pull_request_review",
    "github_request_copilot_review",
    "github_mark_all_notifications_read",
    "github_delete_workflow_run_logs",
  ])("the GitHub MCP tool %s changes state: an effect, not a question", (tool) => {
    // READING_NAME matches anywhere in the name: "view" in review, "read" in notifications_read, "logs" at the end of delete_..._logs.
    expect(callKind(call(tool))).toBe("effect");
  });
});

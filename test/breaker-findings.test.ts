/**
 * Healthy work the world-state, items and re-delegation readings once stopped, and a loop
 * they once missed: each replayed with the default settings.
 */
import { describe, expect, it } from "vitest";
import { replayMessages } from "../src/core.js";
import { DEFAULT_SETTINGS } from "../src/config/settings.js";
import { bash, SessionBuilder, type ToolSpec } from "./support/session.js";

const edit = (filePath: string, oldString: string, newString: string): ToolSpec => ({
  tool: "edit",
  input: { filePath, oldString, newString },
  output: "Edit applied successfully.",
});
const todo: ToolSpec = { tool: "todowrite", input: { todos: [{ content: "next", status: "pending" }] }, output: "[]" };
/** Each compaction's decision: `index:rule` when denied, `index:allow` otherwise. */
const verdicts = (s: SessionBuilder) =>
  replayMessages(s.messages, DEFAULT_SETTINGS)
    .map((r) => `${r.compaction.index}:${r.decision === "deny" ? r.rule : "allow"}`)
    .join(" ");
const F = "/p/src/total.ts";

describe("healthy work that brings the world back to a state it had", () => {
  it("a revert after a failed attempt, then a different attempt", () => {
    const failA =
      "FAIL test/total.test.ts > total > applies discount\nAssertionError: expected 100 to be 90\n Tests  1 failed | 11 passed (12)";
    const failB = failA.replace("100", "81");
    const s = new SessionBuilder()
      .user("make the discount test pass")
      .step(bash("npx vitest run", failA), 40_000)
      .step(edit(F, "sum += i.price", "sum += i.price * 0.9 * 0.9"), 60_000)
      .step(bash("npx vitest run", failB), 80_000)
      .compact()
      .step(edit(F, "sum += i.price * 0.9 * 0.9", "sum += i.price"), 40_000)
      .step(bash("npx vitest run", failA), 80_000)
      .compact()
      .step(edit(F, "sum += i.price", "sum += i.price * 0.9"), 40_000)
      .step(bash("npx vitest run", " Tests  12 passed (12)"), 80_000)
      .compact();
    expect(verdicts(s)).toBe("1:allow 2:allow 3:allow");
  });

  it("a bisect that confirms a flag setting it tried before", () => {
    const cfg = (a: boolean, b: boolean) =>
      `{\n  "features": {\n    "newPricing": ${a},\n    "couponStacking": ${b}\n  },\n  "region": "eu-west-1"\n}`;
    const w = (a: boolean, b: boolean): ToolSpec => ({
      tool: "write",
      input: { filePath: "/p/config/flags.json", content: cfg(a, b) },
      output: "Wrote file successfully.",
    });
    const t = (o: string) => bash("npx vitest run test/checkout.test.ts", o);
    const s = new SessionBuilder()
      .user("find which flag breaks checkout")
      .step(t("FAIL checkout > total\nexpected 81 to be 90"), 40_000)
      .step(w(true, false), 60_000)
      .step(t("FAIL checkout > total\nexpected 90.5 to be 90"), 80_000)
      .compact()
      .step(w(false, true), 40_000)
      .step(t("FAIL checkout > total\nexpected 81 to be 90"), 80_000)
      .compact()
      .step(w(true, false), 40_000)
      .step(t("FAIL checkout > total\nexpected 90.5 to be 90"), 80_000)
      .compact()
      .step(w(false, false), 40_000)
      .step(t(" Tests  3 passed (3)"), 80_000)
      .compact();
    expect(verdicts(s)).toBe("1:allow 2:allow 3:allow 4:allow");
  });

  it("a formatter with the same (empty) output after each real edit", () => {
    const t2 = "test total::discount ... FAILED\ntest total::rounding ... FAILED\n\ntest result: FAILED. 10 passed; 2 failed";
    const t1 = "test total::rounding ... FAILED\n\ntest result: FAILED. 11 passed; 1 failed";
    const R = "/p/src/total.rs";
    const s = new SessionBuilder()
      .user("fix the failing tests")
      .step(bash("cargo fmt", ""), 40_000)
      .step(bash("cargo test", t2), 50_000)
      .step(edit(R, "sum += p", "sum += p * 9 / 10"), 60_000)
      .step(bash("cargo fmt", ""), 70_000)
      .step(bash("cargo test", t1), 80_000)
      .compact()
      .step(edit(R, "let sum = 0", "let mut sum = 0u64"), 40_000)
      .step(bash("cargo fmt", ""), 80_000)
      .compact()
      .step(bash("cargo test", t2), 40_000)
      .step(todo, 80_000)
      .compact()
      .step(edit(R, "let mut sum = 0u64", "let mut sum = 0"), 40_000)
      .step(bash("cargo test", "test result: ok. 12 passed; 0 failed"), 80_000)
      .compact();
    expect(verdicts(s)).toBe("1:allow 2:allow 3:allow 4:allow");
  });
});

describe("subagents", () => {
  const failA = "FAIL test/total.test.ts > total > applies discount\nAssertionError: expected 100 to be 90";
  it("the same prompt again, its report bringing a real fix", () => {
    const P = "Fix the failing discount test in src/total.ts and report what you changed.";
    const task = (report: string): ToolSpec => ({
      tool: "task",
      input: { description: "Fix discount", prompt: P, subagent_type: "general" },
      output: `task_id: ses_a1b2c3\n\n<task_result>\n${report}\n</task_result>`,
    });
    const s = new SessionBuilder()
      .user("make the discount test pass")
      .step(bash("npx vitest run", failA), 40_000)
      .step(task("Looked at total() in src/total.ts; could not find where the discount is applied. No change made."), 60_000)
      .step(bash("npx vitest run", failA), 80_000)
      .compact()
      .step(
        task(
          "Found it: applyCoupon in src/coupon.ts:14 applied the discount twice; changed it to apply discountRate once. vitest: 12 passed.",
        ),
        40_000,
      )
      .step(todo, 80_000)
      .compact()
      .step(bash("npx vitest run", " Tests  12 passed (12)"), 40_000)
      .step(bash("git diff --stat", " src/coupon.ts | 2 +-"), 80_000)
      .compact();
    expect(verdicts(s)).toBe("1:allow 2:allow 3:allow");
  });

  it("a finished subagent re-invoked after every compaction, its prompt and report re-worded, the check unchanged: denied by the threshold", () => {
    const task = (prompt: string, report: string): ToolSpec => ({
      tool: "task",
      input: { description: "d", prompt, subagent_type: "general" },
      output: `<task_result>\n${report}\n</task_result>`,
    });
    const P = [
      "Fix the failing discount test in src/total.ts.",
      "Please fix the discount test that fails (src/total.ts).",
      "The discount test in src/total.ts fails; fix it.",
      "Make the failing discount test in src/total.ts pass.",
    ];
    const R = [
      "I changed total() in src/total.ts to apply the discount once.",
      "Updated total() in src/total.ts so the discount is applied a single time.",
      "total() in src/total.ts now applies the discount only once.",
      "Modified src/total.ts: total() applies the discount exactly once.",
    ];
    const s = new SessionBuilder().user("fix it");
    P.forEach((p, i) => s.step(task(p, R[i]!), 40_000).step(bash("npx vitest run", failA), 80_000).compact());
    const first = verdicts(s)
      .split(" ")
      .find((v) => !v.endsWith("allow"));
    expect(first).toBeDefined();
    expect(Number(first!.split(":")[0])).toBeLessThanOrEqual(DEFAULT_SETTINGS.threshold);
  });
});

describe("answers whose numbers are the result", () => {
  it("a benchmark after each performance edit", () => {
    const s = new SessionBuilder()
      .user("make hot_sum faster")
      .step(bash("cargo bench --bench hot", "hot/sum   time:   [12.301 ms 12.412 ms 12.530 ms]"), 40_000)
      .step(edit("/p/src/hot.rs", "for x in v.iter()", "for x in v.chunks(8)"), 80_000)
      .compact()
      .step(bash("cargo bench --bench hot", "hot/sum   time:   [4.101 ms 4.212 ms 4.330 ms]"), 40_000)
      .step(todo, 80_000)
      .compact()
      .step(edit("/p/src/hot.rs", "chunks(8)", "chunks(16)"), 40_000)
      .step(bash("cargo bench --bench hot", "hot/sum   time:   [3.101 ms 3.212 ms 3.330 ms]"), 80_000)
      .compact();
    expect(verdicts(s)).toBe("1:allow 2:allow 3:allow");
  });

  it("alternating benchmark configurations, back to the first to confirm", () => {
    const cfg = (n: number): ToolSpec => ({
      tool: "write",
      input: {
        filePath: "/p/bench/config.go",
        content: `package bench\n\n// BatchSize is the number of rows encoded per flush.\nconst BatchSize = ${n}\n`,
      },
      output: "Wrote file successfully.",
    });
    const b = (ns: number) =>
      bash(
        "go test -bench=Encode -run=^$ ./bench",
        `BenchmarkEncode-8   \t 1000000\t      ${ns} ns/op\t     512 B/op\t       4 allocs/op\nPASS\nok  \texample.com/bench\t1.42s`,
      );
    const s = new SessionBuilder()
      .user("pick the fastest batch size")
      .step(cfg(64), 40_000)
      .step(b(1203), 80_000)
      .compact()
      .step(cfg(256), 40_000)
      .step(b(611), 80_000)
      .compact()
      .step(cfg(64), 40_000)
      .step(b(1187), 80_000)
      .compact()
      .step(cfg(1024), 40_000)
      .step(b(402), 80_000)
      .compact();
    expect(verdicts(s)).toBe("1:allow 2:allow 3:allow 4:allow");
  });
});

describe("structured answers about different resources", () => {
  it("the same deployment checked in one namespace after another", () => {
    const k = (ns: string): ToolSpec => ({
      tool: "kubernetes_get_deployment",
      input: { name: "api", namespace: ns },
      output: JSON.stringify({
        name: "api",
        namespace: ns,
        replicas: 3,
        readyReplicas: 3,
        image: "registry.acme.io/api:1.4.2",
        strategy: "RollingUpdate",
        conditions: [{ type: "Available", status: "True" }],
      }),
    });
    const s = new SessionBuilder()
      .user("check that api 1.4.2 is rolled out in every region")
      .step(k("staging"), 40_000)
      .step(k("prod-eu"), 80_000)
      .compact()
      .step(k("prod-us"), 40_000)
      .step(k("prod-ap"), 80_000)
      .compact()
      .step(k("prod-sa"), 40_000)
      .step(k("prod-af"), 80_000)
      .compact();
    expect(verdicts(s)).toBe("1:allow 2:allow 3:allow");
  });
});

describe("a second breaker's healthy sessions", () => {
  it("one subagent per module, from one template prompt, the parent checking between runs", () => {
    const P = (m: string) =>
      `Review the ${m} module for security problems: injection, missing authorization checks, secrets written to logs, unsafe deserialization. Report each finding with its file and line; change nothing.`;
    const s = new SessionBuilder().user("security-review each module, one subagent each");
    for (const [m, r] of [
      ["payments", "2 findings in payments/refund.go:41 and payments/charge.go:88"],
      ["accounts", "1 finding: accounts/login.go:17 logs the password"],
      ["billing", "no findings"],
      ["search", "1 finding: search/query.go:55 builds SQL by concatenation"],
    ] as const)
      s.step(
        {
          tool: "task",
          input: { description: "review", prompt: P(m), subagent_type: "general" },
          output: `<task_result>\n${r}\n</task_result>`,
        },
        40_000,
      )
        .step(bash("git status --short", ""), 80_000)
        .compact();
    expect(verdicts(s)).toBe("1:allow 2:allow 3:allow 4:allow");
  });

  it("a flaky integration test run twice, call for call, as the user asked: one repeat is under the threshold", () => {
    const out = "FAIL test/orders.int.test.ts > orders > creates an order\nError: connect ECONNREFUSED\n Tests  1 failed | 40 passed (41)";
    const cycle = (b: SessionBuilder) =>
      b
        .step(bash("docker compose up -d db", " Container app-db-1  Started"), 40_000)
        .step(bash("npm run test:integration", out), 80_000)
        .step(bash("docker compose down", " Container app-db-1  Removed"), 90_000)
        .compact();
    const s = cycle(
      cycle(new SessionBuilder().user("the integration test fails in CI; run it locally a few times to see whether it is flaky")),
    );
    expect(verdicts(s)).toBe("1:allow 2:allow");
  });

  it("a fix that did not change the failure, undone, then another fix", () => {
    const fail =
      "FAIL test/total.test.ts > total > applies discount\nAssertionError: expected 100 to be 90\n Tests  1 failed | 11 passed (12)";
    const s = new SessionBuilder()
      .user("make the discount test pass")
      .step(bash("npx vitest run", fail), 40_000)
      .step(edit(F, "return sum", "return Math.round(sum)"), 80_000)
      .compact()
      .step(bash("npx vitest run", fail), 40_000)
      .step(edit(F, "return Math.round(sum)", "return sum"), 80_000)
      .compact()
      .step(edit(F, "sum += i.price", "sum += i.price * 0.9"), 40_000)
      .step(bash("npx vitest run", " Tests  12 passed (12)"), 80_000)
      .compact();
    expect(verdicts(s)).toBe("1:allow 2:allow 3:allow");
  });

  it("projects looked up by names with spaces: each answer is about another project", () => {
    const p = (name: string): ToolSpec => ({
      tool: "linear_get_project",
      input: { name },
      output: JSON.stringify({ name, state: "started", health: "onTrack", lead: "dana", targetDate: "2026-12-31" }),
    });
    const s = new SessionBuilder()
      .user("is every Q4 project on track?")
      .step(p("Mobile App"), 40_000)
      .step(p("Web Checkout"), 80_000)
      .compact()
      .step(p("Billing Revamp"), 40_000)
      .step(p("Search Relevance"), 80_000)
      .compact()
      .step(p("Partner API"), 40_000)
      .step(p("Data Warehouse"), 80_000)
      .compact();
    expect(verdicts(s)).toBe("1:allow 2:allow 3:allow");
  });
});

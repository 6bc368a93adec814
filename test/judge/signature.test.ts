import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/shared/canonical-json.js";
import { ComparableOutput, normalizeOutput, sameReport } from "../../src/judge/signature.js";

const sameNormalizedOutput = (a: unknown, b: unknown): boolean => new ComparableOutput(a).sameAs(new ComparableOutput(b));

describe("canonicalJson", () => {
  it("sorts object keys at every depth and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it("survives cycles, bigints and undefined", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(canonicalJson(cyclic)).toBe('{"a":1,"self":"[Circular]"}');
    expect(canonicalJson({ n: 10n })).toBe('{"n":10}');
    expect(canonicalJson(undefined)).toBe("null");
  });
});

describe("normalizeOutput", () => {
  it.each([
    ["Duration 2.13s\n", "~\n"],
    ["at 2026-11-30T09:00:00Z ok", "at ~ ok"],
    ["12:01:02 done", "~ done"],
    ['<task id="ses_child3" state="completed">', '<task id="~" state="completed">'],
    ["Build success in 31 ms", "Build success in ~"],
    ['[104] FATAL: lock file "postmaster.pid" already exists', '[~] FATAL: lock file "postmaster.pid" already exists'],
    ["[1] 26594\nstarted", "[~]\nstarted"],
    ["server (pid 26594) listening", "server (~) listening"],
    ["PID=31337 exited", "~ exited"],
    ["(node:41872) [DEP0040] DeprecationWarning", "(~) [DEP0040] DeprecationWarning"],
    ["see /home/u/.npm/_logs/2026-11-30T16_08_58_367Z-debug-0.log", "see /home/u/.npm/_logs/~-debug-0.log"],
    ["<User object at 0x7f3a9c2e10d0>", "<User object at ~>"],
    ["request 9b2f4c1e-5a7d-4e3b-8c9a-1d2e3f4a5b6c failed", "request ~ failed"],
    ["listening on 127.0.0.1:54321", "listening on ~"],
    ["real\t0m3.217s", "real\t~"],
    ["BUILD FAILED in 7s", "BUILD FAILED ~"],
    ["Done in 3.2s, retrying in 30s", "Done ~, retrying ~"],
    ["wrote /tmp/tmp.Xa81kQz9Lp/out.json", "wrote /tmp/~"],
    ["cache at /var/folders/x1/abc_123/T/tmp.q8 ready", "cache at /tmp/~ ready"],
    ["\u001b[31mFAIL\u001b[0m test/a.test.ts", "FAIL test/a.test.ts"],
    [
      "...output truncated...\n\nFull output saved to: /home/dev/.local/share/opencode/tool-output/tool_22ce41902001F2bkSBdwHK7XZ1\n\nerror",
      "...output truncated...\n\nFull output saved to: /home/dev/.local/share/opencode/~\n\nerror",
    ],
    ["2026-06-17 10:07:15.207 UTC [48207] FATAL: role", "~ UTC [~] FATAL: role"],
    ["retry [request req_7c41e0a9d2b35f18c6a0]", "retry [request ~]"],
    ["trace a9ZkQ2mP0xR7 failed", "trace ~ failed"],
    ["#7 1.330 npm error code EUSAGE\n1.204 npm error Missing", "~ npm error code EUSAGE\n~ npm error Missing"],
    ["[   12.345678] usb 1-1: new device", "~ usb 1-1: new device"],
    [" ---> Running in 3f2a1b9c8d7e\nRemoving intermediate container 3f2a1b9c8d7e", " ---> ~\nRemoving intermediate ~"],
    ["elapsed: 12s", "~"],
    ["Build FAILED.\n\nTime Elapsed 00:00:07.21", "Build FAILED.\n\nTime Elapsed ~"],
    ["Elapsed: 7s", "~"],
    ["Downloading 45% ETA 12s", "Downloading 45% ~"],
    ["ETA: 2m 10s left", "~ left"],
    ["Tests finished after 6 seconds", "Tests finished ~"],
  ])("takes the noise out of %j", (output, normalized) => {
    expect(normalizeOutput(output)).toBe(normalized);
  });

  it.each([
    "2 of 3 passed",
    "version 1.2.3",
    "exit 1",
    "3 files changed",
    "3 of 6 done",
    "deploy web-1: rolling, about 5 minutes remaining",
    "about 4 minutes remaining, 30s left",
    "commit 3f2a9c1d",
    "array[3] = 7",
    "processed 1,140,000 / 4,800,000 rows (23%)\nbatch 111: ids 1,100,001-1,110,000 ok",
    "job 7731 order_totals: running",
    "charset utf8mb4, arch x86_64, api v1beta1, sha256sum ok",
    "HEAD is now at 9fa0432c1e Merge",
    "items[1234] = 0",
    "loss 0.532 after epoch 4",
    "BenchmarkEncode-8   \t 1000000\t      1203 ns/op\t     512 B/op",
    "hot/sum   time:   [12.301 ms 12.412 ms 12.530 ms]",
    "  Time (mean ± σ):      12.3 ms ±   0.4 ms",
  ])("keeps %j: counts are progress, and a benchmark's durations its result", (output) => {
    expect(normalizeOutput(output)).toBe(output);
  });
});

/** Text built from the pieces normalisation reads (noise, counts, line feeds, brackets, paths, colour codes). */
const PIECES = [
  "\n",
  "\r\n",
  " ",
  "\t",
  "ok",
  "FAIL",
  "[104]",
  "[   12.345678]",
  "#7 1.330",
  "1.204",
  "2026-11-30T09:00:00Z",
  "12:01:02",
  "31 ms",
  "31\nms",
  "31\u00a0ms",
  "31\rms",
  "[\r 12.3]",
  "0.42s",
  "0.42\ns",
  "in 7s",
  "in\n7s",
  "pid 26594",
  "0x7f3a9c2e10",
  "127.0.0.1:54321",
  "9b2f4c1e-5a7d-4e3b-8c9a-1d2e3f4a5b6c",
  "ses_abc123",
  "req_7c41e0a9d2b35f18",
  "a9ZkQ2mP0xR7",
  "/tmp/tmp.Xa81kQ",
  "/var/folders/x1/T/q8",
  "\u001b[31m",
  "\u001b[0m",
  "3 of 6 done",
  "[48207]",
  "---> Running in 3f2a1b9c8d7e",
  "tool-output/tool_22ce41902001F2bk",
  "[\n 12.3]",
  "x",
  "7",
];
const noisyText = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 4 })), { maxLength: 24 })
  .map((parts) => parts.join(""));

describe("normalizeOutput is line-local", () => {
  it("normalising a text equals normalising each of its lines (what ComparableOutput relies on)", () => {
    fc.assert(
      fc.property(noisyText, (text) => {
        expect(normalizeOutput(text)).toBe(
          text
            .split("\n")
            .map((line) => normalizeOutput(line))
            .join("\n"),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it("a run of millions of letters and digits is content, compared by a stand-in (the patterns would overflow the stack)", () => {
    const run = (c: string) => "y".repeat(6_000_000) + c;
    expect(normalizeOutput(run("1"))).toMatch(/^«6000001 letters and digits [g-v]{16}»$/);
    expect(normalizeOutput(run("1"))).toBe(normalizeOutput(run("1")));
    expect(normalizeOutput(`at 12:01:02 ${run("1")}`)).not.toBe(normalizeOutput(`at 12:01:02 ${run("2")}`));
    expect(normalizeOutput(`at 12:01:02 ${"1".repeat(5_000_000)}s`)).toMatch(/^at ~ «5000001 letters and digits [g-v]{16}»$/);
    // Runs up to 4,096 characters are read by the patterns as before; longer ones, wherever they start, are stand-ins.
    expect(normalizeOutput(`id ${"a1".repeat(2048)}`)).toBe("id ~");
    for (const offset of [0, 1, 4095, 4096, 4097, 9000]) {
      const text = `${"x ".repeat(offset / 2)}${"a1".repeat(2049)} ${"b2".repeat(2048)} ${"c3".repeat(3000)}`;
      expect(normalizeOutput(text)).toMatch(/^(x )*«4098 letters and digits [g-v]{16}» ~ «6000 letters and digits [g-v]{16}»$/);
    }
  });

  it("a duration or a kernel time split over two lines is two lines of text, not noise", () => {
    expect(normalizeOutput("took 31\nms")).toBe("took 31\nms");
    expect(normalizeOutput("[\n 12.345678]")).toBe("[\n 12.345678]");
    // Other whitespace between a number and its unit is still a duration.
    expect([normalizeOutput("took 31\u00a0ms"), normalizeOutput("[\t12.345678] usb")]).toEqual(["took ~", "~ usb"]);
  });
});

describe("ComparableOutput", () => {
  it("two outputs are the same exactly when their normalised texts are equal", () => {
    // Pairs that differ in a few pieces, so that equal-after-normalisation pairs are common.
    const pair = fc
      .tuple(
        fc.array(fc.constantFrom(...PIECES), { maxLength: 16 }),
        fc.array(fc.tuple(fc.nat(16), fc.constantFrom(...PIECES)), { maxLength: 3 }),
      )
      .map(([parts, edits]) => {
        const other = [...parts];
        for (const [at, piece] of edits) other[at % Math.max(1, other.length)] = piece;
        return [parts.join(""), other.join("")] as const;
      });
    let equal = 0;
    fc.assert(
      fc.property(fc.oneof(pair, fc.tuple(noisyText, noisyText)), ([a, b]) => {
        const expected = normalizeOutput(a) === normalizeOutput(b);
        if (expected) equal += 1;
        expect(sameNormalizedOutput(a, b)).toBe(expected);
        // The same objects compared again (their lines memoised) answer the same, either way round.
        const [x, y] = [new ComparableOutput(a), new ComparableOutput(b)];
        expect([x.sameAs(y), y.sameAs(x), x.sameAs(y)]).toEqual([expected, expected, expected]);
      }),
      { numRuns: 4000 },
    );
    expect(equal).toBeGreaterThan(400);
  });

  it("an output compared over and over (then by its digest) still answers as its normalised text does", () => {
    fc.assert(
      fc.property(noisyText, noisyText, (a, b) => {
        const expected = normalizeOutput(a) === normalizeOutput(b);
        const [x, y, z] = [new ComparableOutput(a), new ComparableOutput(b), new ComparableOutput(b)];
        // Past their walk budgets both outputs are compared by digests; then one in digest mode against a fresh one.
        const digest = (o: ComparableOutput) => (o as unknown as { digestMemo?: string }).digestMemo;
        for (let k = 0; k < 10_000 && a !== b && !(digest(x) && digest(y)); k++) expect(x.sameAs(y)).toBe(expected);
        expect(x.sameAs(y)).toBe(expected);
        if (a !== b)
          expect([digest(x), digest(y)]).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/), expect.stringMatching(/^[0-9a-f]{64}$/)]);
        expect([x.sameAs(z), z.sameAs(x), y.sameAs(z)]).toEqual([expected, expected, true]);
      }),
      { numRuns: 100 },
    );
  });

  it("compares structured outputs by their canonical JSON, and tells line counts apart", () => {
    expect(sameNormalizedOutput({ b: 1, a: "at 12:01:02" }, { a: "at 09:00:00", b: 1 })).toBe(true);
    expect(sameNormalizedOutput({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameNormalizedOutput("ok\n", "ok")).toBe(false);
    expect(sameNormalizedOutput("", "\n")).toBe(false);
    expect(sameNormalizedOutput("a\nat 12:01:02\n", "a\nat 09:00:00\n")).toBe(true);
  });
});

describe("sameReport", () => {
  it("a reworded report that names the same things says nothing new", () => {
    expect(
      sameReport(
        "Root cause: ListExportRows (internal/store/export.sql:1) filters export_rows on account_id; no index on (account_id, created_at).",
        "The slow part is ListExportRows in export.sql: export_rows WHERE account_id = $1 ORDER BY created_at, only the primary key indexed.",
      ),
    ).toBe(true);
  });

  it("a report that names other files or functions is news", () => {
    expect(
      sameReport("Fixed tests/test_parse.py::test_dates in src/parse.py.", "Fixed tests/test_render.py::test_table in src/render.py."),
    ).toBe(false);
    expect(
      sameReport(
        "legacyAuth is called from orders.ts and users.ts",
        "legacyAuth is called from orders.ts, users.ts, sync.ts, admin.ts and cron.ts",
      ),
    ).toBe(false);
  });

  it("a count that moved is news, whatever the names", () => {
    const left = (n: number) => `Fixed more type errors in src/routes.ts, src/db.ts and src/auth.ts; ${n} errors left.`;
    expect(sameReport(left(87), left(63))).toBe(false);
    expect(sameReport(left(87), left(87))).toBe(true);
  });

  it("a list that shrinks is progress: what is left is not what was", () => {
    expect(sameReport("Fixed alpha.ts, beta.ts. Left: gamma.ts, delta.ts, eps.ts", "Fixed gamma.ts. Left: delta.ts, eps.ts")).toBe(false);
  });

  it("a status line that names another task is news", () => {
    expect(sameReport("Done: the login form. Next item in TASKS.md.", "Done: the password reset. Next item in TASKS.md.")).toBe(false);
  });

  it("reports without identifiers compare by their words", () => {
    expect(sameReport("The cache is stale because nobody invalidates it.", "The cache is stale because nobody ever invalidates it.")).toBe(
      true,
    );
    expect(sameReport("The cache is stale because nobody invalidates it", "Nobody invalidates the cache, so it goes stale")).toBe(false);
    expect(sameReport("The cache is stale because nobody invalidates it", "Disk quota exceeded on the build runner")).toBe(false);
  });
});

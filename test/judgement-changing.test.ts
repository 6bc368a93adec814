/**
 * Judgement of loops that change one thing per cycle: the plan reworded, the search
 * rephrased, a fresh saved copy of the same output paged again, the same job handed to a
 * subagent in other words, run-to-run values no pattern names. And the healthy work a looser
 * rule would stop. The handed cases in fixtures/judgement2/, fixtures/review/ and fixtures/breaker/ (answers in
 * their expect.json), then cases of our own for each kind.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { replayMessages } from "../src/core.js";
import { replaySession, type ReplayRow } from "../src/guard/replay.js";
import { sessionInputs } from "../src/sources/sources.js";
import { exportedSession } from "../src/hosts/opencode/session.js";
import { DEFAULT_SETTINGS, type GuardSettings } from "../src/config/settings.js";
import { bash, SessionBuilder, type ToolSpec } from "./support/session.js";

const sessionOf = (exported: unknown) => exportedSession(exported as Parameters<typeof exportedSession>[0]);

type Expect = Record<string, { firstDeny: number | null; accept?: number[]; flags?: string[] }>;
const folder = (name: string) => new URL(`../fixtures/${name}/`, import.meta.url);
const expectOf = (name: string) => JSON.parse(readFileSync(new URL("expect.json", folder(name)), "utf8")) as Expect;
const load = (name: string, file: string) => JSON.parse(readFileSync(new URL(`${file}.json`, folder(name)), "utf8")) as unknown;

const settings = (over: Partial<GuardSettings> = {}): GuardSettings => ({ ...DEFAULT_SETTINGS, ...over });
const firstDeny = (rows: readonly ReplayRow[]) => rows.find((r) => r.decision === "deny") ?? null;
/** [index, rule] of the first deny, or null. */
const stop = (session: SessionBuilder, over: Partial<GuardSettings> = {}) => {
  const row = firstDeny(replayMessages(session.messages, settings(over)));
  return row ? ([row.compaction.index, row.rule] as const) : null;
};
const read = (filePath: string, output = `<file>\n00001| contents of ${filePath}\n</file>`, extra: object = {}): ToolSpec => ({
  tool: "read",
  input: { filePath, ...extra },
  output,
});
const edit = (filePath: string, oldString: string, newString: string, output = "Edit applied successfully."): ToolSpec => ({
  tool: "edit",
  input: { filePath, oldString, newString },
  output,
});
const todos = (...items: string[]): ToolSpec => {
  const list = items.map((content, i) => ({ content, status: i === 0 ? "in_progress" : "pending", priority: "high" }));
  return { tool: "todowrite", input: { todos: list }, output: JSON.stringify(list, null, 2) };
};
const search = (query: string, output: string, tool = "websearch"): ToolSpec => ({ tool, input: { query }, output });
const task = (prompt: string, report: string, child: string, description = "look into it"): ToolSpec => ({
  tool: "task",
  input: { description, prompt, subagent_type: "explore" },
  output: `<task id="ses_${child}" state="completed">\n<task_result>\n${report}\n</task_result>\n</task>`,
});
/** `n` cycles of `cycle(session, index)`, each followed by an automatic compaction. */
const cycles = (n: number, cycle: (s: SessionBuilder, index: number) => void, first = "do the task") => {
  const session = new SessionBuilder().user(first);
  for (let i = 0; i < n; i++) {
    cycle(session, i);
    session.compact();
  }
  return session;
};

/** The model limits a case's replay flags name (`--context-limit N`, `--output-limit N`, `--input-limit N`). */
function limitsOf(flags: readonly string[]): Record<string, number> | undefined {
  const limits: Record<string, number> = {};
  for (let i = 0; i < flags.length; i += 2) {
    const name = /^--(context|output|input)-limit$/.exec(flags[i]!)?.[1];
    if (!name) throw new Error(`a handed case names a flag this test does not read: ${flags[i]}`);
    limits[name] = Number(flags[i + 1]);
  }
  return flags.length > 0 ? limits : undefined;
}

describe.each(["judgement2", "review", "breaker"])("the handed cases in fixtures/%s (answers in expect.json)", (name) => {
  const expected = expectOf(name);
  it.each(Object.keys(expected))("%s", (file) => {
    const want = expected[file]!;
    const limits = limitsOf(want.flags ?? []);
    // As the replay command decides a session export: its own parent and directory too.
    const session = sessionOf(load(name, file));
    const deny = firstDeny(replaySession(session, sessionInputs(session, { settings: settings(), limits })).rows);
    expect(want.accept ?? [want.firstDeny]).toContain(deny?.compaction.index ?? null);
  });
});

describe("1. re-planning in new words", () => {
  const plans = [
    ["Parse --since on the report command", "Filter rows before the date", "Add tests"],
    ["Add a since argument", "Drop entries older than since", "Cover it in tests"],
    ["CLI: new --since flag", "report: skip old entries", "tests for --since"],
    ["Accept --since DATE", "Apply the cutoff", "Write the tests"],
  ];

  it("the same reads and check after every compaction with the todo list reworded: denied by compaction 3", () => {
    const session = cycles(4, (s, i) => {
      s.step(todos(...plans[i]!), 30_000);
      s.step(read("/p/src/cli.rs"), 50_000).step(read("/p/src/report.rs"), 70_000);
      s.step(bash("cargo check --quiet", "warning: unused import"), 100_000);
    });
    expect(stop(session)?.[0]).toBeLessThanOrEqual(3);
  });

  it("a todo list whose items advance, with one new edit per cycle: never denied", () => {
    const session = cycles(4, (s, i) => {
      s.step(todos(...plans[0]!.slice(i)), 30_000);
      s.step(read("/p/src/cli.rs"), 50_000);
      s.step(edit("/p/src/cli.rs", `step ${i}`, `step ${i + 1}`), 70_000);
      s.step(bash("cargo test", `${3 - i} failed`), 100_000);
    });
    expect(stop(session)).toBeNull();
  });

  it("a plan alone is no work: a cycle of only todo updates is not judged", () => {
    const session = cycles(3, (s, i) => void s.step(todos(...plans[i]!), 30_000).step(todos(...plans[i + 1]!), 100_000));
    expect(stop(session)).toBeNull();
  });
});

describe("2. rephrased searches with the same results", () => {
  const pages = (topic: string) =>
    `Title: ${topic} - Stack Overflow\nURL: https://stackoverflow.com/q/1\nText: The package ships ESM only and is externalized for SSR; add it to ssr.noExternal.\n\nTitle: SSR Options | Vite\nURL: https://vite.dev/config/ssr-options`;

  it.each(["websearch", "codesearch", "exa_web_search_exa"])(
    "new phrasings that bring back the same pages (%s): denied by compaction 3",
    (tool) => {
      const phrasings = [
        "vite ssr esm import error",
        "vite ssr cannot use import",
        "vite bundle dependency for ssr",
        "vite noExternal esm package",
      ];
      const session = cycles(4, (s, i) => {
        s.step(search(phrasings[i]!, pages("Vite SSR"), tool), 40_000);
        s.step(search(`${phrasings[(i + 1) % 4]} fix`, pages("Vite SSR"), tool), 70_000);
        s.step(read("/p/vite.config.ts"), 100_000);
      });
      expect(stop(session)?.[0]).toBeLessThanOrEqual(3);
    },
  );

  it("searches that bring back new pages each cycle: never denied", () => {
    const session = cycles(4, (s, i) => {
      s.step(search(`question ${i}`, pages(`Answer ${i}`)), 40_000);
      s.step(read("/p/vite.config.ts"), 100_000);
    });
    expect(stop(session)).toBeNull();
  });

  it("the same short answer to new questions says too little to be a repeat", () => {
    const session = cycles(4, (s, i) => {
      s.step(search(`is there a flag number ${i}`, "No results found."), 40_000);
      s.step(read("/p/vite.config.ts"), 100_000);
    });
    expect(stop(session)).toBeNull();
  });
});

describe("3. the same output paged from a fresh saved copy", () => {
  const saved = (id: string) => `/home/dev/.local/share/opencode/tool-output/tool_${id}`;
  const lint = (id: string, errors: number) =>
    `src/a.ts:1:1: error no-unused-vars\n...${errors} problems...\n\n...output truncated...\n\nFull output saved to: ${saved(id)}`;
  const page = (errors: number, offset: number) => `<file>\n${offset}: src/a.ts:1:1 error (${errors} problems)\n</file>`;

  it("a big command re-run after every compaction and its new saved copy read from the top: denied by compaction 3", () => {
    const ids = ["22ce41902001F2bkSBdwHK7XZ1", "22ce5b0c1001xq7Lm3PpR2aZ9K", "22ce6f33e001Jt4Hn8VwQ5cB1D", "22ce81a0b001Pp0Ls6RtY3dE7F"];
    const session = cycles(4, (s, i) => {
      s.step(bash("npx eslint . --format unix", lint(ids[i]!, 3419)), 30_000);
      s.step({ tool: "grep", input: { pattern: "src/a.ts", path: saved(ids[i]!) }, output: "Found 3 matches" }, 50_000);
      s.step(read(saved(ids[i]!), page(3419, 1), { offset: 1 }), 70_000);
      s.step(read(saved(ids[i]!), page(3419, 251), { offset: 251 }), 100_000);
    });
    expect(stop(session)?.[0]).toBeLessThanOrEqual(3);
  });

  it("a re-run after fixes whose saved copy holds fewer errors, read from line 1 again: never denied", () => {
    const session = cycles(4, (s, i) => {
      const errors = 264 - i * 60;
      s.step(bash("npx tsc --noEmit", lint(`22ce${i}0000aaaaBBBB${i}`, errors)), 30_000);
      s.step(read(saved(`22ce${i}0000aaaaBBBB${i}`), page(errors, 1), { offset: 1 }), 60_000);
      s.step(read("/p/src/a.ts"), 100_000);
    });
    expect(stop(session)).toBeNull();
  });

  it("an edit's input keeps every character: writing a saved file's path into code is a new change", () => {
    const session = cycles(4, (s, i) => {
      s.step(read("/p/src/a.ts"), 40_000);
      s.step(edit("/p/src/a.ts", "x", `load("${saved(`abc${i}def${i}ghi${i}`)}")`), 100_000);
    });
    expect(stop(session)).toBeNull();
  });
});

describe("4. re-delegation", () => {
  const prompt = "Find which query makes GET /v1/export slow for large accounts. Report the query, the table and the missing index.";
  const reports = [
    "Root cause: ListExportRows (internal/store/queries/export.sql) filters export_rows on account_id and sorts by created_at; there is no index on (account_id, created_at).",
    "The slow part is ListExportRows: it reads export_rows WHERE account_id = $1 ORDER BY created_at, and only the primary key is indexed.",
    "Found it. export.sql's ListExportRows does a Seq Scan on export_rows, because nothing indexes account_id and created_at together.",
    "ListExportRows cannot use an index for account_id with created_at order (export_rows): add a composite index.",
  ];

  it("the same question, its report reworded each time: denied by compaction 3", () => {
    const session = cycles(4, (s, i) => {
      s.step(read("/p/internal/export/handler.go"), 40_000);
      s.step(
        task(prompt, reports[i]!, `child${i}Ab3Cd`, ["find slow query", "profile export", "confirm root cause", "export query"][i]),
        100_000,
      );
    });
    expect(stop(session)?.[0]).toBeLessThanOrEqual(3);
  });

  it("the question reworded, the report the same: denied by compaction 3", () => {
    const session = cycles(4, (s, i) => {
      s.step(read("/p/src/auth/legacy.ts"), 40_000);
      s.step(
        task(
          `Who calls legacyAuth? (wording ${i})`,
          "legacyAuth is called from src/api/orders.ts:41, src/api/users.ts:12 and src/jobs/sync.ts:88.",
          `c${i}x9Yz`,
        ),
        100_000,
      );
    });
    expect(stop(session)?.[0]).toBeLessThanOrEqual(3);
  });

  it("the same job handed out again whose report names other files each time: never denied", () => {
    const fixed = [
      "tests/test_parse.py::test_dates in src/parse.py",
      "tests/test_render.py::test_table in src/render.py",
      "tests/test_cli.py::test_flags in src/cli.py",
      "tests/test_io.py::test_utf8 in src/io.py",
    ];
    const session = cycles(4, (s, i) => {
      s.step(read("/p/CONTRIBUTING.md"), 40_000);
      s.step(task("Fix the next failing test and report what you changed.", `Fixed ${fixed[i]}.`, `k${i}q7Rr`), 100_000);
    });
    expect(stop(session)).toBeNull();
  });
});

describe("5. noise no list names, and failed edits that change nothing", () => {
  it("a log prefix's bracketed pid and a request id differing each run: denied at compaction 2", () => {
    const log = (pid: number, id: string) =>
      `2026-06-17 10:07:15.207 UTC [${pid}] FATAL: role "app" does not exist\nrequest req_${id} failed`;
    const ids = ["7c41e0a9d2b35f18c6a0", "0e93b7d15a2c48f6e911", "b58d20c7e4f1936a0d27"];
    const session = cycles(3, (s, i) => {
      s.step(read("/p/.env"), 40_000);
      s.step(bash("npm run db:migrate", log(48207 + i * 13, ids[i]!)), 100_000);
    });
    expect(stop(session)?.[0]).toBe(2);
  });

  it("an edit that fails the same way with a new oldString each time: denied by compaction 3", () => {
    const error = "Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.";
    const session = cycles(4, (s, i) => {
      s.step(read("/p/src/users.ts"), 40_000);
      s.step({ ...edit("/p/src/users.ts", `guess ${i}`, "validate(input)"), status: "error", output: error }, 100_000);
    });
    expect(stop(session)?.[0]).toBeLessThanOrEqual(3);
  });

  it("a failed edit followed by one that applies, a new file each cycle: never denied", () => {
    const error = "Could not find oldString in the file.";
    const session = cycles(4, (s, i) => {
      s.step(read(`/p/src/f${i}.ts`), 40_000);
      s.step({ ...edit(`/p/src/f${i}.ts`, "a", "b"), status: "error", output: error }, 60_000);
      s.step(edit(`/p/src/f${i}.ts`, "a\r\n", "b\r\n"), 100_000);
    });
    expect(stop(session)).toBeNull();
  });
});

// Copied from the project's shared material (shared/fixtures/judgement3/gen.mjs), with two
// changes: an export line at the end (tests and scripts generate sessions in process), and a
// sample cargo path (/home/dev/app) that named no real machine.
// See shared/fixtures/judgement3/README.md for the kinds and the principle.
// judgement3: a seeded generator of opencode 1.18.33 session exports that teaches KINDS of
// compaction loops and their healthy twins, each with random surface forms (stack, files,
// paths, command spellings, offsets, wording, tools, cycle counts, token sizes, where the
// varying element sits in a cycle), so that a loop detector tuned on it has to generalise.
//
// The principle: new work is new information or a new effect, not a new string.
//  (1) a read-only call brings new information only when its answer holds content not already
//      seen since the last effect, whatever its spelling;
//  (2) only effects change the world: the same question asked again with no effect since it was
//      last asked brings nothing new, however many other reads come between, unless it waits;
//  (3) waiting on the outside world (a sleep or watch in the command, a tool's own wait
//      parameter) is the exception: identical polls are healthy while they wait;
//  (4) an effect that writes content already written (same content under a new name, the same
//      edit re-applied) is not new work.
//
// Labels are right by construction: every tool call carries a hidden semantic note (the lines it
// showed, the question it asked and its answer, the items a search returned, the facts a
// subagent reported, the content an effect wrote, a wait) and `checkLabel` replays those notes
// before a session is written: a loop's cycles after the first must bring nothing new even when
// every effect is taken to reset everything seen; a healthy session's every cycle must bring
// something new even when only never-seen content counts, and it must never ask one question
// three times across two compactions with no effect between. A session that fails is a bug here,
// and the generator stops.
//
// Export shapes: those of ../../../tools/judgement2.mjs (itself tools/bugs3/mkcases.mjs and
// tools/mkexport.mjs extended), read in the opencode 1.18.33 binary and its real exports.
//
// Usage: node gen.mjs --out DIR [--seed N] [--per-kind K] [--kinds L1,H7,...]
//        node gen.mjs --print FILE.json        (a session's cycles, one line per call)
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";

// ================================================================ randomness

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function hash32(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h >>> 0;
}
const digest = (s) => crypto.createHash("sha1").update(String(s)).digest("hex").slice(0, 12);

function rng(seed) {
  const next = mulberry32(seed);
  const r = {
    next,
    int: (a, b) => a + Math.floor(next() * (b - a + 1)),
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    chance: (p) => next() < p,
    shuffle: (arr) => {
      const a = [...arr];
      for (let i = a.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [a[i], a[j]] = [a[j], a[i]];
      }
      return a;
    },
    sample: (arr, k) => r.shuffle(arr).slice(0, Math.max(0, Math.min(k, arr.length))),
    fork: (tag) => rng((Math.floor(next() * 2 ** 32) ^ hash32(String(tag))) >>> 0),
  };
  return r;
}
/** A random function of (seed, n): the same line number always gives the same line. */
const at = (seed, n) => rng(hash32(`${seed}:${n}`));

/** Capitalise a sentence's first letter unless it starts with a name (camelCase, snake_case, a path, code). */
const capSafe = (x) => (/^[a-z]+\b/.test(x) && !/^[a-z]+[A-Z_./(:\-0-9]/.test(x) ? cap(x) : x);
const third = (v) => (/(sh|ch|s|x)$/.test(v) ? `${v}es` : `${v}s`);
const cap = (s) => s[0].toUpperCase() + s.slice(1);
const snake = (s) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const lines = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join("\n");
const plural = (n, w, ws = `${w}s`) => `${n} ${n === 1 ? w : ws}`;
const fmtN = (n) => n.toLocaleString("en-US");

// ================================================================ vocabulary

const AREAS = ["billing", "auth", "search", "ingest", "export", "scheduler", "cache", "notify", "ledger", "inventory", "reporting", "sessions", "uploads", "webhooks", "geo", "pricing", "payroll", "audit", "metrics", "catalog", "checkout", "shipping", "routing", "quota"];
const NOUNS = ["invoice", "cart", "coupon", "session", "token", "batch", "cursor", "payload", "account", "order", "refund", "webhook", "report", "schema", "window", "tenant", "quota", "plan", "price", "tax", "currency", "shard", "record", "entry", "event", "rule", "route", "member", "label", "asset", "thumbnail", "upload", "job", "queue", "worker", "limiter", "resolver", "formatter", "validator", "mapper", "parser", "client", "store", "registry", "bucket", "digest", "manifest", "policy", "receipt", "subscription", "discount", "settlement", "payout", "balance", "statement", "transfer", "cohort", "segment", "metric", "alert", "incident", "release", "artifact", "snapshot", "backup", "replica", "lease", "signal", "span", "trace"];
const VERBS = ["load", "parse", "build", "resolve", "apply", "compute", "format", "fetch", "sync", "merge", "validate", "normalize", "encode", "decode", "emit", "flush", "retry", "schedule", "render", "split", "round", "convert", "collect", "prune", "rotate", "refresh", "reconcile", "index", "rank", "match", "sign", "verify"];
const FIELDS = ["amount", "total", "count", "limit", "offset", "createdAt", "updatedAt", "status", "region", "currency", "ratio", "weight", "owner", "scope", "kind", "version", "retries", "deadline", "cursor", "size"];
const ADJ = ["stale", "pending", "partial", "expired", "duplicate", "negative", "empty", "oversized", "late", "unsigned", "orphaned", "missing", "rounded", "skewed"];
const PROJ_A = ["ledger", "atlas", "harbor", "orbit", "quartz", "maple", "cobalt", "juniper", "nimbus", "tandem", "pylon", "sable", "vector", "willow", "zephyr", "kestrel", "meridian", "onyx", "prairie", "summit"];
const PROJ_B = ["api", "core", "service", "engine", "web", "worker", "cli", "hub", "gateway", "sync"];
const USERS = ["dev", "sam", "alex", "mira", "jo", "kai", "lee", "rin", "noor", "tess", "ola", "ben"];
const COMMENTS = ["keep in sync with the migration", "see the runbook before changing", "rounding happens once, at the end", "guards against a late retry", "the upstream API pages from 1", "cheap path first", "legacy callers still pass strings", "do not log the payload", "order matters here", "empty input is valid"];

const MODELS = [
  { providerID: "anthropic", modelID: "claude-sonnet-4-5", context: 200000, output: 64000 },
  { providerID: "openai", modelID: "gpt-4.1", context: 128000, output: 32768 },
  { providerID: "openrouter", modelID: "qwen/qwen3-coder", context: 262144, output: 65536 },
  { providerID: "deepseek", modelID: "deepseek-chat", context: 128000, output: 8192 },
  { providerID: "lmstudio", modelID: "devstral-small-2507", context: 65536, output: 16384 },
  { providerID: "ollama", modelID: "qwen2.5-coder:32b", context: 32768, output: 8192 },
  { providerID: "zai", modelID: "glm-4.6", context: 204800, output: 131072 },
];
const usableOf = (m) => m.context - Math.min(m.output, 32000);

// ================================================================ stacks: paths, code, commands, outputs

function ident(r) {
  return {
    verb: () => r.pick(VERBS),
    noun: () => r.pick(NOUNS),
    field: () => r.pick(FIELDS),
    adj: () => r.pick(ADJ),
    num: () => r.pick([0, 1, 2, 3, 5, 8, 10, 12, 30, 60, 100, 250, 500, 1000, 1200, 4096]),
  };
}

function tsBlock(r) {
  const id = ident(r);
  const v = id.verb(), n = id.noun(), f = id.field(), g = id.field(), arg = id.noun();
  const T = cap(n);
  const list = r.chance(0.5);
  return [
    ...(r.chance(0.4) ? [`// ${r.pick(COMMENTS)}`] : []),
    `export function ${v}${T}(${arg}: ${T}, limit = ${id.num()}): ${T} | undefined {`,
    `  const ${f} = ${arg}.${f} ?? ${r.pick(["0", "''", "[]", "null"])}`,
    `  if (${r.pick([`${f} > limit`, `!${arg}.${g}`, `${arg}.${g} === undefined`, `${f}.length === 0`])}) {`,
    `    return ${r.pick(["undefined", `{ ...${arg}, ${f} }`, `${id.verb()}${T}(${arg})`])}`,
    "  }",
    ...(list ? [`  const ${g}s = ${arg}.${g}s?.filter((x) => x.${id.field()} !== ${id.num()}) ?? []`] : []),
    `  return { ...${arg}, ${f}, ${g}: ${list ? `${g}s.length` : r.pick([`Math.round(${f} * 100) / 100`, `${arg}.${g}`])} }`,
    "}",
    "",
  ];
}
function pyBlock(r) {
  const id = ident(r);
  const v = id.verb(), n = id.noun(), f = snake(id.field()), g = snake(id.field()), arg = id.noun();
  const list = r.chance(0.5);
  return [
    ...(r.chance(0.4) ? [`# ${r.pick(COMMENTS)}`] : []),
    `def ${v}_${n}(${arg}: ${cap(n)}, *, limit: int = ${id.num()}) -> ${cap(n)} | None:`,
    `    """${cap(v)} one ${n}; ${id.adj()} ones are skipped."""`,
    `    ${f} = ${arg}.${f} or ${r.pick(["0", "''", "[]", "None"])}`,
    `    if ${r.pick([`${f} > limit`, `not ${arg}.${g}`, `${arg}.${g} is None`, `len(${f}) == 0`])}:`,
    `        return ${r.pick(["None", `replace(${arg}, ${f}=${f})`, `${id.verb()}_${n}(${arg})`])}`,
    ...(list ? [`    ${g}s = [x for x in ${arg}.${g}s if x.${snake(id.field())} != ${id.num()}]`] : []),
    `    return replace(${arg}, ${f}=${f}, ${g}=${list ? `len(${g}s)` : r.pick([`round(${f}, 2)`, `${arg}.${g}`])})`,
    "",
  ];
}
function goBlock(r) {
  const id = ident(r);
  const v = id.verb(), n = id.noun(), f = cap(id.field()), g = cap(id.field()), arg = id.noun().slice(0, 1);
  const T = cap(n);
  return [
    ...(r.chance(0.4) ? [`// ${r.pick(COMMENTS)}`] : []),
    `func ${cap(v)}${T}(${arg} *${T}, limit int) (*${T}, error) {`,
    `\tif ${arg} == nil {`,
    `\t\treturn nil, errNil${T}`,
    "\t}",
    `\tif ${r.pick([`${arg}.${f} > limit`, `${arg}.${g} == 0`, `len(${arg}.${g}s) == 0`])} {`,
    `\t\treturn nil, fmt.Errorf("${v} ${n}: %w", err${cap(id.adj())})`,
    "\t}",
    `\t${arg}.${f} = ${r.pick([`min(${arg}.${f}, limit)`, `${arg}.${g} * ${id.num()}`, `round(${arg}.${f})`])}`,
    `\treturn ${arg}, nil`,
    "}",
    "",
  ];
}
function rsBlock(r) {
  const id = ident(r);
  const v = id.verb(), n = id.noun(), f = snake(id.field()), g = snake(id.field());
  const T = cap(n);
  return [
    ...(r.chance(0.4) ? [`// ${r.pick(COMMENTS)}`] : []),
    `pub fn ${v}_${n}(${n}: &mut ${T}, limit: u64) -> Result<(), ${T}Error> {`,
    `    if ${r.pick([`${n}.${f} > limit`, `${n}.${g} == 0`, `${n}.${g}s.is_empty()`])} {`,
    `        return Err(${T}Error::${cap(id.adj())});`,
    "    }",
    `    ${n}.${f} = ${r.pick([`${n}.${f}.min(limit)`, `${n}.${g} * ${id.num()}`, `round_half_even(${n}.${f})`])};`,
    "    Ok(())",
    "}",
    "",
  ];
}

const STACKS = {
  ts: {
    name: "TypeScript",
    src: (a, m) => `src/${a}/${m}.ts`,
    test: (a, m) => `test/${a}/${m}.test.ts`,
    head: (r) => [`import { ${cap(r.pick(NOUNS))} } from '../types'`, `import { normalize } from '../util/normalize'`, ""],
    block: tsBlock,
    testCmds: (t) => [`npx vitest run ${t}`, `npm test -- ${t}`, `pnpm vitest run ${t}`, `npx vitest run ${t} --reporter=verbose`],
    suite: ["npx vitest run", "npm test", "pnpm test"],
    typecheck: ["npx tsc --noEmit", "npx tsc -p tsconfig.json --noEmit", "pnpm exec tsc --noEmit", "npm run typecheck --silent"],
    typecheckClean: () => "",
    lint: ["npx eslint src", "npx eslint . --max-warnings 0", "pnpm lint"],
    build: ["npm run build", "pnpm build", "npx tsc -b"],
    testName: (r, fn) => `${fn} ${r.pick(["rounds half-even", "keeps the currency", "skips empty input", "caps at the limit", "handles a late retry", "returns undefined for a missing owner"])}`,
    fail: ({ file, name, exp, got, src, line, passed, dur }) => ` FAIL  ${file} > ${name}\nAssertionError: expected ${got} to be ${exp} // Object.is equality\n\n- Expected\n+ Received\n\n- ${exp}\n+ ${got}\n\n ❯ ${src}:${line}:${11 + (line % 9)}\n ❯ ${file}:${18 + (line % 40)}:24\n\n Test Files  1 failed (1)\n      Tests  1 failed | ${passed} passed (${passed + 1})\n   Duration  ${dur}`,
    pass: ({ file, total, dur }) => ` ✓ ${file} (${total} tests) ${dur}\n\n Test Files  1 passed (1)\n      Tests  ${total} passed (${total})\n   Duration  ${dur}`,
    buildErr: ({ src, line, fn }) => `${src}(${line},7): error TS2345: Argument of type 'string | undefined' is not assignable to parameter of type 'string'.\n  Type 'undefined' is not assignable to type 'string'.\n\nFound 1 error in ${src}:${line}\n`,
    lintErr: ({ src, line, fn }) => `\n${src}\n  ${line}:9  error  '${fn}' is assigned a value but never used  @typescript-eslint/no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)\n`,
    dur: (r) => `${r.int(180, 1900)}ms`,
  },
  py: {
    name: "Python",
    src: (a, m) => `src/app/${a}/${m}.py`,
    test: (a, m) => `tests/${a}/test_${m}.py`,
    head: (r) => ["from __future__ import annotations", "", "from dataclasses import replace", `from app.types import ${cap(r.pick(NOUNS))}`, ""],
    block: pyBlock,
    testCmds: (t) => [`pytest -q ${t}`, `python -m pytest -q ${t}`, `pytest ${t} -q -x`, `uv run pytest -q ${t}`],
    suite: ["pytest -q", "python -m pytest -q", "uv run pytest -q"],
    typecheck: ["mypy src", "uv run mypy src", "pyright src"],
    typecheckClean: (r) => `Success: no issues found in ${r.int(30, 140)} source files`,
    lint: ["ruff check .", "uv run ruff check src tests", "flake8 src"],
    build: ["python -m build", "uv build"],
    testName: (r, fn) => `test_${fn}_${r.pick(["rounds_half_even", "keeps_currency", "skips_empty_input", "caps_at_limit", "handles_late_retry", "returns_none_for_missing_owner"])}`,
    fail: ({ file, name, exp, got, src, line, passed, dur }) => `F${".".repeat(passed)}\n================================== FAILURES ===================================\n_${"_".repeat(6)} ${name} ${"_".repeat(6)}\n\n    def ${name}():\n>       assert result == ${exp}\nE       assert ${got} == ${exp}\n\n${file}:${18 + (line % 40)}: AssertionError\n=========================== short test summary info ===========================\nFAILED ${file}::${name} - assert ${got} == ${exp}\n1 failed, ${passed} passed in ${dur}`,
    pass: ({ total, dur }) => `${".".repeat(total)}\n${total} passed in ${dur}`,
    buildErr: ({ src, line }) => `${src}:${line}: error: Argument 1 to "round" has incompatible type "str | None"; expected "float"  [arg-type]\nFound 1 error in 1 file (checked ${40 + (line % 50)} source files)`,
    lintErr: ({ src, line, fn }) => `${src}:${line}:5: F841 Local variable \`${fn}\` is assigned to but never used\nFound 1 error.`,
    dur: (r) => `${(r.int(12, 390) / 100).toFixed(2)}s`,
  },
  go: {
    name: "Go",
    src: (a, m) => `internal/${a}/${m}.go`,
    test: (a, m) => `internal/${a}/${m}_test.go`,
    head: (r, p) => [`package ${path.basename(path.dirname(p ?? "x/main/x.go"))}`, "", "import (", '\t"errors"', '\t"fmt"', ")", ""],
    block: goBlock,
    testCmds: (t) => {
      const dir = `./${path.dirname(t)}/...`;
      return [`go test ${dir}`, `go test -count=1 ${dir}`, `go test ${dir} -run .`, `go test -v ${dir}`];
    },
    suite: ["go test ./...", "go test -count=1 ./..."],
    typecheck: ["go vet ./...", "go build ./..."],
    typecheckClean: () => "",
    lint: ["golangci-lint run", "staticcheck ./..."],
    build: ["go build ./...", "make build"],
    testName: (r, fn) => `Test${cap(fn)}${r.pick(["RoundsHalfEven", "KeepsCurrency", "SkipsEmpty", "CapsAtLimit", "LateRetry", "MissingOwner"])}`,
    fail: ({ file, name, exp, got, line, dur }) => `--- FAIL: ${name} (0.00s)\n    ${path.basename(file)}:${18 + (line % 40)}: got ${got}, want ${exp}\nFAIL\nFAIL\tgithub.com/acme/app/${path.dirname(file)}\t${dur}\nFAIL`,
    pass: ({ file, dur }) => `ok  \tgithub.com/acme/app/${path.dirname(file)}\t${dur}`,
    buildErr: ({ src, line }) => `# github.com/acme/app/${path.dirname(src)}\n./${src}:${line}:9: cannot use amount (variable of type float64) as int value in assignment`,
    lintErr: ({ src, line, fn }) => `${src}:${line}:2: ineffectual assignment to ${fn} (ineffassign)\n1 issues:\n* ineffassign: 1`,
    dur: (r) => `${(r.int(4, 900) / 1000).toFixed(3)}s`,
  },
  rs: {
    name: "Rust",
    src: (a, m) => `src/${a}/${m}.rs`,
    test: (a, m) => `tests/${a}_${m}.rs`,
    head: (r) => [`use crate::${r.pick(AREAS)}::${cap(r.pick(NOUNS))};`, "use crate::util::round_half_even;", ""],
    block: rsBlock,
    testCmds: (t) => {
      const name = path.basename(t, ".rs");
      return [`cargo test --test ${name}`, `cargo test -q --test ${name}`, `cargo nextest run --test ${name}`];
    },
    suite: ["cargo test", "cargo test -q"],
    typecheck: ["cargo check", "cargo check --all-targets"],
    typecheckClean: (r) => `    Checking app v0.${r.int(1, 9)}.0 (/home/dev/app)\n    Finished \`dev\` profile [unoptimized + debuginfo] target(s) in ${(r.int(40, 900) / 100).toFixed(2)}s`,
    lint: ["cargo clippy -- -D warnings", "cargo clippy --all-targets"],
    build: ["cargo build", "cargo build --release"],
    testName: (r, fn) => `${fn}_${r.pick(["rounds_half_even", "keeps_currency", "skips_empty", "caps_at_limit", "late_retry", "missing_owner"])}`,
    fail: ({ file, name, exp, got, src, line, passed, dur }) => `running ${passed + 1} tests\n${lines(Math.min(passed, 4), (i) => `test case_${i + 1} ... ok`)}\ntest ${name} ... FAILED\n\nfailures:\n\n---- ${name} stdout ----\nthread '${name}' panicked at ${src}:${line}:9:\nassertion \`left == right\` failed\n  left: ${got}\n right: ${exp}\n\nfailures:\n    ${name}\n\ntest result: FAILED. ${passed} passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in ${dur}\n\nerror: test failed, to rerun pass \`--test ${path.basename(file, ".rs")}\``,
    pass: ({ total, dur }) => `running ${total} tests\n${lines(Math.min(total, 5), (i) => `test case_${i + 1} ... ok`)}\n\ntest result: ok. ${total} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in ${dur}`,
    buildErr: ({ src, line }) => `error[E0308]: mismatched types\n --> ${src}:${line}:9\n  |\n${line} |         amount\n  |         ^^^^^^ expected \`u64\`, found \`f64\`\n\nerror: could not compile \`app\` (lib) due to 1 previous error`,
    lintErr: ({ src, line, fn }) => `error: unused variable: \`${fn}\`\n --> ${src}:${line}:9\n  |\n  = note: \`-D unused-variables\` implied by \`-D warnings\`\n\nerror: could not compile \`app\` (lib) due to 1 previous error`,
    dur: (r) => `${(r.int(1, 90) / 100).toFixed(2)}s`,
  },
};

// ================================================================ the world: one project, its files and their contents

function makeWorld(r) {
  const stack = r.pick(Object.keys(STACKS));
  const S = STACKS[stack];
  const user = r.pick(USERS);
  const proj = `${r.pick(PROJ_A)}-${r.pick(PROJ_B)}`;
  const root = r.pick([`/home/${user}/${proj}`, `/home/${user}/src/${proj}`, `/Users/${user}/code/${proj}`, `/workspace/${proj}`]);
  const home = root.startsWith("/Users") ? `/Users/${user}` : root.startsWith("/workspace") ? "/root" : `/home/${user}`;
  const model = r.pick(MODELS);
  const W = {
    r, stack, S, user, proj, root, home, model,
    saved: `${home}/.local/share/opencode/tool-output`,
    usable: usableOf(model),
    flags: r.chance(0.5) ? ["--context-limit", String(model.context), "--output-limit", String(model.output)] : [],
    files: new Map(),
    taken: new Set(),
    seed: r.int(1, 1e9),
    areas: r.sample(AREAS, 4),
    mods: r.sample(NOUNS, 14),
  };
  W.area = W.areas[0];
  W.abs = (p) => (p.startsWith("/") ? p : `${root}/${p}`);
  W.rel = (p) => (p.startsWith(`${root}/`) ? p.slice(root.length + 1) : p);
  /** The current lines of a file (generated on first use, then kept: edits change them). */
  W.file = (p, make) => {
    if (!W.files.has(p)) W.files.set(p, make ? make() : sourceLines(W, p, r.int(30, 80)));
    return W.files.get(p);
  };
  W.srcOf = (m, a = W.area) => S.src(a, m);
  W.testOf = (m, a = W.area) => S.test(a, m);
  return W;
}

/** Source code for a file: a header then blocks, cut to n lines; the same path gives the same code. */
function sourceLines(W, p, n) {
  const rr = rng(hash32(`${W.seed}:${p}`));
  const out = [...W.S.head(rr, p)];
  while (out.length < n) out.push(...W.S.block(rr));
  return out.slice(0, n);
}
/** A big log file, line n a function of (seed, n): only the lines read are ever made. */
function logLine(seed, n) {
  const rr = at(seed, n);
  const t0 = 1_773_000_000 + (seed % 5_000_000);
  const ts = new Date((t0 + n * 2 + rr.int(0, 1)) * 1000).toISOString().replace(".000", `.${String(rr.int(0, 999)).padStart(3, "0")}`);
  const lvl = rr.next() < 0.08 ? "WARN " : rr.next() < 0.03 ? "ERROR" : "INFO ";
  const comp = rr.pick(["worker", "http", "db", "queue", "sched", "cache"]);
  const msg = lvl === "ERROR"
    ? rr.pick([`${rr.pick(NOUNS)} ${rr.int(1000, 99999)} failed: ${rr.pick(["timeout after 30000ms", "connection reset", "constraint violation", "lock wait timeout"])}`, `retry budget exhausted for ${rr.pick(NOUNS)} ${rr.int(100, 9999)}`])
    : lvl === "WARN "
      ? rr.pick([`slow ${rr.pick(NOUNS)} query ${rr.int(300, 4000)}ms`, `queue depth ${rr.int(100, 9000)}`, `${rr.pick(ADJ)} ${rr.pick(NOUNS)} ${rr.int(1, 9999)} skipped`])
      : rr.pick([`${rr.pick(NOUNS)} ${rr.int(1000, 99999)} ok (${rr.int(2, 400)}ms)`, `batch ${rr.int(1, 99999)} committed ${rr.int(1, 500)} rows`, `GET /v1/${rr.pick(NOUNS)}s 200 ${rr.int(2, 300)}ms`, `cache ${rr.pick(["hit", "miss"])} ${rr.pick(NOUNS)}:${rr.int(1, 9999)}`]);
  return `${ts} ${lvl} ${comp}[${rr.int(1, 8)}] ${msg}`;
}
function csvLine(seed, n) {
  if (n === 1) return "id,created_at,region,sku,qty,amount_cents,status";
  const rr = at(seed, n);
  const d = new Date((1_767_000_000 + n * 431) * 1000).toISOString().slice(0, 10);
  return `${100000 + n},${d},${rr.pick(["eu-west", "us-east", "ap-south", "us-west", "eu-central"])},SKU-${rr.int(1000, 9999)},${rr.int(1, 12)},${rr.int(100, 250000)},${rr.pick(["paid", "paid", "paid", "refunded", "pending", "failed"])}`;
}
function mdLine(seed, n) {
  const rr = at(seed, n);
  if (n % 17 === 1) return `## ${cap(rr.pick(VERBS))} ${rr.pick(NOUNS)}s`;
  if (n % 17 === 2) return "";
  return rr.pick([
    `The ${rr.pick(NOUNS)} service ${third(rr.pick(VERBS))} each ${rr.pick(NOUNS)} before it is stored.`,
    `- \`${rr.pick(FIELDS)}\`: ${rr.pick(["required", "optional", "defaults to 0", "deprecated since v3"])}.`,
    `${cap(rr.pick(ADJ))} ${rr.pick(NOUNS)}s are retried at most ${rr.int(2, 9)} times.`,
    `See \`${rr.pick(AREAS)}/${rr.pick(NOUNS)}\` for the ${rr.pick(VERBS)} path.`,
    `| ${rr.pick(FIELDS)} | ${rr.pick(["int", "string", "bool", "timestamp"])} | ${rr.pick(["yes", "no"])} |`,
  ]);
}
/** A long text file whose line n is made on demand; its length is fixed. */
function bigFile(W, p, total, kind) {
  const seed = hash32(`${W.seed}:${p}`);
  const f = kind === "csv" ? csvLine : kind === "md" ? mdLine : logLine;
  const file = { big: true, total, line: (n) => f(seed, n) };
  W.files.set(p, file);
  return file;
}
/** Lines a..b (1-based, inclusive) of a file as [n, text] pairs. */
function slice(W, p, a, b) {
  const f = W.files.get(p) ?? W.file(p);
  if (f.big) return Array.from({ length: b - a + 1 }, (_, i) => [a + i, f.line(a + i)]);
  return f.slice(a - 1, b).map((t, i) => [a + i, t]);
}
const totalOf = (W, p) => {
  const f = W.files.get(p) ?? W.file(p);
  return f.big ? f.total : f.length;
};

// ================================================================ tool calls, as opencode 1.18.33 records them, each with its meaning
//
// A spec is { tool, input, output | error, title, metadata, status, waitMs?, changes?, sem }.
// `sem` is what the call brought, for checkLabel (never written to the export):
//   { k: "lines", rows: [[path, n, text]] }   lines of files it showed
//   { k: "ask", key, ans }                     a question about the world (a test, a build, a status) and its answer
//   { k: "items", items: [id] }                what a search returned
//   { k: "facts", facts: [id] }                what a subagent reported
//   { k: "effect", key, ok }                   an effect: key names the content it leaves; ok false = it changed nothing
//   { k: "wait" }                              it waited on the outside world
//   { k: "plan" }                              bookkeeping (todowrite)

function tools(W) {
  const abs = W.abs;
  const T = {
    /** The read tool: <path>, <type>, numbered <content>, and the end-of-file or paging footer. */
    read(p, { offset, limit } = {}) {
      const total = totalOf(W, p);
      const a = offset ?? 1;
      const b = Math.min(total, limit ? a + limit - 1 : total);
      const rows = slice(W, p, a, b);
      const footer = b < total ? `(Showing lines ${a}-${b} of ${total}. Use offset=${b + 1} to continue.)` : `(End of file - total ${total} lines)`;
      const input = { filePath: abs(p), ...(offset !== undefined ? { offset } : {}), ...(limit !== undefined ? { limit } : {}) };
      const text = rows.map(([, l]) => l).join("\n");
      return {
        tool: "read", input, title: W.rel(p),
        output: `<path>${abs(p)}</path>\n<type>file</type>\n<content>\n${rows.map(([n, l]) => `${n}: ${l}`).join("\n")}\n\n${footer}\n</content>`,
        metadata: { preview: rows.slice(0, 20).map(([, l]) => l).join("\n"), truncated: b < total, loaded: [], display: { type: "file", path: abs(p), text, lineStart: a, lineEnd: b, totalLines: total, truncated: b < total } },
        sem: { k: "lines", view: "read", rows: rows.map(([n, l]) => [p, n, l]), extra: [`A:len:${p}:${total}`] },
      };
    },
    /** The bash tool. */
    bash(command, output, description, { exit = 0, sem, waitMs, changes = false } = {}) {
      const text = output === "" ? "(no output)" : output;
      return {
        tool: "bash", input: { command, description }, title: command, output: text, waitMs, changes,
        metadata: { output: text.split("\n").slice(0, 30).join("\n"), exit, description, truncated: false },
        sem,
      };
    },
    /** A shell command that prints lines a..b of a file (sed, head, awk, tail, perl, bat ...). */
    bashLines(command, p, a, b, description) {
      const rows = slice(W, p, a, b);
      return T.bash(command, `${rows.map(([, l]) => l).join("\n")}\n`, description, { sem: { k: "lines", view: "plain", rows: rows.map(([n, l]) => [p, n, l]) } });
    },
    /** The grep tool: "Found N matches", hits grouped by file, a blank line between files. */
    grep(pattern, where, hits, { include } = {}) {
      const out = [`Found ${hits.length} matches`];
      let cur = null;
      for (const [p, n, l] of hits) {
        if (cur !== p) { if (cur !== null) out.push(""); cur = p; out.push(`${abs(p)}:`); }
        out.push(`  Line ${n}: ${l}`);
      }
      const text = hits.length ? out.join("\n") : "No files found";
      return {
        tool: "grep", input: { pattern, ...(where ? { path: abs(where) } : {}), ...(include ? { include } : {}) }, title: pattern, output: text,
        metadata: { matches: hits.length, truncated: false },
        sem: { k: "lines", view: "grep", rows: hits.map(([p, n, l]) => [p, n, l]) },
      };
    },
    /** grep/rg through bash: "path:line:text". */
    rg(command, hits, description = "Search the code", { prefix = "" } = {}) {
      return T.bash(command, hits.length ? `${hits.map(([p, n, l]) => `${prefix}${p}:${n}:${l}`).join("\n")}\n` : "", description, { exit: hits.length ? 0 : 1, sem: { k: "lines", view: "rg", prefix, rows: hits.map(([p, n, l]) => [p, n, l]) } });
    },
    glob(pattern, paths) {
      return { tool: "glob", input: { pattern }, title: pattern, output: paths.length ? paths.map(abs).join("\n") : "No files found", metadata: { count: paths.length, truncated: false }, sem: { k: "ask", key: `glob:${pattern}`, ans: digest(paths.join("\n")) } };
    },
    /** The edit tool; it changes the file's lines in the world (one line for one line). */
    edit(p, oldLine, newLine) {
      const f = W.file(p);
      const i = f.indexOf(oldLine);
      if (i < 0) throw new Error(`edit: ${p} has no line ${JSON.stringify(oldLine)}`);
      if (f.lastIndexOf(oldLine) !== i) throw new Error(`edit: ${p} has the line ${JSON.stringify(oldLine)} more than once`);
      f[i] = newLine;
      const filePath = abs(p);
      const patch = `Index: ${filePath}\n===================================================================\n--- ${filePath}\n+++ ${filePath}\n@@ -${i + 1},1 +${i + 1},1 @@\n-${oldLine}\n+${newLine}\n`;
      return {
        tool: "edit", input: { filePath, oldString: oldLine, newString: newLine }, title: W.rel(p), output: "Edit applied successfully.", changes: true,
        metadata: { diagnostics: {}, diff: patch, filediff: { file: filePath, patch, additions: 1, deletions: 1 } },
        sem: { k: "effect", key: `${p}#${digest(f.join("\n"))}`, ok: true },
      };
    },
    /** An edit whose oldString is no longer in the file (it was applied before): it changes nothing. */
    editNotFound(p, oldLine, newLine) {
      return {
        tool: "edit", input: { filePath: abs(p), oldString: oldLine, newString: newLine }, status: "error",
        error: "Error: Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.",
        sem: { k: "effect", key: `noop:${p}`, ok: false },
      };
    },
    /** The write tool. The content is what counts: the same content under another name is no new work. */
    write(p, content, { exists = false } = {}) {
      W.files.set(p, content.replace(/\n$/, "").split("\n"));
      return {
        tool: "write", input: { content, filePath: abs(p) }, title: W.rel(p), output: "Wrote file successfully.", changes: true,
        metadata: { diagnostics: {}, filepath: abs(p), exists, truncated: false },
        sem: { k: "effect", key: `content#${digest(content)}`, ok: true },
      };
    },
    todo(todos) {
      return { tool: "todowrite", input: { todos }, title: `${todos.filter((x) => x.status !== "completed").length} todos`, output: JSON.stringify(todos, null, 2), metadata: { todos, truncated: false }, sem: { k: "plan" } };
    },
    websearch(query, items) {
      return {
        tool: "websearch", input: { query }, title: `Exa Web Search: ${query}`,
        output: items.map((x) => `Title: ${x.title}\nURL: ${x.url}\nText: ${x.text}`).join("\n\n"),
        metadata: { provider: "exa", truncated: false }, sem: { k: "items", items: items.map((x) => x.url) },
      };
    },
    codesearch(query, items, tokensNum) {
      return {
        tool: "codesearch", input: { query, ...(tokensNum ? { tokensNum } : {}) }, title: `Code search: ${query}`,
        output: items.map((x) => `## ${x.title}\n${x.url}\n\n\`\`\`\n${x.text}\n\`\`\``).join("\n\n"),
        metadata: { provider: "exa", truncated: false }, sem: { k: "items", items: items.map((x) => x.url) },
      };
    },
    /** An MCP search tool (its name is the server's, then the tool's): JSON text, as MCP servers answer. */
    mcpSearch(name, input, items) {
      return {
        tool: name, input, title: name,
        output: JSON.stringify({ results: items.map((x) => ({ title: x.title, url: x.url, snippet: x.text })) }, null, 2),
        metadata: { truncated: false }, sem: { k: "items", items: items.map((x) => x.url) },
      };
    },
    webfetch(url, text) {
      return { tool: "webfetch", input: { url, format: "markdown" }, title: `${url} (text/html; charset=utf-8)`, output: text, metadata: { truncated: false }, sem: { k: "items", items: [`page:${url}:${digest(text)}`] } };
    },
    /** The task tool: a new child session per call (its id is made when the session is written); its answer is the child's last text. */
    task(description, prompt, report, facts, subagent = "explore") {
      return {
        tool: "task", input: { description, prompt, subagent_type: subagent }, title: description,
        deferred: (s) => {
          const child = s.childId();
          return {
            output: `<task id="${child}" state="completed">\n<task_result>\n${report}\n</task_result>\n</task>`,
            metadata: { parentSessionId: s.sid, sessionId: child, model: { providerID: W.model.providerID, modelID: W.model.modelID }, truncated: false },
          };
        },
        sem: { k: "facts", facts },
      };
    },
  };
  return T;
}

// ================================================================ sessions: the export's messages (ids, times, tokens) and a plan's rendering

const CONTINUE = "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.";
const B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function session(r, W, { title, slug }) {
  const rand = (n) => Array.from({ length: n }, () => B62[Math.floor(r.next() * 62)]).join("");
  const hex = (n) => Array.from({ length: n }, () => "0123456789abcdef"[Math.floor(r.next() * 16)]).join("");
  // opencode ids: 12 hex digits of time and counter, then 14 random base62 characters; session ids
  // count down, message, part and call ids count up.
  let clock = 0x22e400000000 + r.int(0, 0x3fffff) * 0x400;
  const asc = (prefix) => { clock += 0x1000 + Math.floor(r.next() * 0x30000); return `${prefix}_${clock.toString(16).padStart(12, "0")}${rand(14)}`; };
  const desc = (prefix) => { clock += 0x1000; return `${prefix}_${(0xffffffffffff - clock).toString(16).padStart(12, "0")}${rand(14)}`; };
  const MODEL = { providerID: W.model.providerID, modelID: W.model.modelID };
  const sid = desc("ses");
  const messages = [];
  const created0 = 1_796_400_000_000 + r.int(0, 300) * 86_400_000 + r.int(0, 80_000_000);
  let t = created0;
  let lastUser = null;
  let snapshot = hex(40);
  const project = hex(40);
  const tick = (ms = 1000) => (t += ms);
  const part = (mid, p) => ({ ...p, id: asc("prt"), sessionID: sid, messageID: mid });
  const user = (parts) => {
    const mid = asc("msg");
    const info = { role: "user", time: { created: tick(r.int(300, 2000)) }, agent: "build", model: MODEL, summary: { diffs: [] }, id: mid, sessionID: sid };
    messages.push({ info, parts: parts.map((p) => part(mid, p)) });
    lastUser = mid;
    return mid;
  };
  const toolPart = (spec, at) => {
    if (spec.changes) snapshot = hex(40);
    const start = at + r.int(80, 400);
    const end = start + (spec.waitMs ? spec.waitMs + r.int(150, 1200) : r.int(15, 1800));
    const late = spec.deferred ? spec.deferred(api) : {};
    const state = spec.status === "error"
      ? { status: "error", input: spec.input, error: spec.error, time: { start, end } }
      : { status: "completed", input: spec.input, output: late.output ?? spec.output, metadata: late.metadata ?? spec.metadata ?? {}, title: spec.title ?? spec.tool, time: { start, end } };
    return [{ type: "tool", tool: spec.tool, callID: `call_${rand(24)}`, state }, end];
  };
  const api = {
    sid,
    childId: () => desc("ses"),
    user(text) { user([{ type: "text", text }]); return api; },
    /** One model step: total = opencode's context size after it (the request's prompt plus its output). */
    step(total, specs = [], { finish = "tool-calls", text = null, output = 40 + r.int(0, 340) } = {}) {
      const out = Math.min(output, total - 1);
      const tk = { total, input: total - out, output: out, reasoning: 0, cache: { write: 0, read: 0 } };
      const mid = asc("msg");
      const created = tick(r.int(300, 1500));
      const body = [];
      let cursor = created + r.int(400, 3000);
      if (text) body.push({ type: "text", text, time: { start: created + 200, end: cursor } });
      let last = cursor;
      for (const spec of specs) {
        const [p, end] = toolPart(spec, cursor);
        body.push(p);
        last = Math.max(last, end);
      }
      const completed = last + r.int(100, 600);
      t = completed;
      const info = { parentID: lastUser, role: "assistant", mode: "build", agent: "build", path: { cwd: W.root, root: W.root }, cost: 0, tokens: tk, modelID: MODEL.modelID, providerID: MODEL.providerID, time: { created, completed }, finish, id: mid, sessionID: sid };
      const all = [{ snapshot, type: "step-start" }, ...body, { reason: finish, snapshot, type: "step-finish", tokens: tk, cost: 0 }];
      messages.push({ info, parts: all.map((p) => part(mid, p)) });
      return api;
    },
    answer(total, text) { return api.step(total, [], { finish: "stop", text, output: 60 + r.int(0, 300) }); },
    /** Automatic compaction: compaction message, summary (its request carried the history), continue turn. */
    compact({ summaryTokens, summary, history }) {
      const cm = user([{ type: "compaction", auto: true, overflow: false }]);
      const mid = asc("msg");
      const created = tick(500);
      const tk = { total: history + summaryTokens, input: history, output: summaryTokens, reasoning: 0, cache: { write: 0, read: 0 } };
      const completed = tick(r.int(8000, 40000));
      const info = { parentID: cm, role: "assistant", mode: "compaction", agent: "compaction", path: { cwd: W.root, root: W.root }, cost: 0, tokens: tk, modelID: MODEL.modelID, providerID: MODEL.providerID, time: { created, completed }, summary: true, finish: "stop", id: mid, sessionID: sid };
      messages.push({ info, parts: [{ snapshot, type: "step-start" }, { type: "text", text: summary, time: { start: created + 100, end: completed } }, { reason: "stop", snapshot, type: "step-finish", tokens: tk, cost: 0 }].map((p) => part(mid, p)) });
      user([{ type: "text", text: CONTINUE, synthetic: true, metadata: { compaction_continue: true } }]);
      return api;
    },
    done() {
      const sum = (f) => messages.reduce((a, m) => a + (m.info.role === "assistant" ? f(m.info.tokens) : 0), 0);
      const diffs = messages.flatMap((m) => m.parts.filter((p) => p.type === "tool" && p.state.metadata?.filediff).map((p) => p.state.metadata.filediff));
      const info = {
        id: sid, slug, projectID: project, directory: W.root, path: "", title, agent: "build", model: { id: MODEL.modelID, providerID: MODEL.providerID, variant: "default" }, version: "1.18.33",
        summary: { additions: diffs.reduce((a, d) => a + d.additions, 0), deletions: diffs.reduce((a, d) => a + d.deletions, 0), files: new Set(diffs.map((d) => d.file)).size },
        cost: 0, tokens: { input: sum((x) => x.input), output: sum((x) => x.output), reasoning: 0, cache: { read: 0, write: 0 } },
        permission: [{ permission: "question", pattern: "*", action: "deny" }, { permission: "plan_enter", pattern: "*", action: "deny" }, { permission: "plan_exit", pattern: "*", action: "deny" }],
        time: { created: created0, updated: t },
      };
      return { info, messages };
    },
  };
  return api;
}

const resultChars = (step) => (step.tools ?? []).reduce((a, x) => a + String(x.output ?? x.error ?? "").length, 0);

/** Context sizes for a cycle's steps: from `start` up to `end`, growing with what each step brought in; all but the last under `cap`. */
function allocate(r, start, end, steps, cap) {
  const n = steps.length;
  const first = start + r.int(40, 380);
  if (n === 1) { if (cap != null) throw new Error("a cycle that ends in a compaction needs 2 steps or more"); return [end]; }
  const w = steps.map((st, i) => (i === 0 ? 0 : 150 + resultChars(steps[i - 1]) / 3 + r.int(0, 600)));
  const sumW = w.reduce((a, b) => a + b, 0);
  const totals = [first];
  let acc = first;
  for (let i = 1; i < n; i++) { acc += ((end - first) * w[i]) / sumW; totals.push(Math.round(acc)); }
  totals[n - 1] = end;
  if (cap != null && totals[n - 2] >= cap) {
    const target = cap - r.int(300, 1500);
    const k = (target - first) / (totals[n - 2] - first);
    for (let i = 1; i < n - 1; i++) totals[i] = Math.round(first + (totals[i] - first) * k);
  }
  for (let i = 1; i < n; i++) if (totals[i] <= totals[i - 1]) totals[i] = totals[i - 1] + 1 + r.int(0, 60);
  return totals;
}

/**
 * Writes a plan as an export. plan: { prompt, title, cycles: [[{ tools, text? }]], summary(c) , final? }.
 * Every cycle but a healthy session's last ends in an automatic compaction at opencode's line (the
 * usable context); what the compaction leaves (system prompt and tools, summary, kept tail) is a
 * fraction of it, so the cut is always well over 30%.
 */
function render(r, W, plan) {
  // opencode titles a session from its first message: a few words of it, for every kind alike
  const words = plan.prompt.replace(/[`"]/g, "").replace(/(?:[.:;]\s|\s\(|[.:;]$).*$/s, "").split(/\s+/).filter(Boolean);
  const title = capSafe(words.slice(0, Math.min(words.length, r.int(4, 7))).join(" ")).replace(/[,]$/, "");
  const s = session(r, W, { title, slug: `${r.pick(["brave", "quiet", "swift", "amber", "silent", "lucky", "misty", "bold", "calm", "eager"])}-${r.pick(["lake", "moon", "river", "cedar", "falcon", "harbor", "meadow", "comet", "pine", "otter"])}` });
  s.user(plan.prompt);
  const U = W.usable;
  const sys = r.int(Math.min(4000, Math.floor(U * 0.1)), Math.min(22000, Math.floor(U * 0.18)));
  let start = sys + Math.ceil(plan.prompt.length / 4) + 20;
  const sizes = [];
  plan.cycles.forEach((cycle, c) => {
    const compactAfter = !(c === plan.cycles.length - 1 && plan.final);
    const steps = [...cycle];
    if (!compactAfter) steps.push({ answer: plan.final });
    const end = compactAfter ? U + r.int(0, Math.min(2500, Math.floor(U * 0.02))) : Math.floor(start + 2000 + (U - start - 2000) * (0.2 + 0.6 * r.next()));
    const totals = allocate(r, start, end, steps, compactAfter ? U : null);
    steps.forEach((st, i) => (st.answer ? s.answer(totals[i], st.answer) : s.step(totals[i], st.tools, { text: st.text ?? null })));
    if (compactAfter) {
      const summaryTokens = r.int(800, Math.max(900, Math.min(3200, Math.floor(U * 0.06))));
      s.compact({ summaryTokens, summary: plan.summary(c), history: end });
      const tail = r.int(1000, Math.max(1500, Math.min(15000, Math.floor(U / 4))));
      start = sys + summaryTokens + tail + 40;
      sizes.push([end, start]);
    }
  });
  return { exp: s.done(), sizes };
}

// ================================================================ the label, checked from the calls' meanings

function unitsOf(sem) {
  switch (sem.k) {
    case "lines": return [...sem.rows.map(([p, n, l]) => `L:${p}:${n}:${digest(l)}`), ...(sem.extra ?? [])];
    case "ask": return [`A:${sem.key}:${sem.ans}`];
    case "items": return sem.items.map((x) => `I:${x}`);
    case "facts": return sem.facts.map((x) => `F:${x}`);
    default: throw new Error(`no units for ${sem.k}`);
  }
}
const sigOf = (sem) => digest([...new Set(unitsOf(sem))].sort().join("|"));

/**
 * Replays the calls' meanings and throws unless the label holds by construction.
 * Two readings of "seen": C keeps everything ever seen (strict: only never-seen content is new);
 * G forgets everything at every new effect (lenient: after any effect every answer is new).
 * A loop's cycles after the first must bring nothing new under G (so under any reading); a
 * healthy session's every cycle must bring something new under C (so under any reading), and no
 * question may be asked 3 times over 2 compactions with no new effect between (the repeat that
 * makes L3 a loop). L3's cycles may read a never-read file; nothing else new, no effect at all.
 */
/** The meaning note of a call must say what its output shows (lines, hits, items); else the label could be wrong. */
function verifyNote(name, spec, W) {
  const sem = spec.sem;
  const bad = (m) => { throw new Error(`${name}: a ${spec.tool} call's note does not match its output: ${m}`); };
  const out = spec.output ?? "";
  if (sem.k === "lines") {
    if (sem.view === "read") {
      const body = /<content>\n([\s\S]*)\n\n\((?:Showing|End of file)/.exec(out)?.[1];
      if (body == null) bad("no content");
      const got = body.split("\n").map((l) => { const m = /^(\d+): ([\s\S]*)$/.exec(l); return m ? [Number(m[1]), m[2]] : null; });
      if (got.some((x) => !x) || got.length !== sem.rows.length || got.some(([n, t], i) => sem.rows[i][1] !== n || sem.rows[i][2] !== t || sem.rows[i][0] !== W.rel(spec.input.filePath))) bad("read rows");
    } else if (sem.view === "plain") {
      if (out !== `${sem.rows.map((x) => x[2]).join("\n")}\n`) bad("printed lines");
    } else if (sem.view === "grep") {
      const hits = [];
      let cur = null;
      for (const l of out.split("\n").slice(1)) {
        if (!l) continue;
        const m = /^ {2}Line (\d+): ([\s\S]*)$/.exec(l);
        if (m) hits.push([cur, Number(m[1]), m[2]]);
        else cur = W.rel(l.replace(/:$/, ""));
      }
      if (hits.length !== sem.rows.length || hits.some((h, i) => h.join("\u0000") !== sem.rows[i].join("\u0000"))) bad("grep hits");
    } else if (sem.view === "rg") {
      const want = sem.rows.map(([p, n, t]) => `${sem.prefix ?? ""}${p}:${n}:${t}`).join("\n");
      if (out !== (want ? `${want}\n` : "(no output)")) bad("rg hits");
    } else bad(`no view for ${JSON.stringify(sem).slice(0, 80)}`);
  }
  if (sem.k === "items" && spec.tool !== "webfetch") for (const url of sem.items) if (!out.includes(url)) bad(`item ${url} not shown`);
}

function checkLabel(name, plan, W) {
  const seenC = new Set(), seenG = new Set(), written = new Set();
  let epoch = 0;
  const per = [];
  const occ = new Map();
  plan.cycles.forEach((cycle, c) => {
    const st = { newC: 0, newG: 0, newEffects: 0, dupEffects: 0, waits: 0, actions: 0 };
    for (const step of cycle) for (const spec of step.tools) {
      const sem = spec.sem;
      if (!sem) throw new Error(`${name}: a ${spec.tool} call has no meaning note`);
      if (sem.k === "plan") continue;
      st.actions++;
      if (sem.k === "wait") { st.waits++; continue; }
      if (sem.k === "effect") {
        if (sem.ok && !written.has(sem.key)) { written.add(sem.key); st.newEffects++; epoch++; seenG.clear(); } else st.dupEffects++;
        continue;
      }
      verifyNote(name, spec, W);
      const units = unitsOf(sem);
      const nc = units.some((u) => !seenC.has(u)), ng = units.some((u) => !seenG.has(u));
      for (const u of units) { seenC.add(u); seenG.add(u); }
      if (nc) st.newC++;
      if (ng) st.newG++;
      const sig = sigOf(sem);
      if (!occ.has(sig)) occ.set(sig, []);
      occ.get(sig).push({ c, epoch });
    }
    per.push(st);
  });
  const fail = (m) => { throw new Error(`${name}: the label would not hold by construction: ${m}`); };
  const quiet = (o) => String(o).replace(/\d+(?:\.\d+)?\s?(?:ms|s|seconds)\b/g, "#");
  const answers = new Map();
  for (const spec of plan.cycles.flat().flatMap((st) => st.tools)) {
    if (spec.sem?.k !== "ask") continue;
    const k = `${spec.sem.key}\u0000${spec.sem.ans}`;
    if (answers.has(k) && answers.get(k) !== quiet(spec.output)) fail(`one answer (${spec.sem.key}) shown two ways`);
    answers.set(k, quiet(spec.output));
  }
  if (plan.cycles.some((cy, c) => cy.length < (plan.final && c === plan.cycles.length - 1 ? 1 : 2))) fail("a cycle that ends in a compaction has fewer than 2 steps");
  if (plan.loop) {
    if (plan.final) fail("a loop ends in an answer");
    per.forEach((st, c) => {
      if (c === 0) return;
      if (st.newEffects || st.waits) fail(`cycle ${c + 1} has a new effect or a wait`);
      if (plan.repeatQ) {
        if (st.dupEffects) fail(`cycle ${c + 1} has an effect`);
        if (st.newG > plan.freshPerCycle) fail(`cycle ${c + 1} brings ${st.newG} new answers (at most ${plan.freshPerCycle} fresh reads allowed)`);
      } else if (st.newG) fail(`cycle ${c + 1} brings ${st.newG} new answers`);
    });
    if (plan.repeatQ) {
      const list = occ.get(sigOf(plan.repeatQ)) ?? [];
      for (let c = 0; c < plan.cycles.length; c++) if (!list.some((o) => o.c === c)) fail(`the repeated question is missing in cycle ${c + 1}`);
      if (new Set(list.map((o) => o.epoch)).size !== 1) fail("an effect between two runs of the repeated question");
    }
  } else {
    if (!plan.final) fail("a healthy session must end in an answer");
    per.forEach((st, c) => { if (!st.newC && !st.newEffects && !st.waits) fail(`cycle ${c + 1} brings nothing new`); });
    for (const list of occ.values()) {
      const byEpoch = new Map();
      for (const o of list) { if (!byEpoch.has(o.epoch)) byEpoch.set(o.epoch, []); byEpoch.get(o.epoch).push(o.c); }
      for (const cs of byEpoch.values()) if (cs.length >= 3 && Math.max(...cs) - Math.min(...cs) >= 2) fail(`one question asked ${cs.length} times over cycles ${cs.map((x) => x + 1).join(",")} with no effect between`);
    }
  }
  return per;
}

// ================================================================ shared pieces of the kinds

const RESUME = [
  "Picking up from the summary.", "Continuing where I left off.", "Resuming: re-checking the current state first.", "Back to it after the summary.",
  "Let me get my bearings again.", "Continuing with the task.", "Resuming the task; a quick look at the relevant files first.", "OK, continuing.",
  "Let me re-establish context before the next step.", "Carrying on from the summary's next steps.",
];
const DESC_READ = ["Show the file", "Read the start of the file", "Print the lines", "Look at the file", "View the section", "Check the file", "Print the top of the file"];
const DESC_NEXT = ["Read the next lines", "Print the next section", "View lines", "Continue reading", "Show the next part", "Print the lines", "Look at the section"];
const resumeText = (r) => (r.chance(0.7) ? r.pick(RESUME) : null);

/** Different spellings of "print lines a..b of a file" (bash), each with an id; the read tool is one more. */
function spellings(a, b, T, { git = true } = {}) {
  const n = b - a + 1;
  const L = [];
  const add = (id, make) => L.push({ id, make });
  if (a === 1) {
    add("sed", (f) => `sed -n '1,${b}p' ${f}`);
    add("sed-dq", (f) => `sed -n "1,${b}p" ${f}`);
    add("head", (f) => `head -n ${b} ${f}`);
    add("head-short", (f) => `head -${b} ${f}`);
    add("awk", (f) => `awk 'NR<=${b}' ${f}`);
    add("awk-range", (f) => `awk 'NR>=1 && NR<=${b}' ${f}`);
    add("cat-head", (f) => `cat ${f} | head -n ${b}`);
    add("sed-q", (f) => `sed '${b}q' ${f}`);
    add("perl", (f) => `perl -ne 'print if 1..${b}' ${f}`);
    add("tail-head", (f) => `tail -n +1 ${f} | head -n ${b}`);
    add("bat", (f) => `bat --plain --paging=never -r 1:${b} ${f}`);
    if (git) add("git-show", (f) => `git show HEAD:${f} | head -n ${b}`);
    if (b === T) {
      add("cat", (f) => `cat ${f}`);
      add("cat-dashes", (f) => `cat -- ${f}`);
      add("cat-redirect", (f) => `cat < ${f}`);
    }
    L.push({ id: "read-limit", tool: "limit" });
    if (b === T && T <= 2000) L.push({ id: "read-all", tool: "all" });
  } else {
    add("sed", (f) => `sed -n '${a},${b}p' ${f}`);
    add("sed-q", (f) => `sed -n '${a},${b}p;${b}q' ${f}`);
    add("awk", (f) => `awk 'NR>=${a} && NR<=${b}' ${f}`);
    add("awk-open", (f) => `awk 'NR>${a - 1} && NR<${b + 1}' ${f}`);
    add("tail-head", (f) => `tail -n +${a} ${f} | head -n ${n}`);
    add("head-tail", (f) => `head -n ${b} ${f} | tail -n ${n}`);
    add("perl", (f) => `perl -ne 'print if ${a}..${b}' ${f}`);
    add("bat", (f) => `bat --plain --paging=never -r ${a}:${b} ${f}`);
    if (git) add("git-show", (f) => `git show HEAD:${f} | sed -n '${a},${b}p'`);
  }
  L.push({ id: "read-window", tool: "window" });
  return L;
}
/** One spelling of "show lines a..b of p" not used yet (used: a Set of spelling ids). */
function spellRead(r, W, T, p, a, b, used, { git = true, tool = true } = {}) {
  const total = totalOf(W, p);
  const options = spellings(a, b, total, { git }).filter((o) => !used.has(o.id) && (tool || !o.tool));
  if (!options.length) throw new Error(`no spelling left for ${p} ${a}-${b}`);
  const o = r.pick(options);
  used.add(o.id);
  if (o.tool === "all") return T.read(p);
  if (o.tool === "limit") return T.read(p, { limit: b });
  if (o.tool === "window") return T.read(p, { offset: a, limit: b - a + 1 });
  const k = o.id === "git-show" ? 0 : r.int(0, 3);
  const cmd = k === 0 ? o.make(p) : k === 1 ? o.make(`./${p}`) : k === 2 ? o.make(W.abs(p)) : `cd ${path.dirname(p)} && ${o.make(path.basename(p))}`;
  return T.bashLines(cmd, p, a, b, r.pick(a === 1 ? DESC_READ : DESC_NEXT));
}
const wc = (W, T, p) => T.bash(`wc -l ${p}`, `${totalOf(W, p)} ${p}\n`, "Count lines", { sem: { k: "ask", key: `len:${p}`, ans: String(totalOf(W, p)) } });

/** Function names defined in a generated source file, with their line numbers. */
function fnsOf(W, p) {
  const re = { ts: /^export function (\w+)/, py: /^def (\w+)/, go: /^func (\w+)/, rs: /^pub fn (\w+)/ }[W.stack];
  return W.file(p).map((l, i) => [re.exec(l)?.[1], i + 1]).filter(([f]) => f);
}
/** A line of p that appears once in it, is not blank and is not a function header (for an edit). */
function editableLines(W, p, from = 1, to = Infinity) {
  const f = W.file(p);
  const count = new Map();
  for (const l of f) count.set(l, (count.get(l) ?? 0) + 1);
  return f.map((l, i) => [l, i + 1]).filter(([l, n]) => n >= from && n <= to && l.trim().length > 6 && count.get(l) === 1 && !/^(export |def |func |pub fn |import |use |package |from )/.test(l));
}
/** A plausible one-line change of a code line (a new constant, a renamed field, a comment), never the same line. */
function changeLine(r, l, cm = "//") {
  const m = /(\d+)/.exec(l);
  const k = r.int(0, 3);
  if (k === 0 && m) return l.replace(m[1], String(Number(m[1]) + r.int(1, 9) * (r.chance(0.5) ? 1 : 10)));
  if (k === 1 && /\.[a-z]\w*/.test(l)) return l.replace(/\.([a-z]\w*)/, (_, w) => `.${w}${r.pick(["Total", "Value", "Ms", "Cents", "Count"])}`);
  return `${l.replace(/\s+$/, "")} ${cm} ${r.pick(["checked", `see #${r.int(100, 999)}`, "was off by one", "keep: callers depend on it", "normalised"])}`;
}
const commentOf = (W) => (W.stack === "py" ? "#" : "//");

/** A failing test (or build, or lint) in the world: the command, its output and its meaning. */
function failingCheck(r, W, T, { kind = "test", noise = false } = {}) {
  const S = W.S;
  const mod = W.mods[0];
  const src = W.srcOf(mod);
  W.file(src, () => sourceLines(W, src, r.int(50, 110)));
  const [fn, fline] = r.pick(fnsOf(W, src));
  const tfile = W.testOf(mod);
  const name = S.testName(r, fn);
  const exp = r.pick([1200, 1999, 42, 3, 250, 86400, 17]);
  const got = exp + r.pick([1, -1, 50, 100, 7]);
  const passed = r.int(4, 30);
  const line = fline + r.int(2, 6);
  let cmd, out;
  if (kind === "test") {
    cmd = r.pick(S.testCmds(tfile));
    out = (dur) => S.fail({ file: tfile, name, exp, got, src, line, passed, dur });
  } else if (kind === "build") {
    cmd = r.pick([...S.build, ...S.typecheck.slice(0, 1)]);
    out = () => S.buildErr({ src, line, fn });
  } else {
    cmd = r.pick(S.lint);
    const unused = r.pick(FIELDS);
    out = () => S.lintErr({ src, line, fn: unused });
  }
  const fixed = S.dur(r);
  const run = () => T.bash(cmd, out(noise ? S.dur(r) : fixed), kind === "test" ? r.pick(["Run the failing test", "Run the test", "Re-run the test file"]) : kind === "build" ? "Build" : "Lint", { exit: 1, sem: { k: "ask", key: `check:${cmd}`, ans: `${kind}:fail:${name}:${got}` } });
  return { cmd, run, src, fn, fline, tfile, name, exp, got, kind, line };
}

/** Contents for a test file of a module: a few test functions mentioning its functions. */
function testLines(W, tfile, src, n) {
  const rr = rng(hash32(`${W.seed}:${tfile}`));
  const fns = fnsOf(W, src).map(([f]) => f);
  const out = [];
  const mk = (f) => ({
    ts: [`describe('${f}', () => {`, `  it('${rr.pick(["rounds", "caps", "skips empty", "keeps currency"])}', () => {`, `    expect(${f}(${rr.pick(["fixture", "sample", "input"])})).toEqual(${rr.int(1, 2000)})`, "  })", "})", ""],
    py: [`def test_${f}_${rr.pick(["rounds", "caps", "skips_empty", "keeps_currency"])}():`, `    assert ${f}(${rr.pick(["fixture", "sample", "make_input()"])}) == ${rr.int(1, 2000)}`, ""],
    go: [`func Test${cap(f)}${rr.pick(["Rounds", "Caps", "Empty"])}(t *testing.T) {`, `\tif got := ${cap(f)}(sample, 10); got == nil {`, "\t\tt.Fatal(\"nil\")", "\t}", "}", ""],
    rs: ["#[test]", `fn ${f}_${rr.pick(["rounds", "caps", "empty"])}() {`, `    assert_eq!(${f}(&mut sample(), 10).is_ok(), true);`, "}", ""],
  })[W.stack];
  const head = { ts: [`import { describe, it, expect } from 'vitest'`, `import { ${fns.slice(0, 3).join(", ")} } from '../../${src.replace(/\.ts$/, "")}'`, ""], py: ["import pytest", "", `from ${src.replace(/^src\//, "").replace(/\.py$/, "").replace(/\//g, ".")} import ${fns.slice(0, 3).join(", ")}`, ""], go: [`package ${path.basename(path.dirname(src))}`, "", 'import "testing"', ""], rs: ["use app::*;", ""] }[W.stack];
  out.push(...head);
  let i = 0;
  while (out.length < n) out.push(...mk(fns[i++ % Math.max(1, fns.length)] ?? "subject"));
  return out.slice(0, n);
}

/** Some other files of the project (to read): sources of other modules, docs, configs. */
function otherFiles(r, W, k, { exclude = [] } = {}) {
  const names = [];
  const docs = ["README.md", "CONTRIBUTING.md", "docs/architecture.md", "docs/runbook.md", "AGENTS.md", "docs/decisions/0007-retries.md", "docs/api.md"];
  const cfg = { ts: ["package.json", "tsconfig.json", "vitest.config.ts"], py: ["pyproject.toml", "setup.cfg", "tox.ini"], go: ["go.mod", "Makefile", ".golangci.yml"], rs: ["Cargo.toml", "build.rs", "rust-toolchain.toml"] }[W.stack];
  const pool = r.shuffle([
    ...W.mods.slice(1).map((m) => W.srcOf(m, r.pick(W.areas))),
    ...docs, ...cfg,
  ]).filter((p) => !exclude.includes(p) && !W.taken.has(p) && !W.files.has(p));
  for (const p of pool) {
    if (names.length >= k) break;
    if (names.includes(p)) continue;
    W.taken.add(p);
    if (/\.(md)$/.test(p)) W.file(p, () => Array.from({ length: r.int(20, 55) }, (_, i) => mdLine(hash32(`${W.seed}:${p}`), i + 1)));
    else if (/\.(json|toml|ini|cfg|mod|yml)$|Makefile|build\.rs|config\.ts$/.test(p)) W.file(p, () => configLines(W, p, r));
    else W.file(p, () => sourceLines(W, p, r.int(30, 90)));
    names.push(p);
  }
  return names;
}
function configLines(W, p, r) {
  const name = W.proj;
  if (p === "package.json") return ["{", `  "name": "${name}",`, `  "version": "${r.int(0, 4)}.${r.int(0, 20)}.${r.int(0, 9)}",`, '  "type": "module",', '  "scripts": {', '    "build": "tsc -b",', '    "test": "vitest run",', '    "lint": "eslint ."', "  },", '  "dependencies": {', `    "zod": "^3.${r.int(20, 25)}.0",`, `    "pino": "^9.${r.int(0, 9)}.0"`, "  }", "}"];
  if (p.endsWith(".toml")) return ["[project]", `name = "${name}"`, `version = "0.${r.int(1, 30)}.0"`, 'requires-python = ">=3.11"', "", "[tool.pytest.ini_options]", 'addopts = "-q"', "", "[tool.ruff]", `line-length = ${r.pick([88, 100, 120])}`];
  if (p === "go.mod") return [`module github.com/acme/${name}`, "", "go 1.23", "", "require (", `\tgithub.com/jackc/pgx/v5 v5.${r.int(3, 7)}.0`, `\tgo.uber.org/zap v1.${r.int(24, 27)}.0`, ")"];
  return Array.from({ length: r.int(8, 30) }, (_, i) => `${r.pick(["# ", ""])}${r.pick(FIELDS)}: ${r.pick(["true", "false", String(r.int(1, 500)), "\"strict\""])}`.slice(0, 70) + (i ? "" : ""));
}

/** A compaction summary in one of opencode's two templates. */
function summaryText(r, { goal, done = [], found = [], next = [], files = [] }) {
  if (r.chance(0.5)) {
    return [`## Goal\n${goal}`, found.length ? `## Discoveries\n${found.map((x) => `- ${x}`).join("\n")}` : null, done.length ? `## Accomplished\n${done.map((x) => `- ${x}`).join("\n")}` : null, next.length ? `## Next\n${next.map((x) => `- ${x}`).join("\n")}` : null].filter(Boolean).join("\n\n");
  }
  return [`## Objective\n${goal}`, found.length ? `## Important Details\n${found.map((x) => `- ${x}`).join("\n")}` : null, `## Work State\nCompleted: ${done.length ? done.join("; ") : "nothing yet"}\nActive: ${next[0] ?? "-"}\nBlocked: none`, next.length ? `## Next Move\n${next.join("; ")}` : null, files.length ? `## Relevant Files\n${files.map((x) => `- ${x}`).join("\n")}` : null].filter(Boolean).join("\n\n");
}

/**
 * A loop: cycle 1 as the core built it, then cycles 2..n of exact repeats from its pool with the
 * core's varying element put at a random place. Nothing after cycle 1 brings anything new.
 */
function assembleLoop(r, core, { n, reps }) {
  const cycles = [core.c1];
  for (let c = 2; c <= n; c++) {
    const vary = core.vary(c);
    const m = Math.min(core.pool.length, r.int(reps[0], reps[1]));
    let steps = r.sample(core.pool.map((tools, i) => ({ tools, i })), m);
    steps = r.chance(0.6) ? steps.sort((x, y) => x.i - y.i) : steps;
    steps = steps.map(({ tools }) => ({ tools }));
    for (const v of [...vary, ...(core.must ? core.must(c) : [])]) steps.splice(r.int(0, steps.length), 0, v);
    if (steps.length < 2) steps.push({ tools: r.pick(core.pool) });
    const text = core.resume ? core.resume(c) : resumeText(r);
    if (text && !steps[0].text) steps[0] = { ...steps[0], text };
    cycles.push(steps);
  }
  return cycles;
}
const sizeWords = (sizes) => {
  const tr = sizes.map((x) => x[0]), af = sizes.map((x) => x[1]);
  const k = (v) => `${Math.round(v / 1000)}K`;
  const range = (v) => (k(Math.min(...v)) === k(Math.max(...v)) ? `~${k(v[0])}` : `~${k(Math.min(...v))}-${k(Math.max(...v))}`);
  return `compactions bring the context from ${range(tr)} down to ${range(af)} (cuts of ${Math.round(100 * Math.min(...sizes.map(([a, b]) => 1 - b / a)))}% or more)`;
};

// ================================================================ tasks the user asks for (the loops never get there)

function taskOfCheck(r, W, chk) {
  const t = chk.kind === "test"
    ? r.pick([`\`${chk.name}\` in ${chk.tfile} fails since the last merge. Find the cause in ${chk.src} and fix it; keep the other tests green.`, `Fix the failing test ${chk.name} (${chk.tfile}). Don't change the test's expectations.`, `CI is red: ${chk.tfile} has one failing case. Make it pass.`, `Please get \`${chk.cmd}\` passing again; the failure is in ${chk.src}.`])
    : chk.kind === "build"
      ? r.pick([`\`${chk.cmd}\` fails after the dependency bump. Fix the type error in ${chk.src}.`, `The build is broken on main (${chk.src}). Fix it without changing public signatures.`, `Get \`${chk.cmd}\` green again.`])
      : r.pick([`The lint job fails on ${chk.src}. Fix the warning properly (no disable comments).`, `Make \`${chk.cmd}\` pass; CI treats warnings as errors.`, `Clean up the lint error in ${chk.src}.`]);
  const title = chk.kind === "test" ? r.pick([`Fix ${chk.name}`, `Failing test in ${path.basename(chk.tfile)}`, "Fix red CI test"]) : chk.kind === "build" ? r.pick(["Fix the build", `Type error in ${path.basename(chk.src)}`]) : r.pick(["Fix lint", `Lint error in ${path.basename(chk.src)}`]);
  return { prompt: t, title, goal: t.split(". ")[0].replace(/\.$/, ""), next: [chk.kind === "test" ? `Fix ${chk.fn} so that ${chk.name} passes` : `Fix ${chk.fn} in ${chk.src}`] };
}

// ================================================================ loop cores: cycle 1, the pool of exact repeats, the varying element

/** L1: the same lines read by another spelling each cycle; byte-identical output; no effect. */
function coreL1(r, W, T, { single = false } = {}) {
  const chk = failingCheck(r, W, T, { kind: r.pick(["test", "test", "build", "lint"]) });
  const src = chk.src, tf = chk.tfile;
  W.file(tf, () => testLines(W, tf, src, r.int(25, 60)));
  const others = otherFiles(r, W, r.int(2, 4), { exclude: [src, tf] });
  const F = r.chance(0.65) ? src : r.pick([tf, ...others]);
  const total = totalOf(W, F);
  const b = total <= 150 && r.chance(0.5) ? total : Math.min(total, r.int(30, 140));
  const usedF = new Set();
  const firstF = spellRead(r, W, T, F, 1, b, usedF);
  const G = !single && r.chance(0.4) ? r.pick([tf, ...others].filter((p) => p !== F)) : null;
  const usedG = new Set();
  const bG = G ? Math.min(totalOf(W, G), r.int(20, 90)) : 0;
  const firstG = G ? spellRead(r, W, T, G, 1, bG, usedG) : null;
  const c1 = [];
  const pool = [];
  const push = (tools, text, inPool = true) => { c1.push({ tools, ...(text ? { text } : {}) }); if (inPool) pool.push(tools); };
  if (r.chance(0.5)) push([T.glob(`${path.dirname(src)}/*`, [src, ...W.mods.slice(1, r.int(3, 6)).map((m) => W.srcOf(m))])], "Let me look at the code first.");
  const order = r.shuffle(["tf", "F", "others", "check", "G"]);
  for (const o of order) {
    if (o === "tf" && F !== tf && G !== tf) push([T.read(tf)]);
    if (o === "F") {
      push([firstF], null, false);
      if (firstF.tool !== "read") push([wc(W, T, F)]);
    }
    if (o === "G" && G) { push([firstG], null, false); if (firstG.tool !== "read") push([wc(W, T, G)]); }
    if (o === "others") for (const p of others.filter((x) => x !== F && x !== G).slice(0, r.int(1, 3))) push([T.read(p)]);
    if (o === "check") push([chk.run()]);
  }
  const task = taskOfCheck(r, W, chk);
  const spelled = [firstF];
  return {
    c1, pool, task,
    vary: () => {
      const out = [{ tools: [spellRead(r, W, T, F, 1, b, usedF)] }];
      spelled.push(out[0].tools[0]);
      if (G && r.chance(0.6)) out.push({ tools: [spellRead(r, W, T, G, 1, bG, usedG)] });
      return out;
    },
    found: [`${chk.fn} in ${src} around line ${chk.line}`],
    what: () => `lines 1-${b} of ${F} read by another spelling every cycle (${spelled.map((x) => (x.tool === "read" ? `the read tool ${JSON.stringify({ ...x.input, filePath: undefined }).replace(/"filePath":undefined,?/, "")}` : `\`${x.input.command}\``)).join(", ")})${G ? `, and the first ${bG} lines of ${G} the same way in some cycles` : ""}`,
    unit: "read",
  };
}

/** L2: the same file re-read in shifted offset/limit windows inside lines already read. */
function coreL2(r, W, T, { single = false } = {}) {
  const kind = r.pick(["src", "md", "log"]);
  const F = kind === "src" ? W.srcOf(r.pick(W.mods.slice(1)), r.pick(W.areas)) : kind === "md" ? r.pick(["docs/spec.md", "docs/protocol.md", "docs/ops/runbook.md", "MIGRATION.md"]) : r.pick(["logs/worker.log", "logs/app-2026-03-14.log", "var/log/ingest.log"]);
  if (kind === "src") W.file(F, () => sourceLines(W, F, r.int(500, 1400)));
  else bigFile(W, F, kind === "md" ? r.int(400, 2500) : r.int(5000, 60000), kind);
  const total = totalOf(W, F);
  const L = r.int(35, 80);
  const k = r.int(2, 4);
  const R = Math.min(total - 1, k * L);
  const used = new Set();
  const c1 = [], pool = [];
  const push = (tools, text, inPool = true) => { c1.push({ tools, ...(text ? { text } : {}) }); if (inPool) pool.push(tools); };
  const chk = kind === "src" ? failingCheck(r, W, T, { kind: "test" }) : null;
  const others = otherFiles(r, W, r.int(1, 3), { exclude: [F] });
  const task = kind === "log"
    ? { prompt: r.pick([`Find out why ${r.pick(NOUNS)} jobs stall in ${F} and fix the cause.`, `Something in ${F} explains the ${r.pick(ADJ)} ${r.pick(NOUNS)}s reported by support. Find it and fix it.`]), title: "Investigate the log", goal: `Find the cause of the problem in ${F}`, next: [`Read ${F} around the first errors`] }
    : kind === "md"
      ? { prompt: r.pick([`Implement what section 3 of ${F} specifies for ${r.pick(NOUNS)} retries.`, `Bring the code in line with ${F} (the ${r.pick(NOUNS)} part).`]), title: `Implement ${path.basename(F)}`, goal: `Implement the ${F} requirements`, next: [`Finish reading ${F}, then change the code`] }
      : taskOfCheck(r, W, chk);
  if (chk) push([chk.run()]);
  for (const p of others) push([T.read(p)]);
  for (let a = 1; a <= R; a += L) {
    const b = Math.min(R, a + L - 1);
    used.add(`${a}-${b}`);
    push([a === 1 && r.chance(0.5) ? T.read(F, { limit: b }) : T.read(F, { offset: a, limit: b - a + 1 })], a === 1 ? r.pick([`Reading ${F} in pages.`, null]) : null, false);
  }
  const windows = [];
  return {
    c1, pool, task,
    vary: () => {
      const out = [];
      const m = single ? 1 : r.int(1, 2);
      for (let j = 0; j < m; j++) {
        let a, b, key, tries = 0;
        do {
          const l = r.int(Math.max(10, Math.floor(L / 2)), Math.min(R, Math.floor(L * 1.5)));
          a = r.int(1, R - l + 1);
          b = a + l - 1;
          key = `${a}-${b}`;
        } while (used.has(key) && ++tries < 50);
        used.add(key);
        windows.push(key);
        out.push({ tools: [r.chance(0.75) ? T.read(F, { offset: a, limit: b - a + 1 }) : spellRead(r, W, T, F, a, b, new Set(["read-window", "read-limit", "read-all", "git-show"]))] });
      }
      return out;
    },
    found: [`${F} has ${total} lines; lines 1-${R} read`],
    what: () => `${F} (${total} lines) read in pages 1-${R} in cycle 1, then re-read in shifted windows inside those lines (${windows.join(", ")})`,
    unit: "window",
  };
}

/** L3: the same failing check re-run identically each cycle, with a read of a new file between; never an edit. */
function coreL3(r, W, T, { single = false } = {}) {
  const noise = r.chance(0.5);
  const chk = failingCheck(r, W, T, { kind: r.pick(["test", "test", "build", "lint"]), noise });
  const src = chk.src, tf = chk.tfile;
  W.file(tf, () => testLines(W, tf, src, r.int(25, 60)));
  const others = otherFiles(r, W, r.int(1, 3), { exclude: [src, tf] });
  const fresh = otherFiles(r, W, 10, { exclude: [src, tf, ...others] });
  const c1 = [], pool = [];
  const push = (tools, text, inPool = true) => { c1.push({ tools, ...(text ? { text } : {}) }); if (inPool) pool.push(tools); };
  push([T.read(tf)]);
  push([T.read(src)]);
  for (const p of others) push([T.read(p)]);
  const q = chk.run();
  c1.splice(r.int(1, c1.length), 0, { tools: [q] });
  c1.splice(r.int(1, c1.length), 0, { tools: [r.chance(0.7) ? T.read(fresh[0]) : T.bashLines(`cat ${fresh[0]}`, fresh[0], 1, totalOf(W, fresh[0]), "Show the file")] });
  const task = taskOfCheck(r, W, chk);
  let k = 0;
  const readFresh = () => { k++; const p = fresh[k]; return { tools: [r.chance(0.7) ? T.read(p) : T.bashLines(`cat ${p}`, p, 1, totalOf(W, p), "Show the file")] }; };
  const runQ = () => ({ tools: [chk.run()], text: r.chance(0.4) ? r.pick(["Re-running the check to see where it stands.", "Let me run it again.", "Running the failing check again.", null]) : null });
  return {
    c1, pool, task,
    must: single ? () => [runQ()] : null,
    vary: () => (single ? [readFresh()] : [runQ(), readFresh()]),
    repeatQ: q.sem,
    freshPerCycle: 1,
    found: [`\`${chk.cmd}\` fails: ${chk.kind === "test" ? `${chk.name}, got ${chk.got}, want ${chk.exp}` : `${chk.src}:${chk.line}`}`],
    what: () => `\`${chk.cmd}\` re-run every cycle with the same result${noise && chk.kind === "test" ? " (only its duration differs)" : ""}, with one file never read before read between the runs (${fresh.slice(0, k + 1).join(", ")}), and no edit ever`,
    unit: "check",
    chk,
  };
}

// ================================================================ delegation: subagent scenarios and paraphrased reports

const symName = (W, base) => ({ ts: base, py: snake(base), go: cap(base), rs: snake(base) })[W.stack];
/** The successor of a deprecated name: its legacy/old/v1/sync/unsafe marker dropped, a version added. */
function successor(W, sym) {
  const camel = sym.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
  let base = camel.replace(/Legacy|Old|V1|Sync|Unsafe/g, "").replace(/^(legacy|old)/i, "");
  base = base ? base[0].toLowerCase() + base.slice(1) : "value";
  return symName(W, `${base}V2`);
}
/** Puts calls of sym at random lines of some files (and its definition in one): hits [[path, n, text]]. */
function plantCalls(r, W, sym, k, { files } = {}) {
  const targets = files ?? r.sample(W.mods, Math.min(W.mods.length, k)).map((m) => W.srcOf(m, r.pick(W.areas)));
  const hits = [];
  const call = (v, a) => ({ ts: `  const ${v} = ${sym}(${a})`, py: `    ${snake(v)} = ${sym}(${a})`, go: `\t${v}, err := ${sym}(${a})`, rs: `    let ${snake(v)} = ${sym}(&${a})?;` })[W.stack];
  let left = k;
  targets.forEach((p, i) => {
    const f = W.file(p, () => sourceLines(W, p, r.int(40, 120)));
    const here = i === targets.length - 1 ? left : Math.max(1, Math.min(left - (targets.length - 1 - i), r.int(1, 2)));
    const fns = fnsOf(W, p);
    for (let j = 0; j < here && left > 0; j++) {
      const [fn, at0] = r.pick(fns.length ? fns : [["main", 1]]);
      let n = Math.min(f.length, at0 + r.int(1, 4) + j);
      while (hits.some((h) => h.path === p && h.n === n) && n < f.length) n++;
      if (hits.some((h) => h.path === p && h.n === n)) continue;
      let text, tries = 0;
      do text = call(r.pick(FIELDS), r.pick(["req", "input", "ctx", "payload", "row", "event", "msg", "item"]));
      while ((f.includes(text) || hits.some((h) => h.text === text)) && ++tries < 100);
      f[n - 1] = text;
      hits.push({ path: p, n, text: f[n - 1], fn });
      left--;
    }
  });
  hits.sort((a, b) => (a.path === b.path ? a.n - b.n : a.path < b.path ? -1 : 1));
  const uniq = [];
  for (const h of hits) if (!uniq.some((u) => u.path === h.path && u.n === h.n)) uniq.push(h);
  return uniq;
}

/** Renders a list of facts in one of many shapes; the same facts and numbers every time, never the same words twice in a row. */
function paraphraser(r) {
  const seen = new Set();
  return (make) => {
    for (let i = 0; i < 40; i++) {
      const text = make();
      if (!seen.has(text)) { seen.add(text); return text; }
    }
    throw new Error("paraphraser ran out of wordings");
  };
}
/** items: [{ line, prose, cols }] in one format; shape: bullets, numbers, a table, or sentences. */
function listShape(r, items, { intro, outro = [], lead = null }) {
  const shape = r.pick(["dash", "num", "star", "prose", "table", "semicolon"]);
  const body = shape === "dash" ? items.map((x) => `- ${x.line}`).join("\n")
    : shape === "num" ? items.map((x, i) => `${i + 1}. ${x.line}`).join("\n")
      : shape === "star" ? items.map((x) => `* ${x.line}`).join("\n")
        : shape === "table" ? `| ${items[0].cols.map((c) => c[0]).join(" | ")} |\n|${items[0].cols.map(() => "---").join("|")}|\n${items.map((x) => `| ${x.cols.map((c) => c[1]).join(" | ")} |`).join("\n")}`
          : shape === "semicolon" ? `${lead ? `${lead} ` : ""}${items.map((x) => x.prose).join("; ")}.`
            : lead ? `${lead} ${items.map((x) => x.prose).join(", ")}.` : items.map((x) => `${x.prose}.`).join(" ");
  const parts = [intro, body, ...outro].filter(Boolean);
  return r.chance(0.5) ? parts.join("\n\n") : parts.join("\n");
}

/** "Where is sym called?": K call sites (file:line, function), plus 0-2 side facts. */
function scenarioCallers(r, W) {
  const sym = symName(W, r.pick(["legacyAuth", "parseLegacyDate", "oldRound", "fetchUserSync", "getConfigV1", "makeClientOld", "formatMoneyLegacy", "loadSettingsSync", "signRequestV1", "toCentsUnsafe"]));
  const sites = plantCalls(r, W, sym, r.int(4, 9));
  const K = sites.length;
  const tests = `${W.stack === "go" ? "internal" : "tests"}/${r.pick(NOUNS)}_legacy_test.${W.S.src("a", "b").split(".").pop()}`;
  const sides = r.sample([
    { id: "tests-only", say: [`Outside the source tree only ${tests} references it.`, `The only other reference is in ${tests}.`, `${tests} uses it too (tests, not production code).`, `Besides these, ${tests} mentions it.`] },
    { id: "no-dynamic", say: ["No dynamic lookups (string names, reflection) found.", "Nothing calls it indirectly by name.", "I checked for indirect calls by string name: none.", "There are no reflective or string-keyed uses."] },
    { id: "one-def", say: [`It is defined once, in ${sites[0].path}.`, `Its only definition lives in ${sites[0].path}.`, `${sites[0].path} holds the single definition.`, `Defined in ${sites[0].path} (one definition).`] },
  ], r.int(0, 2));
  const prompts = [
    `List every call site of ${sym}() in the source tree, with file:line and the enclosing function.`,
    `Find all callers of ${sym} and report file:line plus the function each call is in.`,
    `Search the code for remaining uses of ${sym}; give the file, line and enclosing function of each.`,
    `Where is ${sym} still called? Return each location as file:line with the name of the function around it.`,
  ];
  const labels = [`find ${sym} callers`, `locate ${sym} usages`, `list ${sym} call sites`, `search ${sym} callers`, `map ${sym} usage`, `${sym} call sites`, `who calls ${sym}`, `inventory ${sym} calls`, `scan for ${sym}`, `trace ${sym} usage`];
  const render = (list, extra = []) => {
    const k = list.length;
    const f = r.int(0, 2), pf = r.int(0, 2), cf = r.int(0, 1);
    const items = r.shuffle(list).map((s) => ({
      line: [`${s.path}:${s.n} (${s.fn})`, `\`${s.fn}\` in ${s.path}, line ${s.n}`, `${s.path} line ${s.n}, within ${s.fn}()`][f],
      prose: [`in ${s.path} at line ${s.n} (inside ${s.fn})`, `line ${s.n} of ${s.path}, in ${s.fn}`, `\`${s.fn}\` calls it (${s.path}:${s.n})`][pf],
      cols: [[["file", s.path], ["line", s.n], ["function", s.fn]], [["location", `${s.path}:${s.n}`], ["enclosing function", s.fn]]][cf],
    }));
    const lead = [r.pick(["It is called", "The calls are", "Callers:", "Used"]), r.pick(["Calls at", "Found at", "Locations:"]), null][pf];
    const intro = r.pick([
      `Found ${k} call sites of \`${sym}()\`:`, `${sym} is still called in ${k} places:`, `There are ${k} callers of ${sym}.`, `Call sites (${k}):`, `${k} places call ${sym}:`,
      `I searched the tree; ${sym} has ${k} callers.`, `Result: ${k} usages.`, `Here are the ${k} locations that invoke ${sym}:`, `${cap(plural(k, "call site"))} in total, listed below.`, `${sym}: ${k} uses.`,
    ]);
    return listShape(r, items, { intro, lead, outro: r.shuffle([...sides, ...extra]).map((x) => r.pick(x.say)) });
  };
  return {
    sym, sites, labels, prompt: r.pick(prompts),
    facts: (list) => [...list.map((s) => `site:${s.path}:${s.n}`), `count:${list.length}`, ...sides.map((x) => x.id)],
    render,
    task: { prompt: r.pick([`Replace every call to the deprecated ${sym}() with its successor (see docs/migration.md), then delete it.`, `${sym} is deprecated. Migrate all callers and remove it.`, `Get rid of ${sym}: move its callers to the new API.`]), title: `Remove ${sym}`, goal: `Migrate every ${sym} caller and delete it` },
    context: sites.slice(0, 2).map((s) => s.path),
  };
}

/** "Why is this endpoint slow?": a query, a table, a missing index, numbers from EXPLAIN. */
function scenarioSlowQuery(r, W) {
  const noun = r.pick(NOUNS);
  const table = `${noun}_${r.pick(["rows", "events", "entries", "items", "lines"])}`;
  const qn = `List${cap(noun)}${r.pick(["Rows", "Page", "ForAccount", "Since"])}`;
  const cols = [r.pick(["account_id", "tenant_id", "owner_id"]), r.pick(["created_at", "updated_at", "posted_at"])];
  const rows = r.pick([12, 41, 87, 230, 9]) ;
  const ms = r.int(1800, 9800);
  const qfile = { ts: `src/db/queries/${noun}.sql`, py: `app/db/queries/${noun}.sql`, go: `internal/store/queries/${noun}.sql`, rs: `migrations/queries/${noun}.sql` }[W.stack];
  const endpoint = `GET /v1/${noun}s`;
  const idx = `${table}_${cols[0].replace("_id", "")}_${cols[1].replace("_at", "")}_idx`;
  const F = [
    { id: "query", say: [`the slow query is ${qn} (${qfile})`, `${qn} in ${qfile} is the culprit`, `${endpoint} spends its time in ${qn} (${qfile})`, `it's ${qn}, defined in ${qfile}`] },
    { id: "scan", say: [`EXPLAIN shows a Seq Scan on ${table} (${rows}M rows)`, `the plan is a sequential scan over all ${rows}M rows of ${table}`, `Postgres scans ${table} sequentially (${rows}M rows)`, `EXPLAIN ANALYZE: Seq Scan on ${table}, ${rows}M rows`] },
    { id: "sort", say: ["the ORDER BY spills to disk (Sort Method: external merge)", "sorting happens on disk: external merge", "Sort Method: external merge, i.e. an on-disk sort", "the sort cannot fit in work_mem and goes external"] },
    { id: "index", say: [`no index covers (${cols.join(", ")})`, `(${cols.join(", ")}) has no composite index`, `only the primary key is indexed; nothing on (${cols.join(", ")})`, `the filter and sort columns (${cols.join(", ")}) lack an index`] },
    { id: "timing", say: [`p95 is ${fmtN(ms)} ms for the largest accounts`, `the largest accounts see ${fmtN(ms)} ms at p95`, `${fmtN(ms)} ms p95 on big tenants`, `big accounts: ${fmtN(ms)} ms (p95)`] },
    { id: "fix", say: [`fix: CREATE INDEX CONCURRENTLY ${idx} ON ${table} (${cols.join(", ")})`, `add ${idx} on (${cols.join(", ")}), built concurrently`, `a concurrent index ${idx} (${cols.join(", ")}) would fix it`, `recommend ${idx} ON ${table}(${cols.join(", ")}), CONCURRENTLY`] },
  ];
  const render = () => {
    const facts = r.shuffle(F).map((f) => r.pick(f.say));
    const shape = r.pick(["prose", "bullets", "summary", "kv"]);
    if (shape === "prose") return facts.map((x) => `${capSafe(x)}.`).join(" ");
    if (shape === "bullets") return `${r.pick(["Findings:", "What I found:", "", "Root cause analysis:"])}\n${facts.map((x) => `- ${capSafe(x)}`).join("\n")}`.trim();
    if (shape === "summary") return `${r.pick(["Summary", "In short", "TL;DR", "Result"])}: ${facts[0]}. ${facts.slice(1).map((x) => `${capSafe(x)}.`).join(" ")}`;
    return facts.map((x, i) => `${["Cause", "Evidence", "Plan", "Sort", "Index", "Latency"][i]}: ${x}`).join("\n");
  };
  return {
    labels: ["find slow query", `profile ${endpoint}`, `investigate ${noun} latency`, "explain the slow endpoint", `${noun} query analysis`, "root-cause the timeout", "check query plans", `why is ${endpoint} slow`, "look at EXPLAIN", "find the missing index"],
    prompt: r.pick([`Find which query makes ${endpoint} slow for large accounts. Report the query, the table, what index is missing, and your evidence (EXPLAIN output).`, `${endpoint} times out for our biggest accounts. Identify the slow query and the missing index; include EXPLAIN evidence.`]),
    facts: () => F.map((f) => f.id),
    render,
    task: { prompt: r.pick([`${endpoint} times out for large accounts. Find the slow query, add the fix as a migration, and write it up in docs/incidents/.`, `Fix the ${endpoint} timeout (big tenants) and document the root cause.`]), title: `${endpoint} timeout`, goal: `Fix the ${endpoint} timeout` },
    context: [qfile],
    files: { [qfile]: [`-- name: ${qn} :many`, `SELECT id, ${cols[0]}, ${cols[1]}, payload`, `FROM ${table}`, `WHERE ${cols[0]} = $1 AND ${cols[1]} > $2`, `ORDER BY ${cols[1]}`, "LIMIT $3;"] },
  };
}

/** "Why does this test fail?": the test, expected and actual values, the function and line, the cause. */
function scenarioTestDiag(r, W, T) {
  const chk = failingCheck(r, W, T, { kind: "test" });
  const fnx = `\`${chk.fn}\``;
  const tn = `\`${chk.name}\``;
  const cause = r.pick([
    [`${fnx} rounds before applying the discount`, `in ${fnx}, rounding happens before the discount is applied`, `${fnx} applies the discount to an already-rounded value`],
    [`${fnx} uses the host's time zone instead of UTC`, `${fnx} converts with the local zone rather than UTC`, `the date math in ${fnx} ignores UTC`],
    [`${fnx} counts the end of the range inclusively`, `the upper bound in ${fnx} is inclusive where it should be exclusive`, `${fnx} has an off-by-one: the range end is included`],
    [`${fnx} drops the currency when merging`, `the merge in ${fnx} loses the currency field`, `${fnx} does not carry the currency over`],
  ]);
  const F = [
    { id: "test", say: [`${tn} fails`, `the failing case is ${tn}`, `${tn} is the one that breaks`, `only ${tn} fails`] },
    { id: "values", say: [`it expects ${chk.exp} but gets ${chk.got}`, `expected ${chk.exp}, actual ${chk.got}`, `${chk.got} comes back where ${chk.exp} is expected`, `the assertion wants ${chk.exp} and sees ${chk.got}`] },
    { id: "where", say: [`the bug is in ${fnx} (${chk.src}:${chk.line})`, `${chk.src}:${chk.line}, in ${fnx}, is where it goes wrong`, `look at ${fnx}, line ${chk.line} of ${chk.src}`, `${fnx} at ${chk.src}:${chk.line} is responsible`] },
    { id: "cause", say: cause },
  ];
  return {
    labels: ["diagnose failing test", `why ${chk.name} fails`, "debug the test failure", "find the failing assertion", `investigate ${path.basename(chk.tfile)}`, "root-cause test failure", "analyze test output", "trace the wrong value"],
    prompt: r.pick([`Run ${chk.cmd} and find out why it fails. Report the failing test, expected vs actual, and the function and line responsible.`, `Diagnose the failure in ${chk.tfile}: which test, which values, which line of ${chk.src} is to blame, and why.`]),
    facts: () => F.map((f) => f.id),
    render: () => {
      const facts = r.shuffle(F).map((f) => r.pick(f.say));
      const shape = r.pick(["prose", "bullets", "labelled"]);
      if (shape === "prose") return facts.map((x) => `${capSafe(x)}.`).join(" ");
      if (shape === "bullets") return `${r.pick(["Diagnosis:", "Here is what's going on:", "", "Findings"])}\n${facts.map((x) => `- ${capSafe(x)}`).join("\n")}`.trim();
      return facts.map((x, i) => `${["1)", "2)", "3)", "4)"][i]} ${capSafe(x)}`).join("\n");
    },
    task: taskOfCheck(r, W, chk),
    context: [chk.tfile, chk.src],
    chk,
  };
}

/** L4: the same task prompt (modulo its label) handed to a read-only subagent each cycle; its report paraphrased, same facts. */
function coreL4(r, W, T, { single = false } = {}) {
  const kind = r.pick(["callers", "slow", "diag"]);
  const sc = kind === "callers" ? scenarioCallers(r, W) : kind === "slow" ? scenarioSlowQuery(r, W) : scenarioTestDiag(r, W, T);
  for (const [p, body] of Object.entries(sc.files ?? {})) W.files.set(p, body);
  const say = paraphraser(r);
  const report = () => say(() => (kind === "callers" ? sc.render(sc.sites) : sc.render()));
  const facts = kind === "callers" ? sc.facts(sc.sites) : sc.facts();
  const labels = r.shuffle(sc.labels);
  let n = 0;
  const ask = () => T.task(labels[n++ % labels.length], sc.prompt, report(), facts, "explore");
  const others = otherFiles(r, W, r.int(1, 3), { exclude: sc.context });
  const c1 = [], pool = [];
  const push = (tools, text, inPool = true) => { c1.push({ tools, ...(text ? { text } : {}) }); if (inPool) pool.push(tools); };
  for (const p of r.shuffle([...sc.context, ...others])) push([T.read(p)]);
  c1.splice(r.int(1, c1.length), 0, { tools: [ask()], text: r.pick(["I'll have a subagent look into this.", "Delegating the search to an explore agent.", null, "Let me get a subagent to map this out."]) });
  if (kind === "callers" && r.chance(0.5)) push([T.grep(`${sc.sym}\\(`, r.pick(["src", null, "."]), sc.sites.map((x) => [x.path, x.n, x.text]))]);
  const descs = [];
  return {
    c1, pool, task: { ...sc.task, next: [sc.task.goal] },
    vary: () => { const a = ask(); descs.push(a.input.description); return [{ tools: [a], text: r.chance(0.5) ? r.pick(["Let me have the subagent confirm before I change anything.", "Asking the explore agent again to be sure.", "Double-checking with a subagent.", "One more pass by the subagent."]) : null }]; },
    found: [`the subagent reported ${kind === "callers" ? `${sc.sites.length} call sites of ${sc.sym}` : kind === "slow" ? "the slow query and the missing index" : `why ${sc.chk.name} fails`}`],
    what: () => `the same prompt sent to an explore subagent every cycle (labels ${[labels[0], ...descs].map((d) => `"${d}"`).join(", ")}), a new child session each time, its report in new words and a new order with the same facts and numbers`,
    unit: "delegation",
  };
}

// ================================================================ search: results (web pages, code, MCP hits) and their phrasings

const LIBS = {
  ts: [["vite", "ssr.noExternal", "SSR externals"], ["prisma", "connection_limit", "connection pool"], ["vitest", "pool: 'forks'", "test isolation"], ["esbuild", "mainFields", "module resolution"], ["zod", "z.coerce", "coercion"]],
  py: [["pydantic", "model_config", "validation"], ["sqlalchemy", "expire_on_commit", "session lifecycle"], ["celery", "acks_late", "task retries"], ["pytest-asyncio", "asyncio_mode", "event loop scope"], ["fastapi", "response_model_exclude_none", "serialization"]],
  go: [["pgx", "pool_max_conns", "connection pooling"], ["gorm", "PrepareStmt", "prepared statements"], ["cobra", "SilenceUsage", "error handling"], ["grpc-go", "keepalive.ClientParameters", "keepalive"], ["testify", "require.Eventually", "flaky assertions"]],
  rs: [["tokio", "spawn_blocking", "blocking in async"], ["serde", "#[serde(default)]", "missing fields"], ["sqlx", "max_connections", "pool exhaustion"], ["axum", "DefaultBodyLimit", "request size"], ["clap", "value_parser!", "argument parsing"]],
};
const ERRS = {
  ts: ["Cannot use import statement outside a module", "ERR_REQUIRE_ESM", "ETIMEDOUT", "unexpected end of JSON input", "Maximum call stack size exceeded", "connection pool timed out"],
  py: ["RuntimeError: Event loop is closed", "QueuePool limit of size 5 overflow 10 reached", "field required", "DetachedInstanceError", "Task got bad yield", "ConnectionResetError"],
  go: ["context deadline exceeded", "too many clients already", "context canceled", "conn busy", "SSL SYSCALL error: EOF detected", "http: request body too large"],
  rs: ["future cannot be sent between threads safely", "missing field `currency`", "pool timed out while waiting for an open connection", "length limit exceeded", "cannot start a runtime from within a runtime"],
};
const SUBS = { ts: ["typescript", "node", "webdev"], py: ["python", "django", "learnpython"], go: ["golang", "devops"], rs: ["rust", "learnrust"] };

function webWorld(r, W, n) {
  const [lib, opt, topic] = r.pick(LIBS[W.stack]);
  const err = r.pick(ERRS[W.stack]);
  const org = r.pick(["acme", lib, `${lib}-dev`, `${lib}js`, "community"]);
  const repo = lib.replace(/[^a-z-]/g, "");
  const ver = `${r.int(1, 6)}.${r.int(0, 12)}`;
  const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 70);
  const makers = [
    () => { const t = `${cap(lib)}: ${err}`; return { title: `${t} - Stack Overflow`, url: `https://stackoverflow.com/questions/${r.int(70000000, 79999999)}/${slug(t)}`, text: `${r.pick(["Accepted answer:", "Answer (312 votes):", "Top answer:"])} set ${opt} ${r.pick(["explicitly", "in the config", "per environment"])}; the default changed in ${ver}.` }; },
    () => { const nr = r.int(800, 19999); const t = `${err} with ${topic}`; return { title: `${t} · Issue #${nr} · ${org}/${repo}`, url: `https://github.com/${org}/${repo}/issues/${nr}`, text: `Since ${ver} ${topic} ${r.pick(["behaves differently", "is stricter", "defaults changed"])}. Workaround: ${opt}.` }; },
    () => ({ title: `${cap(topic)} | ${cap(lib)} docs`, url: `https://${repo}.dev/docs/${slug(topic)}`, text: `${opt}: ${r.pick(["controls", "configures", "overrides"])} ${topic}. Default: ${r.pick(["false", "10", "auto", "none"])}.` }),
    () => ({ title: `Release v${ver}.0 · ${org}/${repo}`, url: `https://github.com/${org}/${repo}/releases/tag/v${ver}.0`, text: `BREAKING: ${topic} ${r.pick(["now defaults to strict", "changed its default", "was reworked"])}; set ${opt} to keep the old behaviour.` }),
    () => { const t = `Debugging ${topic} in ${lib}`; return { title: `${t} | ${r.pick(["dev.to", "Medium", "a blog"])}`, url: `https://${r.pick(["dev.to/", "medium.com/@", "blog.example.dev/"])}${r.pick(USERS)}/${slug(t)}-${r.int(100, 999)}`, text: `${err}? Check ${opt}. It took us a day to find.` }; },
    () => { const nr = r.int(100, 9999); return { title: `${cap(topic)} and ${err} · ${org}/${repo} · Discussion #${nr}`, url: `https://github.com/${org}/${repo}/discussions/${nr}`, text: `Maintainer: this is expected since ${ver}; use ${opt}.` }; },
    () => ({ title: `${cap(lib)} ${topic} configuration reference`, url: `https://${repo}.dev/reference/${slug(opt)}`, text: `Reference for ${opt}, with examples.` }),
    () => { const t = `${err} in production`; const sub = r.pick(SUBS[W.stack]); return { title: `r/${sub} - ${t}`, url: `https://www.reddit.com/r/${sub}/comments/${r.int(100000, 999999).toString(36)}/${slug(t)}/`, text: `Same here, ${opt} fixed it.` }; },
  ];
  const code = () => { const f = `${r.pick(["src", "lib", "internal", "pkg"])}/${r.pick(NOUNS)}.${W.S.src("a", "b").split(".").pop()}`; const ln = r.int(5, 400); return { title: `${org}/${r.pick(["app", "server", "api", "worker", repo])} — ${f}`, url: `https://github.com/${org}/${r.pick(["app", "server", "api", "worker"])}${r.int(1, 99)}/blob/main/${f}#L${ln}`, text: `// ${topic}\n${opt.includes("(") || opt.includes("!") ? opt : `${opt} = ${r.pick(["true", "10", "\"auto\""])}`}\n${r.pick(["client.connect()", "app.listen(port)", "run(config)", "spawn(task)"])}` }; };
  const items = [];
  const urls = new Set();
  while (items.length < n) { const it = r.chance(W.codeSearch ? 0.8 : 0) ? code() : r.pick(makers)(); if (!urls.has(it.url)) { urls.add(it.url); items.push(it); } }
  const ctx = { lib, opt, topic, err, ver };
  const T = [
    (c) => `${c.lib} ${c.err}`, (c) => `"${c.err}" ${c.lib}`, (c) => `${c.lib} ${c.opt}`, (c) => `how to set ${c.opt} in ${c.lib}`, (c) => `fix ${c.err} ${c.lib}`,
    (c) => `${c.lib} ${c.topic} example`, (c) => `${c.topic} ${c.err}`, (c) => `${c.lib} ${c.ver} breaking changes ${c.topic}`, (c) => `${c.err} after upgrading ${c.lib}`, (c) => `${c.opt} not working ${c.lib}`,
    (c) => `${c.lib} docs ${c.topic}`, (c) => `${c.lib} ${c.ver} ${c.err}`, (c) => `${c.lib} ${c.topic} ${c.err} workaround`, (c) => `why does ${c.lib} throw ${c.err}`, (c) => `${c.topic} default changed ${c.lib} ${c.ver}`,
    (c) => `${c.lib} ${c.opt} example config`, (c) => `${c.err} ${c.topic}`, (c) => `${c.lib} github issue ${c.err}`, (c) => `${c.opt} ${c.lib} ${c.ver}`, (c) => `${c.lib} ${c.topic} best practice`,
    (c) => `${c.lib} "${c.opt}"`, (c) => `${c.err} ${c.lib} stackoverflow`, (c) => `${c.lib} ${c.topic} migration guide`, (c) => `${c.lib} ${c.err} ${c.opt}`, (c) => `resolve ${c.err} in ${c.lib} ${c.ver}`,
    (c) => `${c.topic} ${c.lib} ${c.opt}`, (c) => `${c.lib}: ${c.err}`, (c) => `${c.lib} ${c.topic} settings`, (c) => `${c.err} ${c.lib} ${c.topic} ${c.ver}`, (c) => `${c.lib} release notes ${c.ver}`,
  ];
  const queries = r.shuffle(T).map((f) => f(ctx));
  let qi = 0;
  return { items, ctx, nextQuery: () => { if (qi >= queries.length) throw new Error("out of phrasings"); return queries[qi++]; } };
}
/** The family of a search tool, as one function (query, items) -> spec. */
function searchTool(r, W, T) {
  const fam = r.pick(["web", "code", "mcp", "web"]);
  if (fam === "web") return { fam, call: (q, items) => T.websearch(q, items) };
  if (fam === "code") { W.codeSearch = true; const tn = r.pick([undefined, 3000, 5000, 8000]); return { fam, call: (q, items) => T.codesearch(q, items, tn) }; }
  const [name, key, extra] = r.pick([["docs_search", "query", {}], ["kb_search", "query", { limit: 5 }], ["github_search_issues", "q", {}], ["sourcegraph_search", "query", { count: 10 }], ["exa_web_search", "query", { numResults: 8 }], ["brave_search", "q", {}]]);
  return { fam: "mcp", name, call: (q, items) => T.mcpSearch(name, { [key]: q, ...extra }, items) };
}

/** Equivalent spellings of "find the calls of sym" (grep tool, rg, grep -rn, git grep), each returning the same hits or a subset by path. */
function grepFamily(r, W, T, sym, hits) {
  const pats = r.shuffle([`${sym}\\(`, `${sym}\\s*\\(`, `\\b${sym}\\(`, `${sym}[(]`, `\\b${sym}\\s*\\(`, `${sym}\\(.*`, `(${sym})\\(`, `\\b${sym}\\b\\(`]);
  const dirs = [...new Set(hits.map((h) => path.dirname(h[0])))];
  const top = hits[0][0].split("/")[0];
  let i = 0;
  const used = new Set();
  return (full) => {
    for (let tries = 0; tries < 200; tries++) {
      const pat = pats[i++ % pats.length];
      const dir = full || dirs.length < 2 || r.chance(0.4) ? r.pick([top, ".", null, top]) : r.pick(dirs);
      const sub = dir && dir !== "." && dir !== top ? hits.filter((h) => h[0].startsWith(`${dir}/`)) : hits;
      const how = r.pick(["grep", "grep", "rg", "grep -rn", "git grep"]);
      const key = `${how}|${pat}|${dir}`;
      if (used.has(key) || !sub.length) continue;
      used.add(key);
      if (how === "grep") {
        const files = r.shuffle([...new Set(sub.map((h) => h[0]))]);
        const ordered = files.flatMap((f) => sub.filter((h) => h[0] === f));
        const inc = r.chance(0.3) ? { include: `*.${W.S.src("a", "b").split(".").pop()}` } : {};
        return T.grep(pat, dir && dir !== "." ? dir : null, ordered, inc);
      }
      const where = dir ?? ".";
      const ordered = how === "rg" ? [...sub].sort((a, b) => (a[0] === b[0] ? a[1] - b[1] : a[0] < b[0] ? -1 : 1)) : r.shuffle([...new Set(sub.map((h) => h[0]))]).flatMap((f) => sub.filter((h) => h[0] === f));
      const cmd = how === "rg" ? `rg -n '${pat}' ${where}` : how === "grep -rn" ? `grep -rnE '${pat.replace(/\\s/g, "[[:space:]]").replace(/\\b/g, "\\b")}' ${where}` : `git grep -nE '${pat.replace(/\\s/g, "[[:space:]]")}' -- ${where}`;
      return T.rg(cmd, ordered, "Search for the calls", { prefix: where === "." && how !== "git grep" ? "./" : "" });
    }
    throw new Error("grep family: out of spellings");
  };
}

/** L5: a search asked in new words whose results are all already seen, interleaved with exact repeats. */
function coreL5(r, W, T, { single = false } = {}) {
  const c1 = [], pool = [];
  const push = (tools, text, inPool = true) => { c1.push({ tools, ...(text ? { text } : {}) }); if (inPool) pool.push(tools); };
  const asked = [];
  if (r.chance(0.3)) {
    const sym = symName(W, r.pick(["retryPolicy", "legacyTimeout", "computeTaxV1", "flushBuffer", "readCursor", "buildHeaders"]));
    const sites = plantCalls(r, W, sym, r.int(5, 10));
    const hits = sites.map((x) => [x.path, x.n, x.text]);
    const next = grepFamily(r, W, T, sym, hits);
    const others = otherFiles(r, W, r.int(1, 2), { exclude: sites.map((x) => x.path) });
    for (const p of others) push([T.read(p)]);
    const first = next(true);
    asked.push(first);
    c1.splice(r.int(0, c1.length), 0, { tools: [first], text: r.pick([`Let me find every use of ${sym}.`, null]) });
    pool.push([first]);
    if (r.chance(0.6)) { const again = next(true); asked.push(again); push([again]); }
    return {
      c1, pool,
      task: { prompt: r.pick([`${sym} must take a context argument now. Update every call site, then run the tests.`, `Rename ${sym} (it was misnamed) and update its callers.`]), title: `Update ${sym} callers`, goal: `Update every ${sym} call site`, next: [`Edit the ${hits.length} call sites`] },
      vary: () => { const out = []; for (let j = 0; j < (single ? 1 : r.int(1, 2)); j++) { const x = next(false); asked.push(x); out.push({ tools: [x] }); } return out; },
      found: [`${sym} is called at ${hits.length} places in ${new Set(hits.map((h) => h[0])).size} files`],
      what: () => `the same search for ${sym}'s calls spelled anew each cycle (${asked.map((x) => (x.tool === "grep" ? `grep tool ${JSON.stringify(x.input.pattern)}${x.input.path ? ` in ${W.rel(x.input.path)}` : ""}` : `\`${x.input.command}\``)).join(", ")}), every hit one of the ${hits.length} seen in cycle 1 (some in another order, some a subset by folder)`,
      unit: "search",
    };
  }
  const st = searchTool(r, W, T);
  const P = r.int(5, 9);
  const ww = webWorld(r, W, P);
  const items = ww.items;
  const nq = r.int(2, 4);
  const groups = Array.from({ length: nq }, () => []);
  r.shuffle(items).forEach((it, i) => groups[i % nq].push(it));
  for (const g of groups) while (g.length < 2) g.push(r.pick(items.filter((x) => !g.includes(x))));
  const others = otherFiles(r, W, r.int(1, 2));
  for (const p of others) push([T.read(p)]);
  groups.forEach((g, i) => { const s = st.call(ww.nextQuery(), r.shuffle(g)); asked.push(s); c1.splice(r.int(0, c1.length), 0, { tools: [s], text: i === 0 ? r.pick(["Let me look this up.", "Searching for this error.", null]) : null }); pool.push([s]); });
  if (st.fam !== "code" && r.chance(0.5)) {
    const it = r.pick(items);
    push([T.webfetch(it.url, `# ${it.title}\n\n${it.text}\n\n${lines(r.int(3, 8), () => r.pick([`Set \`${ww.ctx.opt}\` in your config.`, `This changed in ${ww.ctx.ver}.`, `See also the ${ww.ctx.topic} guide.`, `\`\`\`\n${ww.ctx.opt}\n\`\`\``]))}`)]);
  }
  const cfg = [{ ts: "vite.config.ts", py: "pyproject.toml", go: "internal/config/config.go", rs: "Cargo.toml" }[W.stack]];
  return {
    c1, pool,
    task: { prompt: r.pick([`We get "${ww.ctx.err}" from ${ww.ctx.lib} since upgrading to ${ww.ctx.ver}. Find the right fix and apply it in ${cfg[0]}.`, `${ww.ctx.lib} ${ww.ctx.ver} broke our ${ww.ctx.topic}: "${ww.ctx.err}". Look up the proper fix and apply it.`]), title: `${ww.ctx.lib}: ${ww.ctx.err}`.slice(0, 60), goal: `Fix "${ww.ctx.err}" from ${ww.ctx.lib}`, next: [`Set ${ww.ctx.opt} in ${cfg[0]}`] },
    vary: () => {
      const out = [];
      for (let j = 0; j < (single ? 1 : r.int(1, 2)); j++) {
        const s = st.call(ww.nextQuery(), r.sample(items, r.int(2, Math.min(5, P))));
        asked.push(s);
        out.push({ tools: [s] });
      }
      return out;
    },
    found: [`${ww.ctx.lib} ${ww.ctx.ver} changed ${ww.ctx.topic}; ${ww.ctx.opt} is the documented fix`],
    what: () => `${st.fam === "mcp" ? `the MCP tool ${st.name}` : st.fam === "code" ? "codesearch" : "websearch"} asked new phrasings each cycle (${asked.slice(nq).map((x) => `"${x.input.query ?? x.input.q}"`).join(", ")}, after the ${nq} of cycle 1) whose results are all among the ${P} pages of cycle 1, in another order or a subset`,
    unit: "search",
  };
}

/** L6: an effect that writes what is already written: the same notes under a new timestamped name, the same edit re-applied, the same file re-written, the same sed re-run. */
function coreL6(r, W, T, { single = false } = {}) {
  const variant = r.pick(["notes", "notes", "reedit", "rewrite", "sed"]);
  const chk = failingCheck(r, W, T, { kind: "test" });
  const src = chk.src, tf = chk.tfile;
  W.file(tf, () => testLines(W, tf, src, r.int(25, 60)));
  const others = otherFiles(r, W, r.int(1, 3), { exclude: [src, tf] });
  const c1 = [], pool = [];
  const pre = (tools, text) => c1.push({ tools, ...(text ? { text } : {}) });
  const post = (tools, text) => { c1.push({ tools, ...(text ? { text } : {}) }); pool.push(tools); };
  const task = taskOfCheck(r, W, chk);
  let vary, what;
  // the sed variant's old name sits in real lines of the files (planted before anything is read)
  const from = symName(W, r.pick(["amountCents", "legacyRound", "oldTimeout", "fetchV1", "toCentsUnsafe"]));
  const to = successor(W, from);
  const sedHits = variant === "sed" ? plantCalls(r, W, from, r.int(3, 6), { files: [src, ...W.mods.slice(1, r.int(3, 5)).map((m) => W.srcOf(m))] }) : [];
  for (const p of r.shuffle([tf, src, ...others.slice(0, 1)])) pre([T.read(p)]);
  pre([chk.run()]);
  if (variant === "notes") {
    const topic = r.pick(["analysis", "investigation", "findings", "root-cause", "notes", "debug-log"]);
    const dir = r.pick(["notes", "docs/notes", ".scratch", "tmp/agent", ".opencode/notes"]);
    const d0 = new Date(Date.UTC(2026, r.int(0, 11), r.int(1, 28), r.int(8, 18), r.int(0, 59)));
    const scheme = r.int(0, 2);
    let t0 = d0.getTime();
    const stamps = [];
    const stamp = (k) => {
      while (stamps.length <= k) { t0 += r.int(12, 40) * 60000; stamps.push(new Date(t0).toISOString()); }
      const iso = stamps[k];
      return scheme === 0 ? iso.slice(0, 16).replace(/[:]/g, "-") : scheme === 1 ? `${iso.slice(0, 10).replace(/-/g, "")}-${iso.slice(11, 16).replace(":", "")}` : String(Math.floor(Date.parse(iso) / 1000));
    };
    const style = r.pick([0, 1, 2]);
    const nameOf = (k) => `${dir}/${topic}-${stamp(k)}.md`;
    const content = `# ${cap(topic.replace("-", " "))}: ${chk.name}\n\n## Symptom\n- \`${chk.cmd}\` fails: expected ${chk.exp}, got ${chk.got}.\n\n## Where\n- ${chk.fn} in ${src}, around line ${chk.line}.\n- Called from ${tf}.\n\n## Hypothesis\n- ${r.pick(["Rounding happens before the discount.", "An off-by-one at the end of the range.", "The default limit changed.", "The currency is dropped on merge."])}\n\n## Next\n- Change ${chk.fn}, re-run the test.\n`;
    const writeAt = (k, exists = false) => (style === 0 ? T.write(nameOf(k), content, { exists })
      : { ...T.bash(`mkdir -p ${dir} && cat > ${nameOf(k)} <<'EOF'\n${content}EOF`, "", "Save the analysis"), sem: { k: "effect", key: `content#${digest(content)}`, ok: true }, changes: true });
    const names = [];
    let k = 0;
    const w0 = writeAt(k); names.push(nameOf(k));
    pre([w0], r.pick(["Writing down what I found so far.", "Saving the analysis before I change anything.", null]));
    W.file(nameOf(0), () => content.replace(/\n$/, "").split("\n"));
    vary = () => { k++; const w = writeAt(k); names.push(nameOf(k)); return [{ tools: [w], text: r.chance(0.4) ? r.pick(["Recording the analysis.", "Let me write the findings down.", "Saving my notes."]) : null }]; };
    what = () => `the same analysis (${content.split("\n").length} lines) written to a new timestamped file every cycle (${names.join(", ")}) by ${style === 0 ? "the write tool" : "a shell heredoc"}`;
  } else if (variant === "reedit") {
    const [oldLine] = r.pick(editableLines(W, src));
    const newLine = changeLine(r, oldLine, commentOf(W));
    const e = T.edit(src, oldLine, newLine);
    pre([e], r.pick([`Fixing ${chk.fn}.`, null]));
    post([T.read(src)]);
    vary = () => [{ tools: [T.editNotFound(src, oldLine, newLine)], text: r.chance(0.5) ? r.pick([`Applying the fix to ${chk.fn}.`, "Making the change now.", "Let me apply the fix."]) : null }];
    what = () => `the edit of ${src} made in cycle 1 sent again every cycle (same oldString and newString), each time failing with "Could not find oldString in the file" because it is already applied`;
  } else if (variant === "rewrite") {
    const target = r.pick([`${path.dirname(src)}/${r.pick(["helpers", "rounding", "constants", "guards"])}.${src.split(".").pop()}`, `docs/${r.pick(["design", "plan", "fix"])}-${chk.fn}.md`]);
    const body = target.endsWith(".md") ? `# Fix plan for ${chk.fn}\n\n1. ${r.pick(["Round once, at the end.", "Make the range end exclusive.", "Keep the currency on merge."])}\n2. Re-run ${chk.cmd}.\n` : `${sourceLines(W, target, r.int(12, 30)).join("\n")}\n`;
    pre([T.write(target, body)], r.pick(["Adding the helper first.", null]));
    vary = () => [{ tools: [T.write(target, body, { exists: true })] }];
    what = () => `${target} written again every cycle with exactly the content it already has`;
  } else {
    const files = [...new Set(sedHits.map((h) => h.path))];
    const cmd = r.pick([`sed -i 's/${from}/${to}/g' ${files.join(" ")}`, `sed -i -e 's/\\b${from}\\b/${to}/g' ${files.join(" ")}`, `grep -rl '${from}' ${[...new Set(files.map((f) => path.dirname(f)))].join(" ")} | xargs sed -i 's/${from}/${to}/g'`]);
    const sedRun = () => ({ ...T.bash(cmd, "", "Rename across the files"), sem: { k: "effect", key: `sed:${cmd}`, ok: true }, changes: true });
    pre([T.rg(`grep -rn '${from}' ${[...new Set(files.map((f) => path.dirname(f)))].join(" ")}`, sedHits.map((h) => [h.path, h.n, h.text]), "Find the old name")]);
    pre([sedRun()], r.pick([`Renaming ${from} to ${to}.`, null]));
    for (const f of files) W.files.set(f, W.file(f).map((l) => l.split(from).join(to)));
    post([T.bash(`grep -rn '${from}' ${[...new Set(files.map((f) => path.dirname(f)))].join(" ")}`, "", "Check nothing is left", { exit: 1, sem: { k: "ask", key: `grep:${from}`, ans: "none" } })]);
    post([T.bash("git diff --stat", `${files.map((f) => ` ${f} | 2 +-`).join("\n")}\n ${plural(files.length, "file")} changed, ${files.length} insertions(+), ${files.length} deletions(-)\n`, "What changed", { sem: { k: "ask", key: "diffstat", ans: digest(files.join()) } })]);
    vary = () => [{ tools: [sedRun()] }];
    what = () => `\`${cmd}\` (already applied in cycle 1) run again every cycle, with no output and nothing left to change`;
  }
  post([chk.run()]);
  for (const p of r.sample([tf, ...others], r.int(1, 2))) post([T.read(p)]);
  if (variant !== "reedit" && r.chance(0.5)) post([T.read(src)]);
  return { c1, pool, task, vary, found: [`${chk.fn} in ${src} causes ${chk.name} to fail`], what, unit: "effect" };
}

/** L7: mostly exact repeats (same input, same output) plus ONE varying element of one of L1-L6. */
const SUBCORES = { L1: coreL1, L2: coreL2, L3: coreL3, L4: coreL4, L5: coreL5, L6: coreL6 };

const WHY_UNIT = {
  read: "a read brings new information only when its answer holds lines not already seen, whatever its spelling",
  window: "every window's lines were already read in cycle 1, so a shifted offset or limit shows nothing new",
  delegation: "the report says the same things in other words: no fact, name or number it did not state before, and nothing was changed between the asks",
  search: "every result was already seen: a new phrasing that returns known results is no new information",
  effect: "an effect that writes what is already written (the same content under another name, the same edit again) changes nothing",
};

function buildLoop(kind, r, W, T) {
  const single = kind === "L7";
  const sub = single ? r.pick(Object.keys(SUBCORES)) : kind;
  const core = SUBCORES[sub](r, W, T, { single });
  if (single) {
    for (const p of otherFiles(r, W, r.int(3, 6))) { const x = [T.read(p)]; core.c1.push({ tools: x }); core.pool.push(x); }
    if (r.chance(0.6)) { const x = [T.bash(r.pick(["git log --oneline -n 5", "git log --oneline -5", "git log -n 5 --format='%h %s'"]), lines(5, (i) => `${digest(`${W.seed}:${i}`).slice(0, 7)} ${r.pick(["fix", "feat", "chore", "refactor"])}: ${r.pick(VERBS)} ${r.pick(NOUNS)}${r.pick(["", "s", " handling", " retries"])}`) + "\n", "Recent commits", { sem: { k: "ask", key: "gitlog", ans: "static" } })]; core.c1.push({ tools: x }); core.pool.push(x); }
    if (r.chance(0.5)) { const d = path.dirname(W.srcOf(W.mods[0])); const fs_ = W.mods.slice(0, r.int(4, 9)).map((m) => path.basename(W.srcOf(m))); const x = [T.bash(`ls ${d}`, `${fs_.join("\n")}\n`, "List the folder", { sem: { k: "ask", key: `ls:${d}`, ans: digest(fs_.join()) } })]; core.c1.push({ tools: x }); core.pool.push(x); }
  }
  const n = r.int(4, 9);
  const cycles = assembleLoop(r, core, { n, reps: single ? [3, 6] : [1, 4] });
  const files = [...new Set(cycles.flat().flatMap((st) => st.tools).filter((x) => x.tool === "read").map((x) => W.rel(x.input.filePath)))].slice(0, 6);
  const plan = {
    loop: true, prompt: core.task.prompt, title: core.task.title, cycles,
    summary: () => summaryText(r, { goal: core.task.goal, found: core.found, next: core.task.next, files }),
    repeatQ: core.repeatQ, freshPerCycle: core.freshPerCycle,
  };
  const l3 = sub === "L3";
  const why = (sizes) => {
    const head = `${n} compactions, no new effect after cycle 1.`;
    const body = single
      ? `Every cycle after the first is mostly exact repeats of cycle 1's calls (same input, same output) plus one varying element of kind ${sub}: ${core.what()}.`
      : `After each compaction the model redoes cycle 1's work: ${core.what()}, between exact repeats of cycle 1's other calls.`;
    const verdict = l3
      ? "The check is asked again with no effect since it was last asked, so it brings nothing new however many new files are read between; only the reads are new. At compaction 2 the second run may be recovery after the summary and the cycle did read a file never read before: too early. At compaction 3 the same question has been asked three times over two compactions with nothing changed: stop at 3."
      : `Nothing after cycle 1 is new information or a new effect: ${WHY_UNIT[core.unit]}. The first redo after a summary may be recovery, but it already brings nothing (the fixed point: 2 is right); by the second redo the loop is certain: stop at 3 at the latest.`;
    return `${head} ${body} ${verdict} Sizes do not show it: ${sizeWords(sizes)}.`;
  };
  return { plan, label: l3 ? { firstDeny: 3, accept: [3] } : { firstDeny: 3, accept: [2, 3] }, why, sub };
}

// ================================================================ healthy twins: the same surface shapes, real progress

const HEALTHY = {};
const ANSWER_OPEN = ["Done.", "Finished:", "All set.", "That's it:", "Summary:", "Complete."];
/** total split into n counts of at least 1, roughly even. */
function spread(r, total, n) {
  const out = Array(n).fill(1);
  for (let i = n; i < total; i++) out[r.int(0, n - 1)]++;
  return out;
}
const withResume = (r, cycles, texts = RESUME) => cycles.map((cy, c) => (c > 0 && cy.length && !cy[0].text && r.chance(0.7) ? [{ ...cy[0], text: r.pick(texts) }, ...cy.slice(1)] : cy));
const healthyWhy = (n, body, sizes) => `${n} compactions, never deny. ${body} Sizes do not decide it either: ${sizeWords(sizes)}.`;

/** H1: different spellings that read NEW lines each time, further into a big file. */
HEALTHY.H1 = (r, W, T) => {
  const kind = r.pick(["log", "csv", "md"]);
  const B = kind === "log" ? r.pick(["logs/app.log", "logs/worker-2026-03-14.log", "var/log/payments.log"]) : kind === "csv" ? r.pick(["data/orders-2026-q1.csv", "exports/refunds.csv", "data/ledger.csv"]) : r.pick(["docs/audit-report.md", "reports/incident-review.md", "docs/spec-full.md"]);
  const n = r.int(4, 9);
  const L = r.int(30, 70);
  bigFile(W, B, r.int(n * 4 * L + 400, 40000), kind);
  const notes = r.chance(0.5) ? `notes/${r.pick(["findings", "log-review", "scan", "review"])}.md` : null;
  const what = kind === "log" ? r.pick(["every ERROR line and what preceded it", "when the retries started", "the first slow query warnings"]) : kind === "csv" ? r.pick(["rows whose status is failed or refunded", "orders with qty above 10", "the regions with refunds"]) : r.pick(["every requirement about retries", "the open findings", "each section's owner and status"]);
  const prompt = r.pick([`Go through ${B} from the top and list ${what}.`, `I need ${what} from ${B}. Read it in order; it is long.`, `Scan ${B} (start at the beginning) and report ${what}${notes ? ` in ${notes}` : ""}.`]);
  let pos = 1;
  let last = null;
  const spelled = [];
  const cycles = [];
  let notesLines = 0;
  const ends = [];
  for (let c = 0; c < n; c++) {
    const steps = [];
    if (c === 0 && r.chance(0.5)) steps.push({ tools: [wc(W, T, B)], text: "Let me see how long it is first." });
    if (notes && c > 0 && r.chance(0.6)) steps.push({ tools: [T.read(notes)] });
    const k = r.int(2, 4);
    const from = pos;
    for (let j = 0; j < k; j++) {
      const a = pos, b = pos + L - 1 + r.int(-5, 5);
      const used = new Set(last ? [last] : []);
      const spec = spellRead(r, W, T, B, a, b, used, { git: false });
      last = spec.tool === "read" ? (a === 1 ? "read-limit" : "read-window") : [...used].pop();
      spelled.push(spec.tool === "read" ? `read ${a}-${b}` : spec.input.command);
      steps.push({ tools: [spec] });
      pos = b + 1;
    }
    if (notes) {
      const add = `- lines ${from}-${pos - 1}: ${r.int(0, 6)} ${kind === "csv" ? "rows" : "items"} (${r.pick(ADJ)})`;
      if (notesLines === 0) steps.push({ tools: [T.write(notes, `# ${cap(what)}\n\n${add}\n`)] });
      else if (r.chance(0.5)) { const f = W.file(notes); steps.push({ tools: [T.edit(notes, f[f.length - 1], `${f[f.length - 1]}\n${add}`)] }); W.files.set(notes, W.file(notes).flatMap((l) => l.split("\n"))); }
      else steps.push({ tools: [{ ...T.bash(`echo '${add}' >> ${notes}`, "", "Append to the notes"), sem: { k: "effect", key: `append:${notes}:${c}`, ok: true }, changes: true }] });
      if (notesLines > 0 && steps.at(-1).tools[0].tool === "bash") W.files.set(notes, [...W.file(notes), add]);
      notesLines++;
    }
    ends.push(pos - 1);
    cycles.push(steps);
  }
  return {
    plan: { loop: false, prompt, title: `Scan ${path.basename(B)}`, cycles: withResume(r, cycles, ["Continuing at the next unread line.", "Resuming where the summary says I stopped.", "Carrying on with the next part of the file.", ...RESUME]), summary: (c) => summaryText(r, { goal: prompt, done: [`read ${B} through line ${ends[c]}`], next: [`Read on from line ${ends[c] + 1}`] }), final: `${r.pick(ANSWER_OPEN)} I went through ${B} up to line ${pos - 1}; ${what}: ${r.int(3, 40)} found${notes ? `, listed in ${notes}` : ""}.` },
    label: { firstDeny: null },
    why: (sizes) => healthyWhy(n - 1, `${B} is read further each cycle, each read by a spelling other than the one before (${spelled.slice(0, 6).map((x) => `\`${x}\``).join(", ")}${spelled.length > 6 ? ", ..." : ""}), and every read shows lines never shown before${notes ? `; each cycle also adds what it found to ${notes}` : ""}. A new spelling here comes with new content: new information every cycle, so no cycle is a redo.`, sizes),
  };
};

/** H2: offset/limit pages moving forward into unseen lines; a re-read from line 1 only after an edit to that file. */
HEALTHY.H2 = (r, W, T) => {
  const n = r.int(4, 9);
  const L = r.int(40, 90);
  const src = r.chance(0.65);
  const F = src ? W.srcOf(r.pick(W.mods), r.pick(W.areas)) : r.pick(["docs/spec.md", "docs/protocol.md", "MIGRATION.md", "docs/ops/runbook.md"]);
  const need = (n * 3 + 3) * L + 50;
  if (src) W.file(F, () => sourceLines(W, F, need + r.int(0, 300)));
  else bigFile(W, F, need + r.int(0, 2000), "md");
  const edits = src && r.chance(0.7);
  const chk = edits && r.chance(0.5) ? (() => { const cmd = r.pick(W.S.typecheck); const clean = W.S.typecheckClean(r); return () => T.bash(cmd, clean, "Type-check", { sem: { k: "ask", key: `check:${cmd}`, ans: "clean" } }); })() : null;
  const prompt = src
    ? r.pick([`Read through ${F} and ${edits ? "fix every place that still rounds before summing (there are several)" : "write a short overview of what it does in docs/overview.md"}.`, `${F} is long. Go through it page by page and ${edits ? "replace the magic numbers you find with named constants" : "list every exported function and what it is for"}.`])
    : r.pick([`Read ${F} in full and summarise its requirements in docs/requirements-summary.md.`, `Go through all of ${F} and list every MUST in it.`]);
  let pos = 1;
  const ends = [];
  const editedAt = [];
  let lastReread = 0;
  const cycles = [];
  const pages = [];
  for (let c = 0; c < n; c++) {
    const steps = [];
    if (c > 0 && edits && r.chance(0.6)) {
      const cand = editedAt.filter((x) => x > lastReread);
      if (cand.length) {
        const e = Math.max(...cand);
        const b = Math.min(pos - 1, e + r.int(0, 20));
        steps.push({ tools: [T.read(F, { limit: b })], text: r.pick(["Re-reading the top of the file after my edits.", "Checking the edited part from the start.", null]) });
        pages.push(`1-${b} (after edits)`);
        lastReread = b;
      }
    }
    const k = r.int(2, 3);
    for (let j = 0; j < k; j++) {
      const a = pos, b = pos + L - 1;
      const spec = r.chance(0.85) ? (a === 1 && r.chance(0.5) ? T.read(F, { limit: L }) : T.read(F, { offset: a, limit: L })) : spellRead(r, W, T, F, a, b, new Set(["read-window", "read-limit", "read-all", "git-show"]));
      steps.push({ tools: [spec] });
      pages.push(`${a}-${b}`);
      pos = b + 1;
      if (edits && r.chance(0.6)) {
        const cand = editableLines(W, F, a, b);
        if (cand.length) {
          const [old, ln] = r.pick(cand);
          steps.push({ tools: [T.edit(F, old, changeLine(r, old, commentOf(W)))] });
          editedAt.push(ln);
          if (chk && r.chance(0.5)) steps.push({ tools: [chk()] });
        }
      }
    }
    ends.push(pos - 1);
    cycles.push(steps);
  }
  const last = cycles.at(-1);
  if (!edits) {
    const out = src ? "docs/overview.md" : "docs/requirements-summary.md";
    last.push({ tools: [T.write(out, `# ${path.basename(F)}: summary\n\n${lines(r.int(5, 12), (i) => `- ${mdLine(W.seed, i * 13 + 3).replace(/^[-|#\s]+/, "")}`)}\n`)] });
  }
  return {
    plan: { loop: false, prompt, title: `Go through ${path.basename(F)}`, cycles: withResume(r, cycles, ["Continuing with the next page.", "Resuming at the next unread offset.", ...RESUME]), summary: (c) => summaryText(r, { goal: prompt, done: [`read ${F} through line ${ends[c]}${edits ? "; edits made where needed" : ""}`], next: [`Continue at offset ${ends[c] + 1}`] }), final: `${r.pick(ANSWER_OPEN)} I read ${F} through line ${pos - 1}${edits ? ` and made ${editedAt.length} edits` : ""}.` },
    label: { firstDeny: null },
    why: (sizes) => healthyWhy(n - 1, `${F} is paged forward with offset/limit (${pages.slice(0, 8).join(", ")}${pages.length > 8 ? ", ..." : ""}): every page holds lines never read before${edits ? `, and the model edits lines as it goes (${editedAt.length} edits); a re-read from line 1 happens only after an edit inside the lines it re-reads, so it shows changed content` : ""}.`, sizes),
  };
};

/** H3: the same test or typecheck re-run after each edit, sometimes with byte-identical output; re-reads after each compaction. */
HEALTHY.H3 = (r, W, T) => {
  const n = r.int(4, 9);
  const S = W.S;
  const oldSym = symName(W, r.pick(["chargeCard", "loadUser", "sendMail", "openSession", "quoteShipping", "resolveTenant"]));
  const newSym = symName(W, `${r.pick(["charge", "load", "send", "open", "quote", "resolve"])}${r.pick(["V2", "WithContext", "Checked", "Async"])}`);
  const sites = plantCalls(r, W, oldSym, n * r.int(2, 3));
  const total = sites.length;
  const mode = r.pick(["typecheck", "same-fail", "pass"]);
  const plan = r.pick(["docs/refactor-plan.md", "docs/migration.md", "MIGRATION.md", "docs/adr/0012-api-v2.md"]);
  W.file(plan, () => [`# ${oldSym} -> ${newSym}`, "", `Every call of \`${oldSym}(x)\` becomes \`${newSym}(x)\`.`, "The old name stays until all callers moved.", "", "## Steps", "1. One file at a time.", `2. Run the checks after each file.`, "3. Delete the old name last."]);
  const api = W.srcOf(r.pick(W.mods), r.pick(W.areas));
  W.file(api, () => sourceLines(W, api, r.int(40, 90)));
  const rereads = r.sample([plan, api], r.int(1, 2));
  let cmd, out, ans;
  const tf = W.testOf(sites[0].path.split("/").pop().replace(/\.\w+$/, ""));
  if (mode === "typecheck") { cmd = r.pick(S.typecheck); const clean = S.typecheckClean(r); out = () => clean; ans = () => "clean"; }
  else if (mode === "pass") { cmd = r.pick(S.suite); const totalT = r.int(40, 400); const dur = S.dur(r); out = () => S.pass({ file: tf, total: totalT, dur }); ans = () => `pass:${totalT}`; }
  else {
    const chk = failingCheck(r, W, T, { kind: "test" });
    cmd = chk.cmd;
    const failOut = chk.run().output;
    out = (left) => (left > 0 ? failOut : S.pass({ file: chk.tfile, total: r.int(10, 40), dur: S.dur(r) }));
    ans = (left) => (left > 0 ? "fail" : "pass");
  }
  const run = (left) => T.bash(cmd, out(left), r.pick(["Run the checks", "Check", "Re-run", "Verify"]), { exit: mode === "same-fail" && left > 0 ? 1 : 0, sem: { k: "ask", key: `check:${cmd}`, ans: ans(left) } });
  const prompt = r.pick([`Rename ${oldSym} to ${newSym} everywhere (see ${plan}); keep \`${cmd}\` passing after every file.`, `Move all callers of ${oldSym} to ${newSym}, one file at a time, checking with \`${cmd}\` as you go.`, `Follow ${plan}: migrate each ${oldSym} call, run \`${cmd}\` after each change.`]);
  const cycles = [];
  let k = 0;
  const per = spread(r, total, n);
  for (let c = 0; c < n; c++) {
    const steps = [];
    for (const p of r.shuffle(rereads)) steps.push({ tools: [T.read(p)] });
    if (c === 0) steps.push({ tools: [run(total)] });
    for (let j = 0; j < per[c]; j++) {
      const s = sites[k++];
      const off = Math.max(1, s.n - r.int(5, 15));
      steps.push({ tools: [r.chance(0.7) ? T.read(s.path, { offset: off, limit: r.int(20, 40) }) : T.read(s.path)] });
      const line = W.file(s.path)[s.n - 1];
      steps.push({ tools: [T.edit(s.path, line, line.replace(oldSym, newSym))] });
      if (r.chance(0.75) || j === per[c] - 1) steps.push({ tools: [run(mode === "same-fail" ? total - k : total)] });
    }
    cycles.push(steps);
  }
  return {
    plan: { loop: false, prompt, title: `${oldSym} -> ${newSym}`, cycles: withResume(r, cycles), summary: (c) => summaryText(r, { goal: prompt, done: [`${per.slice(0, c + 1).reduce((a, b) => a + b, 0)} of ${total} call sites moved`], next: ["Next call site, then the checks"], files: rereads }), final: `${r.pick(ANSWER_OPEN)} All ${total} calls now use ${newSym}; \`${cmd}\` ${mode === "typecheck" ? "is clean" : "passes"}.` },
    label: { firstDeny: null },
    why: (sizes) => healthyWhy(n - 1, `Each cycle re-reads ${rereads.join(" and ")} (identical every time), then edits call sites one by one and runs \`${cmd}\` after the edits; its output is ${mode === "typecheck" ? "byte-identical every time (a clean check)" : mode === "pass" ? "byte-identical every time (the suite passes)" : "the same failure until the last call site is moved, then a pass"}. The same question asked again after an effect is a new question: every cycle makes new edits.`, sizes),
  };
};

/** H4: re-delegation after a fix (the report's count and names move), or a delegated status check whose report changes in substance. */
HEALTHY.H4 = (r, W, T) => {
  const variant = r.pick(["after-fix", "after-fix", "status"]);
  const say = paraphraser(r);
  if (variant === "after-fix") {
    const sc = scenarioCallers(r, W);
    const K = sc.sites.length;
    const n = Math.min(r.int(4, 9), K + 1);
    const per = spread(r, K, n - 1);
    const newSym = successor(W, sc.sym);
    const legacyFile = `${path.dirname(sc.sites[0].path)}/${snake(sc.sym).replace(/^_/, "").toLowerCase()}.${W.S.src("a", "b").split(".").pop()}`;
    const labels = r.shuffle(sc.labels);
    const others = otherFiles(r, W, r.int(1, 2), { exclude: sc.context });
    let left = [...sc.sites];
    let q = 0;
    const ask = () => {
      const text = left.length ? say(() => sc.render(left)) : say(() => r.pick([`No call sites of ${sc.sym} remain.`, `${sc.sym} is no longer called anywhere in the source tree.`, `0 callers left: every call now goes to ${newSym}.`, `Nothing calls ${sc.sym} any more.`]));
      return T.task(labels[q++ % labels.length], sc.prompt, text, sc.facts(left));
    };
    const counts = [];
    const cycles = [];
    for (let c = 0; c < n; c++) {
      const steps = [];
      if (c === 0) for (const p of others) steps.push({ tools: [T.read(p)] });
      else if (r.chance(0.5)) steps.push({ tools: [T.read(r.pick(others))] });
      steps.push({ tools: [ask()], text: c === 0 ? "A subagent can map the callers first." : r.pick(["Checking what is left.", "Asking the subagent for the remaining callers.", null]) });
      counts.push(left.length);
      if (c < n - 1) {
        for (let j = 0; j < per[c]; j++) {
          const s = left.shift();
          if (r.chance(0.6)) steps.push({ tools: [T.read(s.path)] });
          const line = W.file(s.path)[s.n - 1];
          steps.push({ tools: [T.edit(s.path, line, line.replace(sc.sym, newSym))] });
        }
      } else {
        steps.push({ tools: [{ ...T.bash(`git rm ${legacyFile}`, `rm '${legacyFile}'\n`, "Delete the old implementation"), sem: { k: "effect", key: `rm:${legacyFile}`, ok: true }, changes: true }] });
      }
      cycles.push(steps);
    }
    const prompt = sc.task.prompt;
    return {
      plan: { loop: false, prompt, title: sc.task.title, cycles: withResume(r, cycles), summary: (c) => summaryText(r, { goal: prompt, done: [`${K - counts[c] + (per[c] ?? 0)} of ${K} call sites moved to ${newSym}`], next: ["Ask for the remaining callers, move them"] }), final: `${r.pick(ANSWER_OPEN)} All ${K} callers use ${newSym} now and ${sc.sym} is gone.` },
      label: { firstDeny: null },
      why: (sizes) => healthyWhy(n - 1, `Every cycle hands the same prompt to an explore subagent (a new child session, the report in new words), but between the asks the model moves call sites to ${newSym}, so each report names fewer sites and a new count (${counts.join(", ")}): news, and new edits every cycle.`, sizes),
    };
  }
  const job = r.pick(["backfill", "reindex", "canary rollout", "data migration", "replica resync"]);
  const name = `${r.pick(NOUNS)}-${job.split(" ")[0]}-${r.int(100, 999)}`;
  const shards = Array.from({ length: r.int(8, 16) }, (_, i) => `shard-${String(i + 1).padStart(2, "0")}`);
  const n = r.int(4, 9);
  const prompt = r.pick([`The ${job} ${name} is running on staging. Keep an eye on it (have a subagent check its status), read up on ${W.area} meanwhile, and tell me when it is done and whether anything failed.`, `Watch ${name} (a ${job}) until it finishes; use a subagent for the status checks. Report failures by shard.`]);
  const labels = r.shuffle(["check job status", `status of ${name}`, `${job} progress`, "poll the job", "job health check", `how is ${name} doing`, "progress report", "status check"]);
  const fresh = otherFiles(r, W, n * 2);
  const statusPrompt = r.pick([`Check the status of ${name}: progress, rows processed, failed shards and their errors. Read-only.`, `Report ${name}'s progress (percentage, rows) and any failing shard with its error.`]);
  const cycles = [];
  const pcts = [];
  let done = 0;
  for (let c = 0; c < n; c++) {
    const steps = [];
    const pct = c === n - 1 ? 100 : Math.min(99, Math.round(((c + 1) / n) * 100 - r.int(0, 8)));
    pcts.push(pct);
    const rows = Math.round(pct * r.int(38000, 42000));
    const failed = c === n - 1 ? [] : r.sample(shards, r.int(0, 2));
    done = Math.floor((pct / 100) * shards.length);
    const facts = [`pct:${pct}`, `rows:${rows}`, `done:${done}`, ...failed.map((f) => `failed:${f}`)];
    const text = say(() => {
      const bits = r.shuffle([
        r.pick([`${pct}% done`, `progress is at ${pct}%`, `it is ${pct}% through`, `${pct} percent complete`]),
        r.pick([`${fmtN(rows)} rows processed`, `rows so far: ${fmtN(rows)}`, `${fmtN(rows)} rows done`]),
        r.pick([`${done} of ${shards.length} shards finished`, `shards finished: ${done}/${shards.length}`, `${done}/${shards.length} shards complete`]),
        failed.length ? r.pick([`failing: ${failed.map((f) => `${f} (${r.pick(["lock timeout", "OOMKilled", "constraint violation"])})`).join(", ")}`, `${failed.join(" and ")} failed and will be retried`]) : r.pick(["no failures", "nothing failed", "no shard has failed"]),
      ]);
      return r.chance(0.5) ? bits.map((b) => `- ${capSafe(b)}`).join("\n") : `${capSafe(bits.join("; "))}.`;
    });
    steps.push({ tools: [T.task(labels[c % labels.length], statusPrompt, c === n - 1 ? `${text}\n${r.pick(["The job has completed.", "It finished.", "Status: completed."])}` : text, [...facts, ...(c === n - 1 ? ["completed"] : [])], r.pick(["explore", "general"]))] });
    for (const p of fresh.slice(c * 2, c * 2 + r.int(1, 2))) steps.push({ tools: [T.read(p)] });
    if (steps.length < 2) steps.push({ tools: [T.read(fresh[c * 2 + 1] ?? fresh.at(-1))] });
    cycles.push(steps);
  }
  return {
    plan: { loop: false, prompt, title: `Watch ${name}`, cycles: withResume(r, cycles, ["Checking on the job again.", "Another status check.", ...RESUME]), summary: (c) => summaryText(r, { goal: prompt, found: [`${name} at ${pcts[c]}%`], next: ["Check the status again", "Keep reading the code meanwhile"] }), final: `${r.pick(ANSWER_OPEN)} ${name} completed: all ${shards.length} shards done.` },
    label: { firstDeny: null },
    why: (sizes) => healthyWhy(n - 1, `The same status question is handed to a subagent every cycle, and its report changes in substance each time (progress ${pcts.join("%, ")}%, new row counts, other failing shards): the job moves on its own, so each answer is news; between the checks the model reads files it has not read before.`, sizes),
  };
};

/** H5: rephrased searches that return new items each time (web, code, MCP search, or grep for related names). */
HEALTHY.H5 = (r, W, T) => {
  const n = r.int(4, 9);
  const cycles = [];
  if (r.chance(0.3)) {
    const base = r.pick(["Retry", "Timeout", "Quota", "Cursor", "Backoff", "Tenant"]);
    const syms = r.shuffle([`load${base}`, `parse${base}`, `${base.toLowerCase()}Config`, `default${base}`, `with${base}`, `apply${base}`, `${base.toLowerCase()}FromEnv`, `validate${base}`, `reset${base}`, `${base.toLowerCase()}Metrics`]).slice(0, n + 1).map((x) => symName(W, x));
    const planted = syms.map((sy) => plantCalls(r, W, sy, r.int(2, 5)).map((x) => [x.path, x.n, x.text]));
    const found = [];
    for (let c = 0; c < n; c++) {
      const steps = [];
      const k = c === 0 ? 2 : 1;
      for (let j = 0; j < k && found.length < syms.length; j++) {
        const i = found.length;
        const next = grepFamily(r, W, T, syms[i], planted[i]);
        steps.push({ tools: [next(true)] });
        found.push(syms[i]);
      }
      const hit = r.pick(planted[found.length - 1]);
      steps.push({ tools: [T.read(hit[0])] });
      cycles.push(steps);
    }
    const cfg = W.srcOf(r.pick(W.mods));
    W.file(cfg, () => sourceLines(W, cfg, r.int(40, 80)));
    const [old] = r.pick(editableLines(W, cfg));
    cycles.at(-1).push({ tools: [T.edit(cfg, old, changeLine(r, old, commentOf(W)))] });
    const prompt = r.pick([`Map out everything that touches ${base.toLowerCase()} handling (functions and their callers), then centralise the default in ${cfg}.`, `Find all the ${base.toLowerCase()}-related helpers and where they are used; then fix the default in ${cfg}.`]);
    return {
      plan: { loop: false, prompt, title: `${base} handling`, cycles: withResume(r, cycles), summary: (c) => summaryText(r, { goal: prompt, found: [`helpers found so far: ${found.slice(0, Math.min(found.length, (c + 1) * 2)).join(", ")}`], next: ["Search for the next related helper"] }), final: `${r.pick(ANSWER_OPEN)} ${found.length} ${base.toLowerCase()} helpers mapped; the default now lives in ${cfg}.` },
      label: { firstDeny: null },
      why: (sizes) => healthyWhy(n - 1, `Each cycle searches the code for another related name (${found.join(", ")}) with the grep tool, rg, grep -rn or git grep, and every search returns call sites never seen before; it reads one of them and edits the config at the end.`, sizes),
    };
  }
  const st = searchTool(r, W, T);
  const ww = webWorld(r, W, n * 4 + 6);
  const items = ww.items;
  let shown = 0;
  const seen = [];
  const queries = [];
  for (let c = 0; c < n; c++) {
    const steps = [];
    const k = r.int(1, 3);
    for (let j = 0; j < k; j++) {
      if (c > 0 && j > 0 && r.chance(0.35) && queries.length) {
        const q = r.pick(queries.filter((x) => x.times < 2));
        if (q) { q.times++; steps.push({ tools: [q.spec] }); continue; }
      }
      if (j > 1) continue;
      const fresh = items.slice(shown, shown + r.int(1, 2));
      shown += fresh.length;
      const old = seen.length ? r.sample(seen, r.int(0, Math.min(2, seen.length))) : [];
      const res = r.shuffle([...fresh, ...old]);
      if (!fresh.length) break;
      seen.push(...fresh);
      const spec = st.call(ww.nextQuery(), res);
      queries.push({ spec, times: 1 });
      steps.push({ tools: [spec] });
    }
    if (st.fam !== "code" && r.chance(0.5)) { const it = seen.at(-1); steps.push({ tools: [T.webfetch(it.url, `# ${it.title}\n\n${it.text}\n\n${lines(r.int(3, 7), (i) => `${r.pick(["Note", "Update", "Edit", "Also"])}: ${r.pick([ww.ctx.opt, ww.ctx.topic, ww.ctx.err])} ${r.pick(["changed", "matters", "is documented"])} (${c}.${i}).`)}`)] }); }
    if (steps.length < 2) { const fresh = items.slice(shown, shown + 1); shown += fresh.length; if (fresh.length) { seen.push(...fresh); const spec = st.call(ww.nextQuery(), fresh); queries.push({ spec, times: 1 }); steps.push({ tools: [spec] }); } }
    if (steps.length < 2) steps.push({ tools: [T.read(otherFiles(r, W, 1)[0])] });
    cycles.push(steps);
  }
  const cfg = { ts: "vite.config.ts", py: "pyproject.toml", go: "internal/config/config.go", rs: "Cargo.toml" }[W.stack];
  W.file(cfg, () => (cfg.endsWith(".toml") ? configLines(W, cfg, r) : sourceLines(W, cfg, r.int(30, 70))));
  const [old] = r.pick(W.file(cfg).map((l, i) => [l, i]).filter(([l]) => l.trim().length > 4 && W.file(cfg).indexOf(l) === W.file(cfg).lastIndexOf(l)));
  cycles.at(-1).push({ tools: [T.read(cfg)] }, { tools: [T.edit(cfg, old, `${old} ${cfg.endsWith(".json") ? "" : "# "}${ww.ctx.opt}`.trimEnd())] });
  const prompt = r.pick([`"${ww.ctx.err}" from ${ww.ctx.lib} since ${ww.ctx.ver}. Research the cause properly (issues, docs, release notes) before changing ${cfg}.`, `Find out everything known about ${ww.ctx.lib} ${ww.ctx.ver} and "${ww.ctx.err}" with ${ww.ctx.topic}, then apply the right setting in ${cfg}.`]);
  return {
    plan: { loop: false, prompt, title: `${ww.ctx.lib} ${ww.ctx.ver} research`, cycles: withResume(r, cycles, ["More research before I change anything.", "Let me look further.", ...RESUME]), summary: () => summaryText(r, { goal: prompt, found: [`${ww.ctx.opt} is involved`], next: ["Keep researching, then edit the config"] }), final: `${r.pick(ANSWER_OPEN)} ${ww.ctx.opt} set in ${cfg}; ${seen.length} sources read.` },
    label: { firstDeny: null },
    why: (sizes) => healthyWhy(n - 1, `${st.fam === "mcp" ? `The MCP tool ${st.name}` : st.fam === "code" ? "codesearch" : "websearch"} is asked new phrasings every cycle, and each cycle brings results never seen before (${seen.length} distinct pages in all), next to some known ones and a few exact repeats; the model applies the fix at the end.`, sizes),
  };
};

/** H6: the same-shaped effect applied to a new target each step, with identical short outputs. */
HEALTHY.H6 = (r, W, T) => {
  const n = r.int(4, 9);
  const variants = W.stack === "ts" ? ["codemod", "sed", "astgrep", "scaffold", "template"] : W.stack === "py" ? ["libcst", "sed", "astgrep", "scaffold", "template"] : ["sed", "astgrep", "scaffold", "template"];
  const variant = r.pick(variants);
  const count = n * r.int(2, 3);
  const names = r.sample([...NOUNS], count);
  const dir = r.pick(W.areas);
  const tpl = r.pick([(x) => `deploy/${x}/values.yaml`, (x) => `services/${x}/config.yaml`, (x) => `k8s/${x}.yaml`]);
  const targets = variant === "scaffold" ? names.map((x) => `packages/${x}`) : variant === "template" ? names.map(tpl) : names.map((x) => W.srcOf(x, dir));
  const shared = variant === "codemod" ? "codemods/to-named-exports.ts" : variant === "libcst" ? "codemods/rename_kwargs.py" : variant === "scaffold" ? "templates/package/package.json" : variant === "template" ? "templates/service.yaml" : variant === "astgrep" ? "docs/api-migration.md" : "docs/rename.md";
  W.file(shared, () => (variant === "codemod" || variant === "libcst" ? sourceLines(W, shared, r.int(25, 60))
    : variant === "scaffold" ? ["{", '  "name": "__NAME__",', '  "version": "0.0.0",', '  "private": true,', '  "type": "module",', '  "main": "src/index.ts",', '  "scripts": { "test": "vitest run" }', "}"]
      : variant === "template" ? ["name: __NAME__", "port: __PORT__", "replicas: 2", "resources:", "  cpu: 250m", "  memory: 256Mi"]
        : ["# Renaming", "", "One file per step, in the order of the list in the task."]));
  const from = symName(W, r.pick(["oldTimeout", "legacyId", "fetchV1", "amountCentsLegacy"]));
  const to = successor(W, from);
  const apply = (t, i) => {
    if (variant === "codemod") return { ...T.bash(`npx jscodeshift -t ${shared} ${t}`, `Processing 1 files... \nSpawning 1 workers...\nSending 1 files to free worker...\nAll done. \nResults: \n0 errors\n0 unmodified\n0 skipped\n1 ok\nTime elapsed: ${(0.7 + r.next() * 0.5).toFixed(3)}seconds \n`, "Run the codemod on one file"), sem: { k: "effect", key: `codemod:${t}`, ok: true }, changes: true };
    if (variant === "libcst") return { ...T.bash(`python -m libcst.tool codemod rename_kwargs.RenameKwargs ${t}`, "Calculating full-repo metadata...\nExecuting codemod...\nFinished codemodding 1 files!\n - Transformed 1 files successfully.\n - Skipped 0 files.\n - Failed to codemod 0 files.\n - 0 warnings were generated.\n", "Run the codemod on one file"), sem: { k: "effect", key: `codemod:${t}`, ok: true }, changes: true };
    if (variant === "sed") return { ...T.bash(`sed -i 's/${from}/${to}/g' ${t}`, "", "Rename in one file"), sem: { k: "effect", key: `sed:${t}`, ok: true }, changes: true };
    if (variant === "astgrep") return { ...T.bash(`sg run -p '${from}($A)' -r '${to}($A)' -U ${t}`, "Applied 1 changes\n", "Rewrite the calls in one file"), sem: { k: "effect", key: `sg:${t}`, ok: true }, changes: true };
    if (variant === "scaffold") { const nm = path.basename(t); return { ...T.bash(`mkdir -p ${t}/src && cp ${path.dirname(shared)}/* ${t}/ && sed -i 's/__NAME__/@acme\\/${nm}/' ${t}/package.json`, "", "Scaffold the package"), sem: { k: "effect", key: `scaffold:${t}`, ok: true }, changes: true }; }
    const nm = names[i];
    return T.write(t, `name: ${nm}\nport: ${8000 + i * 10 + r.int(0, 9)}\nreplicas: 2\nresources:\n  cpu: 250m\n  memory: 256Mi\n`);
  };
  const status = (k) => T.bash("git status --short", `${targets.slice(0, k).map((t) => `${variant === "scaffold" || variant === "template" ? "??" : " M"} ${t}${variant === "scaffold" ? "/" : ""}`).join("\n")}\n`, "What changed so far", { sem: { k: "ask", key: "git-status", ans: String(k) } });
  const prompt = variant === "scaffold" ? `Create a package for each of these modules from ${path.dirname(shared)}: ${names.join(", ")}.`
    : variant === "template" ? `Write a config from ${shared} for every service: ${names.join(", ")} (each its own port).`
      : variant === "sed" || variant === "astgrep" ? `${variant === "sed" ? "Rename" : "Rewrite the calls of"} ${from} to ${to} file by file in ${dir}: ${names.map((x) => path.basename(W.srcOf(x, dir))).join(", ")}.`
        : `Run ${shared} over the ${dir} modules one file at a time: ${names.map((x) => path.basename(W.srcOf(x, dir))).join(", ")}.`;
  const per = spread(r, count, n);
  const cycles = [];
  let k = 0;
  for (let c = 0; c < n; c++) {
    const steps = [];
    if (c === 0 || r.chance(0.8)) steps.push({ tools: [T.read(shared)] });
    if (c > 0) steps.push({ tools: [status(k)] });
    for (let j = 0; j < per[c]; j++) { steps.push({ tools: [apply(targets[k], k)] }); k++; }
    cycles.push(steps);
  }
  cycles.at(-1).push({ tools: [status(k)] });
  return {
    plan: { loop: false, prompt, title: `Batch: ${variant}`, cycles: withResume(r, cycles), summary: (c) => summaryText(r, { goal: prompt, done: [`${per.slice(0, c + 1).reduce((a, b) => a + b, 0)} of ${count} done`], next: [`Continue with ${targets[Math.min(count - 1, per.slice(0, c + 1).reduce((a, b) => a + b, 0))]}`] }), final: `${r.pick(ANSWER_OPEN)} All ${count} targets done.` },
    label: { firstDeny: null },
    why: (sizes) => healthyWhy(n - 1, `The same ${variant === "template" ? "write from a template" : variant === "scaffold" ? "scaffold command" : variant === "sed" ? "sed -i rename" : variant === "astgrep" ? "ast-grep rewrite" : "codemod command"} is applied to a new target each step (${targets.slice(0, 4).join(", ")}, ...), with the same short output every time; after each compaction the model re-reads ${shared} (identical) and checks git status (moved on). Each effect changes a target never touched before, with content never written before: new work.`, sizes),
  };
};

/** H7: identical polls that wait (a sleep in the command, a blocking watch, a tool's own wait parameter), unchanged for a while across compactions, then moving, then done. */
HEALTHY.H7 = (r, W, T) => {
  const n = r.int(4, 9);
  const variant = r.pick(["gh", "kubectl", "stdin", "await", "ciwait"]);
  const id = r.int(1000000, 9999999);
  const secs = r.pick([20, 30, 45, 60, 90]);
  const waitOf = (x) => ({ k: "wait", waitMs: x });
  let start, poll, states, doneCheck, desc;
  if (variant === "gh") {
    const wf = r.pick(["deploy.yml", "release.yml", "e2e.yml", "nightly.yml"]);
    const jobs = r.sample(["build", "lint", "unit", "integration", "e2e", "package", "deploy-staging", "smoke"], r.int(3, 5));
    start = { ...T.bash(`gh workflow run ${wf} -f ref=main && sleep 5 && gh run list --workflow=${wf} -L 1 --json databaseId -q '.[0].databaseId'`, `✓ Created workflow_dispatch event for ${wf} at main\n${id}\n`, "Start the workflow"), sem: { k: "effect", key: `start:${wf}`, ok: true }, changes: true };
    const cmd = r.pick([`sleep ${secs} && gh run view ${id} --json status,jobs -q '.status, (.jobs[] | "\\(.name): \\(.status) \\(.conclusion)")'`, `sleep ${secs}; gh run view ${id} --json status,conclusion,jobs --jq '.jobs[] | [.name, .status, .conclusion] | @tsv'`]);
    states = [];
    for (let k = 0; k <= jobs.length; k++) states.push(`${k === jobs.length ? "completed" : "in_progress"}\n${jobs.map((j, i) => `${j}: ${i < k ? "completed success" : i === k ? "in_progress " : "queued "}`).join("\n")}`);
    poll = (st) => ({ ...T.bash(cmd, `${st}\n`, "Check the run"), sem: waitOf(secs * 1000), waitMs: secs * 1000 });
    doneCheck = T.bash(`gh run view ${id} --json conclusion -q .conclusion`, "success\n", "Conclusion", { sem: { k: "ask", key: "conclusion", ans: "success" } });
    desc = `\`${cmd}\``;
  } else if (variant === "kubectl") {
    const dep = r.pick(["api", "worker", "web", "gateway", "billing"]);
    const ns = r.pick(["prod", "staging", "default", "apps"]);
    const reps = r.int(3, 6);
    start = { ...T.bash(`kubectl -n ${ns} set image deploy/${dep} ${dep}=registry.acme.dev/${dep}:v${r.int(1, 9)}.${r.int(0, 30)}.${r.int(0, 9)}`, `deployment.apps/${dep} image updated\n`, "Roll out the new image"), sem: { k: "effect", key: `rollout:${dep}`, ok: true }, changes: true };
    const to = r.pick([60, 90, 120, 180]);
    const cmd = `kubectl -n ${ns} rollout status deploy/${dep} --timeout=${to}s`;
    states = [];
    for (let k = 0; k < reps; k++) states.push(`Waiting for deployment "${dep}" rollout to finish: ${k} of ${reps} updated replicas are available...\nerror: timed out waiting for the condition`);
    states.push(`Waiting for deployment "${dep}" rollout to finish: ${reps - 1} of ${reps} updated replicas are available...\ndeployment "${dep}" successfully rolled out`);
    poll = (st) => ({ ...T.bash(cmd, `${st}\n`, "Wait for the rollout", { exit: st.includes("successfully") ? 0 : 1 }), sem: waitOf(to * 1000), waitMs: st.includes("successfully") ? r.int(5, to) * 1000 : to * 1000 });
    doneCheck = T.bash(`kubectl -n ${ns} get deploy ${dep} -o jsonpath='{.status.availableReplicas}'`, `${reps}`, "Replicas available", { sem: { k: "ask", key: "replicas", ans: String(reps) } });
    desc = `\`${cmd}\` (it blocks up to ${to} s)`;
  } else if (variant === "stdin") {
    const sess = r.int(2, 40);
    const job = r.pick(["make e2e", "npm run test:e2e", "./scripts/load-test.sh --duration 20m", "python train.py --epochs 12", "cargo test --release -- --ignored"]);
    const yms = secs * 1000;
    start = { tool: "exec_command", input: { cmd: job, yield_time_ms: 10000 }, title: job, output: `Process running with session ID ${sess}\nWall time: 10.0 seconds\nOutput:\n> ${job}\n`, metadata: { session_id: sess, truncated: false }, sem: { k: "effect", key: `start:${job}`, ok: true }, changes: true, waitMs: 10000 };
    const mark = r.pick(["✓", "ok", "PASS"]);
    const word = r.pick(["flow", "suite", "stage", "epoch"]);
    const stages = Array.from({ length: r.int(3, 6) }, (_, i) => `${mark} ${r.pick(VERBS)} ${r.pick(NOUNS)} ${word} ${i + 1} (${r.int(20, 300)}s)`);
    // write_stdin returns what the process printed since the last call: nothing while it is quiet
    states = ["", ...stages.flatMap((s) => [`${s}\n`, ""])];
    const last = `Process exited with code 0\nWall time: ${(secs * 0.4).toFixed(1)} seconds\nOutput:\nall ${stages.length} stages passed\n`;
    poll = (st) => ({ tool: "write_stdin", input: { session_id: sess, chars: "", yield_time_ms: yms }, title: `session ${sess}`, output: st === "DONE" ? last : `Process running with session ID ${sess}\nWall time: ${(yms / 1000).toFixed(1)} seconds\nOutput:\n${st}`, metadata: { session_id: sess, truncated: false }, sem: waitOf(yms), waitMs: st === "DONE" ? yms * 0.4 : yms });
    states.push("DONE");
    doneCheck = T.bash(`ls -la ${r.pick(["reports/", "out/", "artifacts/"])}`, `total 24\n-rw-r--r-- 1 ${W.user} ${W.user} ${r.int(2000, 90000)} Mar 14 10:1${r.int(0, 9)} summary.json\n`, "Artifacts", { sem: { k: "ask", key: "artifacts", ans: "x" } });
    desc = `the write_stdin tool with yield_time_ms ${yms} on session ${sess}`;
  } else {
    const toolName = variant === "await" ? r.pick(["await_job", "job_wait", "wait_for_job"]) : r.pick(["ci_wait_for_run", "buildkite_wait", "pipeline_status"]);
    const param = variant === "await" ? { timeout: secs * 2 } : { wait: secs };
    const jid = variant === "await" ? `${r.pick(["bf", "mig", "idx"])}-${r.int(1000, 9999)}` : r.int(10000, 99999);
    start = { ...T.bash(variant === "await" ? `bin/jobs start ${r.pick(["backfill", "reindex", "migrate"])} --env staging` : `bk build create --pipeline ${W.proj} --branch main`, variant === "await" ? `started job ${jid}\n` : `Build #${jid} created\n`, "Start it"), sem: { k: "effect", key: `start:${jid}`, ok: true }, changes: true };
    const stagesN = r.int(3, 6);
    states = [];
    for (let k = 0; k < stagesN; k++) states.push(variant === "await" ? `job ${jid}: running, stage ${k + 1}/${stagesN}${k === 0 ? " (queued behind a lock held by job " + r.int(1000, 9999) + ")" : ""}\nstill running after ${param.timeout}s` : `build ${jid}: running — ${k} of ${stagesN} steps passed\nno change within ${param.wait}s`);
    states.push(variant === "await" ? `job ${jid}: succeeded (${stagesN}/${stagesN} stages)` : `build ${jid}: passed (${stagesN} of ${stagesN} steps)`);
    poll = (st) => ({ tool: toolName, input: variant === "await" ? { job_id: jid, ...param } : { run_id: jid, ...param }, title: toolName, output: st, metadata: { truncated: false }, sem: waitOf(1000 * (param.timeout ?? param.wait)), waitMs: 1000 * (param.timeout ?? param.wait) });
    doneCheck = T.bash(variant === "await" ? `bin/jobs logs ${jid} | tail -n 3` : `bk build view ${jid} | tail -n 3`, `${r.pick(NOUNS)}: ${fmtN(r.int(1000, 900000))} rows\nerrors: 0\ndone\n`, "Final lines", { sem: { k: "ask", key: "final", ans: "x" } });
    desc = `the ${toolName} tool with ${JSON.stringify(param)}`;
  }
  // The schedule: state 0 for a while, a stuck state that spans at least one whole cycle, then moving, then done.
  // a state that moves shows once when it is a delta (write_stdin prints only what is new), a quiet state repeats
  const quiet = (st) => variant !== "stdin" || st === "";
  const cands = states.map((st, i) => i).filter((i) => i > 0 && i < states.length - 1 && quiet(states[i]));
  const stuck = r.pick(cands.length ? cands : [1]);
  const reps = (i) => (i === states.length - 1 || !quiet(states[i]) ? 1 : r.int(1, 3));
  const preSeq = states.slice(0, stuck).flatMap((st, i) => Array(reps(i)).fill(st));
  const postSeq = states.slice(stuck + 1).flatMap((st, j) => Array(reps(stuck + 1 + j)).fill(st));
  // cycle 1: the start, the first states, the first stuck polls; cycles 2..m+1: nothing but the stuck poll; then the rest
  const m = Math.min(r.int(1, 2), n - 2);
  const a0 = r.int(1, 2);
  const mid = Array.from({ length: m }, () => r.int(2, 5));
  const left = Math.max(0, r.int(8, 14) - a0 - mid.reduce((x, y) => x + y, 0));
  const R = n - 1 - m;
  const tail = [...Array(left).fill(states[stuck]), ...postSeq];
  while (tail.length < 2 * R + 1) {
    const i = tail.findIndex((st, j) => j < tail.length - 1 && quiet(st));
    tail.splice(i >= 0 ? i : 0, 0, i >= 0 ? tail[i] : states[stuck]);
  }
  const cycles = [];
  cycles.push([{ tools: [start], text: r.pick(["Started; now I wait for it.", "Kicked it off. I'll poll until it finishes.", null]) }, ...[...preSeq, ...Array(a0).fill(states[stuck])].map((st) => ({ tools: [poll(st)] }))]);
  for (const k of mid) cycles.push(Array.from({ length: k }, () => ({ tools: [poll(states[stuck])] })));
  const per = spread(r, tail.length - R, R).map((x) => x + 1);
  let ti = 0;
  for (let c = 0; c < R; c++) {
    const steps = tail.slice(ti, ti + per[c]).map((st) => ({ tools: [poll(st)] }));
    ti += per[c];
    if (c === R - 1) steps.push({ tools: [doneCheck] });
    cycles.push(steps);
  }
  let run = 0, best = 0, prev = null;
  for (const st of cycles.flat()) { const o = st.tools[0].sem?.k === "wait" ? st.tools[0].output : null; run = o !== null && o === prev ? run + 1 : 1; prev = o; best = Math.max(best, run); }
  const polls = cycles.flat().filter((st) => st.tools[0].sem?.k === "wait").length;
  const startWhat = start.tool === "bash" ? `\`${start.input.command.split(" && ")[0]}\`` : `\`${start.input.cmd}\``;
  const what = variant === "gh" ? "the workflow run" : variant === "kubectl" ? "the rollout" : variant === "stdin" ? "the long job" : "the job";
  const prompt = `${r.pick([`Start ${what} (${startWhat}) and wait until it is done, then tell me how it went.`, `Kick off ${what}: ${startWhat}. Watch it to the end and report the result.`, `Run ${what} (${startWhat}) and keep waiting until it finishes; don't stop early.`])}`;
  return {
    plan: { loop: false, prompt, title: `Wait for ${what}`, cycles: withResume(r, cycles, ["Still waiting; polling again.", "Checking on it again.", "Continuing to wait.", ...RESUME]), summary: () => summaryText(r, { goal: `Start ${what} and wait until it finishes`, done: [`${what} started`], next: ["Keep polling until it is done"] }), final: `${r.pick(ANSWER_OPEN)} ${cap(what)} finished successfully.` },
    label: { firstDeny: null },
    why: (sizes) => healthyWhy(n - 1, `After starting ${what}, the model polls with ${desc}: ${polls} polls, each waiting on the outside world; the answer stays the same for up to ${best} polls in a row, and cycle${m > 1 ? "s" : ""} 2${m > 1 ? `-${m + 1}` : ""} hold${m > 1 ? "" : "s"} nothing but that same poll with that same answer, straddling ${m + 1} compactions; then the answer moves and the job ends in success. An identical poll that waits is healthy while it waits.`, sizes),
  };
};

/** H8: each cycle re-reads the same 2-4 files (identical), then does new work: edits, new files, a test whose result moves. */
HEALTHY.H8 = (r, W, T) => {
  const n = r.int(4, 9);
  const fixed = otherFiles(r, W, r.int(2, 4));
  const feature = r.pick(["export to CSV", "per-tenant rate limits", "soft delete", "webhook retries", "audit trail", "currency rounding"]);
  const mods = r.sample(W.mods, n + 3);
  const ext = W.S.src("a", "b").split(".").pop();
  const tcmd = r.pick(W.S.suite);
  let failing = n + r.int(1, 4);
  const total = failing + r.int(20, 200);
  const cycles = [];
  const made = [];
  for (let c = 0; c < n; c++) {
    const steps = [];
    for (const p of (r.chance(0.7) ? fixed : r.shuffle(fixed))) steps.push({ tools: [T.read(p)] });
    if (c === 0 && r.chance(0.5)) steps[0] = { ...steps[0], text: "Reading the project rules first." };
    const k = r.int(1, 3);
    for (let j = 0; j < k; j++) {
      if (r.chance(0.5)) {
        const p = W.srcOf(mods[(c * 3 + j) % mods.length], r.pick(W.areas));
        const body = `${sourceLines(W, `${p}#${c}.${j}`, r.int(12, 30)).join("\n")}\n`;
        const np = p.replace(new RegExp(`\\.${ext}$`), `_${feature.split(" ")[0].replace(/[^a-z]/gi, "").toLowerCase()}.${ext}`);
        steps.push({ tools: [T.write(np, body)] });
        made.push(np);
      } else {
        const p = W.srcOf(mods[(c * 3 + j) % mods.length]);
        W.file(p, () => sourceLines(W, p, r.int(40, 120)));
        if (r.chance(0.6)) steps.push({ tools: [T.read(p)] });
        const [old] = r.pick(editableLines(W, p));
        steps.push({ tools: [T.edit(p, old, changeLine(r, old, commentOf(W)))] });
        made.push(p);
      }
    }
    failing = c === n - 1 ? 0 : Math.max(1, failing - r.int(1, 2));
    const dur = W.S.dur(r);
    const testOut = failing ? `${W.S.fail({ file: W.testOf(mods[0]), name: W.S.testName(r, "feature"), exp: 1, got: 0, src: made.at(-1), line: r.int(5, 60), passed: total - failing, dur }).replace(/1 failed \| (\d+) passed \((\d+)\)/, `${failing} failed | $1 passed ($2)`).replace(/1 failed, (\d+) passed/, `${failing} failed, $1 passed`)}` : W.S.pass({ file: W.testOf(mods[0]), total, dur });
    steps.push({ tools: [T.bash(tcmd, testOut, "Run the tests", { exit: failing ? 1 : 0, sem: { k: "ask", key: `check:${tcmd}`, ans: `left:${failing}:${digest(testOut.replace(/\d+(?:\.\d+)?\s?(?:ms|s|seconds)\b/g, "#"))}` } })] });
    cycles.push(steps);
  }
  const prompt = r.pick([`Implement ${feature} (see ${fixed.find((p) => p.endsWith(".md")) ?? fixed[0]}); follow the project rules.`, `Add ${feature}. The conventions are in ${fixed[0]}.`, `Build ${feature} end to end and make \`${tcmd}\` pass.`]);
  return {
    plan: { loop: false, prompt, title: cap(feature), cycles: withResume(r, cycles, ["Re-reading the rules and the spec before continuing.", "Getting context back, then the next part.", ...RESUME]), summary: (c) => summaryText(r, { goal: prompt, done: [`${made.length} files touched so far`], next: ["Next part of the feature, then the tests"], files: fixed }), final: `${r.pick(ANSWER_OPEN)} ${cap(feature)} is in; \`${tcmd}\` passes (${total} tests).` },
    label: { firstDeny: null },
    why: (sizes) => healthyWhy(n - 1, `Every cycle starts by re-reading the same ${fixed.length} files (${fixed.join(", ")}; identical output), then does new work: ${made.length} edits and new files in all, and a test run whose failures go down to zero. The re-reads are recovery after the summary; the work after them is new.`, sizes),
  };
};

// ================================================================ bookkeeping: a todo list in some sessions (neither information nor an effect)

const TODO_BANK = [
  ["Reproduce the problem", "Re-run it to see the failure", "Confirm the failure first", "Check the current state"],
  ["Read the relevant code", "Look at the code involved", "Go through the affected files", "Understand the code path"],
  ["Make the change", "Apply the fix", "Implement the change", "Edit the code"],
  ["Run the checks", "Verify with the tests", "Re-run the tests", "Check nothing else broke"],
  ["Summarise for the user", "Report back", "Write up the result", "Tell the user what changed"],
];
/** In about a third of the sessions, a todowrite at the start of most cycles: reworded in a loop (statuses stuck), advancing in healthy work. */
function addPlans(r, plan) {
  if (!r.chance(0.35)) return;
  const k = r.int(3, 5);
  const rows = TODO_BANK.slice(0, k);
  plan.cycles = plan.cycles.map((cy, c) => {
    if (c > 0 && r.chance(0.3)) return cy;
    const done = plan.loop ? 0 : Math.min(k - 1, Math.floor((c * k) / plan.cycles.length));
    const todos = rows.map((alts, i) => ({ content: plan.loop ? alts[(c + i) % alts.length] : alts[0], status: i < done ? "completed" : i === done ? "in_progress" : "pending", priority: i < 3 ? "high" : "medium" }));
    const step = { tools: [{ tool: "todowrite", input: { todos }, title: `${todos.filter((x) => x.status !== "completed").length} todos`, output: JSON.stringify(todos, null, 2), metadata: { todos, truncated: false }, sem: { k: "plan" } }], text: c === 0 ? r.pick(["Plan:", "Here is the plan.", null]) : null };
    const at = r.int(0, Math.min(2, cy.length));
    return [...cy.slice(0, at), step, ...cy.slice(at)];
  });
}

// ================================================================ main

const LOOP_KINDS = ["L1", "L2", "L3", "L4", "L5", "L6", "L7"];
const SLUG = { L1: "respelled-reads", L2: "overlapping-windows", L3: "same-check-reads-between", L4: "redelegation", L5: "rephrased-search", L6: "duplicate-effect", L7: "mixed", H1: "new-spellings-new-lines", H2: "advancing-pages", H3: "check-after-each-effect", H4: "redelegation-with-news", H5: "searches-with-new-results", H6: "same-shape-new-targets", H7: "waiting-polls", H8: "recovery-then-work" };

function generate(seed, perKind, kinds) {
  const cases = {}, expect = {};
  for (const kind of kinds) {
    for (let i = 1; i <= perKind; i++) {
      const r = rng(hash32(`judgement3:${seed}:${kind}:${i}`));
      const W = makeWorld(r.fork("world"));
      const T = tools(W);
      const built = kind.startsWith("L") ? buildLoop(kind, r, W, T) : HEALTHY[kind](r, W, T);
      addPlans(r, built.plan);
      const name = `${kind.toLowerCase()}-${SLUG[kind]}-${i}`;
      checkLabel(name, built.plan, W);
      const { exp, sizes } = render(r.fork("render"), W, built.plan);
      for (const [tr, af] of sizes) {
        if (1 - af / tr < 0.3) throw new Error(`${name}: a compaction cuts only ${Math.round(100 * (1 - af / tr))}%`);
        if (af >= W.usable) throw new Error(`${name}: the context after a compaction is over the usable line`);
      }
      cases[name] = exp;
      expect[name] = { firstDeny: built.label.firstDeny, ...(built.label.accept ? { accept: built.label.accept } : {}), flags: W.flags, why: built.why(sizes), kind, ...(built.sub && built.sub !== kind ? { element: built.sub } : {}) };
    }
  }
  return { cases, expect };
}

/** One line per call of an export, cycle by cycle (for checking labels by hand). */
function printSession(file) {
  const d = JSON.parse(fs.readFileSync(file, "utf8"));
  const root = d.info.directory;
  let c = 1;
  console.log(`# ${d.info.title}  (${d.messages.length} messages)`);
  console.log(`-- cycle ${c}`);
  for (const m of d.messages) {
    if (m.info.role === "user") {
      if (m.parts.some((p) => p.type === "compaction")) { c++; continue; }
      if (m.parts.some((p) => p.metadata?.compaction_continue)) { console.log(`-- cycle ${c}`); continue; }
      console.log(`USER ${m.parts.map((p) => p.text).join(" ").slice(0, 160)}`);
      continue;
    }
    if (m.info.summary) continue;
    const tk = m.info.tokens.total;
    for (const p of m.parts) {
      if (p.type === "text" && m.info.finish === "stop") console.log(`  [${tk}] ANSWER ${p.text.slice(0, 120)}`);
      if (p.type !== "tool") continue;
      const inp = JSON.stringify(p.state.input).replaceAll(root + "/", "").slice(0, 150);
      const out = p.state.status === "error" ? `ERROR ${p.state.error.slice(0, 50)}` : p.state.output;
      console.log(`  [${tk}] ${p.tool} ${inp}  => ${digest(out).slice(0, 6)} ${JSON.stringify(String(out).slice(0, 70))}`);
    }
  }
}

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
if (args.includes("--print")) {
  printSession(opt("--print"));
} else if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("gen.mjs")) {
  const out = opt("--out");
  if (!out) { console.error("usage: node gen.mjs --out DIR [--seed N] [--per-kind K] [--kinds L1,H2,...]\n       node gen.mjs --print FILE.json"); process.exit(2); }
  const seed = Number(opt("--seed", "1"));
  const perKind = Number(opt("--per-kind", "3"));
  const kinds = opt("--kinds", [...LOOP_KINDS, ...Object.keys(HEALTHY)].join(",")).split(",");
  const unknown = kinds.filter((k) => !LOOP_KINDS.includes(k) && !HEALTHY[k]);
  if (unknown.length || !(perKind >= 1) || !Number.isInteger(seed)) { console.error(`unknown kind ${unknown.join(",")} or bad --per-kind/--seed; kinds: ${[...LOOP_KINDS, ...Object.keys(HEALTHY)].join(",")}`); process.exit(2); }
  const { cases, expect } = generate(seed, perKind, kinds);
  fs.mkdirSync(out, { recursive: true });
  for (const [name, c] of Object.entries(cases)) fs.writeFileSync(path.join(out, `${name}.json`), `${JSON.stringify(c, null, 2)}\n`);
  fs.writeFileSync(path.join(out, "expect.json"), `${JSON.stringify(expect, null, 1)}\n`);
  console.log(`wrote ${Object.keys(cases).length} sessions (${kinds.length} kinds x ${perKind}, seed ${seed}) to ${out}`);
}

export { generate, LOOP_KINDS, HEALTHY };

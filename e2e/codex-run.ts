/**
 * Runs the real Codex CLI (`codex exec`, headless) against the scripted model of
 * e2e/codex-model.ts with the guard's hooks installed by the guard's own installer into a
 * temporary `CODEX_HOME`: its `config.toml` names the scripted model as its provider and
 * sets a small auto-compact limit, so compactions come cheap and no request leaves the
 * machine. The installer records the hooks' trust through `codex app-server` (no
 * `--dangerously-bypass-hook-trust`). The binary comes from e2e/install-codex.sh (cached in
 * .cache/codex/<version>/).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { buildSync } from "esbuild";
import { live } from "../src/live/codex.js";
import { startCodexModel, type CodexRequest, type CodexScenario } from "./codex-model.js";
import { PROJECT_ROOT } from "./sandbox.js";

/** The Codex release the suite runs. */
export const CODEX_VERSION = "0.169.0";

/** Auto-compaction fires once a step's context reaches this many tokens. */
export const COMPACT_LIMIT = 5_000;

/** The Codex binary (installed by e2e/install-codex.sh when missing, or `CODEX_BIN`). */
export function codexBinary(): string {
  if (process.env.CODEX_BIN) return process.env.CODEX_BIN;
  const out = execFileSync(join(PROJECT_ROOT, "e2e", "install-codex.sh"), [CODEX_VERSION], { encoding: "utf8" });
  return out.trim().split(" ").slice(1).join(" ");
}

const TMP = join(PROJECT_ROOT, ".e2e-tmp");

/**
 * The command Codex's hooks run: the CLI's `hook codex` when the built CLI has it, else the
 * suite's stand-in (e2e/codex-hook.ts, bundled here). Both end in ` hook codex`.
 */
export function hookCommand(): string {
  const bin = join(PROJECT_ROOT, "dist", "cli", "bin.js");
  if (existsSync(bin)) {
    // The CLI answers an input it cannot read with "go on" (exit 0); without the command it says "unknown command" (exit 2).
    const probe = spawnSync(process.execPath, [bin, "hook", "codex"], { input: "{}", encoding: "utf8" });
    if (probe.status === 0) return `node ${bin} hook codex`;
  }
  mkdirSync(TMP, { recursive: true });
  const out = join(TMP, "codex-hook.mjs");
  buildSync({
    entryPoints: [join(PROJECT_ROOT, "e2e", "codex-hook.ts")],
    outfile: out,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // zod and jsonc-parser are required through createRequire at run time, from node_modules.
    external: ["zod", "jsonc-parser", "@opencode-ai/sdk"],
    logLevel: "error",
  });
  return `node ${out} hook codex`;
}

/** What one `codex exec` run did. */
export interface CodexRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly requests: readonly CodexRequest[];
  /** The session's rollout (JSONL), as Codex wrote it. */
  readonly rollout: string;
  readonly rolloutPath: string;
  /** Wall time of the run, ms. */
  readonly elapsedMs: number;
  /** How many times Codex said it ran each hook event (`hook: <Event>` lines on its stderr). */
  readonly hookRuns: Readonly<Record<string, number>>;
  /** Codex's words for each hook run's end, in order: `SessionStart Completed`, `SessionStart Stopped`, `PreToolUse Blocked` … */
  readonly hookEnds: readonly string[];
}

/** The first `*.jsonl` under `dir`, searched depth first. */
function findJsonl(dir: string): string | null {
  if (!existsSync(dir)) return null;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = findJsonl(path);
      if (found !== null) return found;
    } else if (entry.name.endsWith(".jsonl")) return path;
  }
  return null;
}

/**
 * One headless Codex run of `prompt` against `scenario`, the guard installed (user scope).
 * @param env more environment for Codex and so for its hooks (the guard's `OPENCODE_COMPACTION_GUARD_*`).
 */
export async function runCodex(
  scenario: CodexScenario,
  options: {
    readonly prompt?: string;
    readonly env?: Record<string, string>;
    readonly maxRequests?: number;
    readonly timeoutMs?: number;
    readonly json?: boolean;
    readonly files?: Readonly<Record<string, string>>;
    /** Install with no `codex` on PATH, so that the installer cannot record the hooks' trust. */
    readonly untrusted?: boolean;
  } = {},
): Promise<CodexRun> {
  mkdirSync(TMP, { recursive: true });
  const root = mkdtempSync(join(TMP, "codex-"));
  const home = join(root, "home");
  const codexHome = join(home, ".codex");
  const project = join(root, "project");
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(project, { recursive: true });
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(project, name), text);
  const server = await startCodexModel(scenario, options.maxRequests ?? 40);
  try {
    writeFileSync(
      join(codexHome, "config.toml"),
      [
        "# The scripted model on 127.0.0.1: no request leaves the machine.",
        'model = "scripted-model"',
        'model_provider = "scripted"',
        "model_context_window = 10000",
        `model_auto_compact_token_limit = ${COMPACT_LIMIT}`,
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        "",
        "[model_providers.scripted]",
        'name = "scripted"',
        `base_url = "${server.baseURL}"`,
        'wire_api = "responses"',
        'env_key = "SCRIPTED_API_KEY"',
        "",
      ].join("\n"),
    );
    const bin = codexBinary();
    // The binary's folder first on PATH: the installer finds `codex` there to record the hooks' trust.
    const env = {
      PATH: [dirname(bin), process.env.PATH ?? ""].join(delimiter),
      HOME: home,
      CODEX_HOME: codexHome,
      SCRIPTED_API_KEY: "dummy-key",
      ...options.env,
    };
    const installEnv = options.untrusted ? { ...env, PATH: "" } : env;
    const installed = await live.install("user", hookCommand(), { env: installEnv, cwd: project, home });
    // Codex runs a user's hook only once its trust is recorded; the installer records it through Codex's app server.
    const trusted = installed.changes.filter((c) => c.startsWith("trusted the "));
    if (trusted.length !== (options.untrusted ? 0 : 2)) throw new Error(`install codex: unexpected trust: ${JSON.stringify(installed)}`);
    const started = Date.now();
    const args = [
      "exec",
      "--skip-git-repo-check",
      ...(options.json ? ["--json"] : []),
      "-C",
      project,
      options.prompt ?? "Check the build.",
    ];
    const child = spawn(bin, args, { env, cwd: project, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 90_000);
    const exitCode = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    clearTimeout(timer);
    const elapsedMs = Date.now() - started;
    const rolloutPath = findJsonl(join(codexHome, "sessions")) ?? "";
    const hookRuns: Record<string, number> = {};
    for (const match of stderr.matchAll(/^hook: (\w+)$/gm)) hookRuns[match[1]!] = (hookRuns[match[1]!] ?? 0) + 1;
    const hookEnds = [...stderr.matchAll(/^hook: (\w+ \w+)$/gm)].map((m) => m[1]!);
    return {
      hookEnds,
      exitCode,
      stdout,
      stderr,
      requests: [...server.requests],
      rollout: rolloutPath === "" ? "" : readFileSync(rolloutPath, "utf8"),
      rolloutPath,
      elapsedMs,
      hookRuns,
    };
  } finally {
    await server.close();
  }
}

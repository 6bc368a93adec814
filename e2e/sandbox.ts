/**
 * A hermetic place to run the real opencode: a temp dir holding its XDG dirs, a HOME,
 * a project dir with `opencode.json`, and config dirs seeded so that opencode does not try
 * to install `@opencode-ai/plugin` from the network at start-up.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MODEL_LIMITS, READ_FILE_CONTENT, READ_FILE_NAME, type ModelLimits } from "./scenarios.js";

/** The project root (the folder holding package.json), found from this file. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The opencode release the suite, the demo, `npm run try` and the benches run. Its platform
 * binary is installed into .cache/opencode/<version>/ on first use ({@link installedOpencode}),
 * as the compatibility matrix installs the others: no npm package of opencode is installed
 * by `npm ci`.
 */
export const OPENCODE_VERSION = "1.18.33";

/**
 * The opencode binary the suite runs: `OPENCODE_BIN` when set (e.g. another release's, from
 * `e2e/install-opencode.sh`), else {@link OPENCODE_VERSION}'s, installed when missing.
 * @returns an absolute path; throws when `OPENCODE_BIN` names no file, or the install fails.
 */
export function opencodeBinary(): string {
  const fromEnv = process.env.OPENCODE_BIN;
  if (fromEnv) {
    const path = resolve(PROJECT_ROOT, fromEnv);
    if (!existsSync(path)) throw new Error(`OPENCODE_BIN=${fromEnv}: no such file`);
    return path;
  }
  return installedOpencode(OPENCODE_VERSION);
}

/**
 * The npm "OpenCode 2.0 preview" CLI (`@opencode-ai/cli-<platform>`, binary `lildax`) as
 * {@link installedOpencode} and e2e/install-opencode.sh name it: `cli-<version>`.
 */
export const OPENCODE_PREVIEW = "cli-1.18.18";

/**
 * The binary of one opencode release: `.cache/opencode/<version>/bin/opencode`, installed by
 * e2e/install-opencode.sh when missing (only the platform package: 60 MB to download, 185 MB on disk;
 * `OPENCODE_CACHE_DIR` moves the cache, and the script then decides what is there). A version
 * written `cli-<version>` ({@link OPENCODE_PREVIEW}) is the 2.0 preview's CLI:
 * `.cache/opencode/cli-<version>/bin/lildax` (46 MB to download, 132 MB on disk).
 * @returns an absolute path; throws when the install fails.
 */
export function installedOpencode(version: string): string {
  const name = version.startsWith("cli-") ? "lildax" : "opencode";
  const cached = join(PROJECT_ROOT, ".cache", "opencode", version, "bin", name);
  if (!process.env.OPENCODE_CACHE_DIR && existsSync(cached)) return cached;
  const out = execFileSync(join(PROJECT_ROOT, "e2e", "install-opencode.sh"), [version], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return out.trim().split(" ").slice(1).join(" ");
}

/** The paths of one sandbox. All absolute, all inside `root`. */
export interface Sandbox {
  root: string;
  home: string;
  project: string;
  xdg: { data: string; config: string; cache: string; state: string };
  /** The file the `read` scenarios read. */
  readPath: string;
  /** The environment opencode runs with (nothing inherited but PATH and locale). */
  env: Record<string, string>;
  /** The opencode binary this sandbox runs (absolute). */
  opencodeBin: string;
  dispose(): Promise<void>;
}

/** What goes into the project's `opencode.json`. */
export interface SandboxConfig {
  /** The fake provider's base URL, ending in `/v1`. */
  baseURL: string;
  /** Plugin entries as opencode takes them: a `file://` URL or npm spec, or `[entry, options]`. */
  plugin?: Array<string | [string, Record<string, unknown>]>;
  /** Permission rules merged over the defaults (bash, read, edit, external_directory: allow). */
  permission?: Record<string, unknown>;
  /** The `compaction` settings (e.g. `{ reserved: 500 }`); none by default. */
  compaction?: Record<string, unknown>;
  /** The fake model's limits; default MODEL_LIMITS. */
  limits?: ModelLimits;
  /** More fields of the fake model's entry (e.g. `reasoning: true`). */
  model?: Record<string, unknown>;
  /** Local MCP servers: name → the command opencode starts (stdio). */
  mcp?: Record<string, string[]>;
}

/** Environment switches that keep opencode off the network and away from the user's setup. */
export const NETWORK_OFF_ENV = {
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_SHARE: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
  OPENCODE_DISABLE_CLAUDE_CODE: "1",
  OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
};

/**
 * Seed a config dir so opencode's start-up install of `@opencode-ai/plugin` finds it done:
 * it skips the install when `node_modules/` exists and `package-lock.json` lists every
 * dependency of `package.json` (checked in opencode 1.18.33's `Npm.install`).
 */
async function seedConfigDir(dir: string): Promise<void> {
  // Only the dependency names are compared; the version is what opencode would install.
  const deps = { "@opencode-ai/plugin": OPENCODE_VERSION };
  await mkdir(join(dir, "node_modules"), { recursive: true });
  await writeFile(join(dir, "package.json"), JSON.stringify({ dependencies: deps }, null, 2));
  await writeFile(
    join(dir, "package-lock.json"),
    JSON.stringify({ lockfileVersion: 3, requires: true, packages: { "": { dependencies: deps } } }, null, 2),
  );
}

/** The `opencode.json` for a run against the fake provider. */
export function opencodeConfig(config: SandboxConfig): Record<string, unknown> {
  return {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    enabled_providers: ["fake"],
    model: "fake/fakemodel",
    permission: { bash: "allow", read: "allow", edit: "allow", external_directory: "allow", ...config.permission },
    provider: {
      fake: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake",
        options: { baseURL: config.baseURL, apiKey: "x" },
        models: {
          fakemodel: { name: "Fake model", tool_call: true, ...config.model, limit: { ...(config.limits ?? MODEL_LIMITS) } },
        },
      },
    },
    ...(config.compaction ? { compaction: config.compaction } : {}),
    ...(config.mcp
      ? { mcp: Object.fromEntries(Object.entries(config.mcp).map(([name, command]) => [name, { type: "local", command, enabled: true }])) }
      : {}),
    ...(config.plugin ? { plugin: config.plugin } : {}),
  };
}

/**
 * Write a scenario's files into the project dir (paths relative to it; parent dirs are
 * created). Content starting with "+x " is written without that prefix, executable.
 */
export async function writeProjectFiles(sandbox: Sandbox, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const path = join(sandbox.project, name);
    await mkdir(dirname(path), { recursive: true });
    const executable = content.startsWith("+x ");
    await writeFile(path, executable ? content.slice(3) : content);
    if (executable) await chmod(path, 0o755);
  }
}

/** Write the project's `opencode.json` for a run against the fake provider. */
export async function writeOpencodeConfig(sandbox: Sandbox, config: SandboxConfig): Promise<void> {
  await writeFile(join(sandbox.project, "opencode.json"), JSON.stringify(opencodeConfig(config), null, 2));
}

/**
 * Create a sandbox under the OS temp dir (or in `root`, created when missing): XDG dirs, HOME,
 * a project dir holding the file the read scenarios read, seeded config dirs. Write
 * `opencode.json` with `writeOpencodeConfig`.
 * @returns the sandbox; `dispose()` removes it.
 */
export async function createSandbox(options: { opencodeBin?: string; root?: string } = {}): Promise<Sandbox> {
  const opencodeBin = options.opencodeBin ?? opencodeBinary();
  const root = options.root ?? (await mkdtemp(join(tmpdir(), "ocg-e2e-")));
  const home = join(root, "home");
  const project = join(root, "project");
  const xdg = { data: join(root, "data"), config: join(root, "config"), cache: join(root, "cache"), state: join(root, "state") };
  for (const dir of [home, project, ...Object.values(xdg)]) await mkdir(dir, { recursive: true });
  await seedConfigDir(join(xdg.config, "opencode"));
  await seedConfigDir(join(project, ".opencode"));
  const readPath = join(project, READ_FILE_NAME);
  await writeFile(readPath, READ_FILE_CONTENT);

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: process.env.LANG ?? "C.UTF-8",
    HOME: home,
    TMPDIR: tmpdir(),
    XDG_DATA_HOME: xdg.data,
    XDG_CONFIG_HOME: xdg.config,
    XDG_CACHE_HOME: xdg.cache,
    XDG_STATE_HOME: xdg.state,
    ...NETWORK_OFF_ENV,
  };
  return { root, home, project, xdg, readPath, env, opencodeBin, dispose: () => rm(root, { recursive: true, force: true }) };
}

/**
 * Install by name, the way opencode takes it: the package is packed as `npm publish` would
 * upload it, published (with its runtime dependency tree) to a verdaccio registry on
 * 127.0.0.1 that has no uplink, and the real opencode installs it itself from an
 * `opencode.json` that names it by `name@version`, loads it and stops the fixed-point loop.
 *
 * opencode 1.18.33 installs npm plugins with npm's own Arborist into
 * `$XDG_CACHE_HOME/opencode/packages/<spec>/`, reading npm's configuration (@npmcli/config)
 * from the environment (`npm_config_registry`), the user's `~/.npmrc` and the global npmrc;
 * the project's `.npmrc` is not read (the install runs in the cache dir). Both ways are
 * tested here, and the one-line `opencode plugin <module>` install.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectLiveMatchesReplay } from "./expect-run.js";
import { runScenario, type ScenarioRun } from "./harness.js";
import {
  packProjectAndDependencies,
  runtimeDependencyFolders,
  startLocalRegistry,
  type LocalRegistry,
  type PackResult,
} from "./local-registry.js";
import { e2eConcurrency, mapLimit } from "./pool.js";
import { PROJECT_ROOT } from "./sandbox.js";

let registry: LocalRegistry;
let packDir: string;
let pack: { project: PackResult; dependencies: PackResult[] };
let spec: string;
const runs = new Map<string, ScenarioRun>();
/** What `opencode plugin <spec>` printed and wrote. */
let plug: { output: string; config: unknown } = { output: "", config: null };

beforeAll(async () => {
  packDir = await mkdtemp(join(tmpdir(), "ocg-pack-"));
  pack = await packProjectAndDependencies(packDir);
  registry = await startLocalRegistry();
  for (const p of [pack.project, ...pack.dependencies]) await registry.publish(p.tarball);
  spec = `${pack.project.name}@${pack.project.version}`;
  const npmrc = (home: string) => writeFile(join(home, ".npmrc"), `registry=${registry.url}\n`);
  const jobs: Array<{ key: string; run: () => Promise<ScenarioRun> }> = [
    {
      // The [name@version, options] tuple; the registry from the environment.
      key: "tuple",
      run: () =>
        runScenario({
          scenario: "fixed-point",
          guard: true,
          pluginSpec: spec,
          pluginOptions: { threshold: 4 },
          env: { npm_config_registry: registry.url },
        }),
    },
    {
      // The plain "name@version" entry; the registry from ~/.npmrc.
      key: "string",
      run: () => runScenario({ scenario: "fixed-point", guard: true, pluginSpec: spec, prepareSandbox: (sb) => npmrc(sb.home) }),
    },
    {
      // No plugin in opencode.json: `opencode plugin <spec>` installs it and adds it to .opencode/opencode.json.
      key: "plugin-command",
      run: () =>
        runScenario({
          scenario: "fixed-point",
          guard: false,
          replay: true,
          prepareSandbox: async (sb) => {
            await npmrc(sb.home);
            const res = await promisify(execFile)(sb.opencodeBin, ["plugin", spec], { cwd: sb.project, env: sb.env, timeout: 60_000 });
            plug = {
              output: res.stdout + res.stderr,
              config: JSON.parse(await readFile(join(sb.project, ".opencode", "opencode.json"), "utf8")) as unknown,
            };
          },
        }),
    },
  ];
  const results = await mapLimit(jobs, e2eConcurrency(), (job) => job.run());
  jobs.forEach((job, i) => runs.set(job.key, results[i]!));
}, 240_000);

afterAll(async () => {
  await registry?.close();
  if (packDir) await rm(packDir, { recursive: true, force: true });
});

describe("the packed package", () => {
  it("holds LICENSE, README.md, package.json, dist/ and the settings files' JSON Schema only", () => {
    const files = pack.project.files;
    expect(files.filter((f) => !f.startsWith("dist/"))).toEqual([
      "LICENSE",
      "README.md",
      "package.json",
      "schema/compaction-guard.schema.json",
    ]);
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/cli/bin.js");
    expect(files.some((f) => /test|fixture|\.ts$/.test(f.replace(/\.d\.ts$/, "")))).toBe(false);
  });
});

describe("the tarball installed alone, dev dependencies omitted", () => {
  it("npm install --omit=dev <tarball>, then npx opencode-compaction-guard replay <export> works", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ocg-install-"));
    try {
      await writeFile(join(dir, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
      const env = {
        ...process.env,
        npm_config_userconfig: join(dir, ".npmrc"),
        npm_config_registry: registry.url,
        npm_config_audit: "false",
        npm_config_fund: "false",
      };
      await writeFile(join(dir, ".npmrc"), "");
      const exec = promisify(execFile);
      await exec("npm", ["install", "--omit=dev", pack.project.tarball], { cwd: dir, env });
      const installed = JSON.parse(await readFile(join(dir, "package-lock.json"), "utf8")) as { packages: Record<string, unknown> };
      // The runtime dependency tree of our lockfile, nothing from devDependencies, no optional peer.
      expect(
        Object.keys(installed.packages)
          .filter((k) => k)
          .sort(),
      ).toEqual([...(await runtimeDependencyFolders()), "node_modules/opencode-compaction-guard"].sort());
      const fixture = join(PROJECT_ROOT, "fixtures", "opencode-1.18.33-loop-bash.json");
      const { stdout } = await exec(
        "npx",
        ["--no-install", "opencode-compaction-guard", "replay", fixture, "--context-limit", "8000", "--output-limit", "2000"],
        { cwd: dir, env },
      );
      expect(stdout).toMatch(/^first deny: compaction 1, cannot-make-room/m);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** A fixed-point run stopped at compaction 1 by cannot-make-room (the default settings), from a plugin opencode installed from the local registry. */
function expectInstalledAndStopped(run: ScenarioRun, threshold: string): void {
  expect(run.timedOut).toBe(false);
  expect(run.exitCode).toBe(0);
  expect(run.guardLines[0]?.message).toMatch(
    new RegExp(`^compaction-guard ${pack.project.version.replace(/\./g, "\\.")} loaded: ${threshold}`),
  );
  expect(run.metrics.ended.kind).toBe("guard-stop");
  expect(run.decisions.map((d) => [d.index, d.decision, d.rule, d.level])).toEqual([[1, "deny", "cannot-make-room", "WARN"]]);
  expect(run.decisions[0]!.message).toContain(run.sessionID!);
  expect(run.figures!.continueTurns).toBe(0);
  expectLiveMatchesReplay(run);
}

describe("opencode 1.18.33 installs it by name from a registry on 127.0.0.1", () => {
  it("the tarball came from the local registry", () => {
    const tarball = `GET /${pack.project.name}/-/${pack.project.name}-${pack.project.version}.tgz`;
    expect(registry.requests).toContain(tarball);
    // A scoped package's tarball is named without its scope: /@scope/name/-/name-1.0.0.tgz.
    for (const d of pack.dependencies)
      expect(registry.requests).toContain(`GET /${d.name}/-/${d.name.replace(/^@[^/]+\//, "")}-${d.version}.tgz`);
  });

  it('["opencode-compaction-guard@<version>", { threshold: 4 }] (npm_config_registry): loaded with the tuple\'s options, stops the loop at 1', () => {
    expectInstalledAndStopped(runs.get("tuple")!, "threshold 4 \\(option\\)");
  });

  it('"opencode-compaction-guard@<version>" (registry in ~/.npmrc): loaded with the defaults, stops the loop at 1', () => {
    expectInstalledAndStopped(runs.get("string")!, "threshold 3 \\(default\\)");
  });

  it("opencode plugin <name@version> installs it, adds it to .opencode/opencode.json, and the next run loads it", () => {
    expect(plug.output).toContain(`Installed ${spec}`);
    expect(plug.output).toContain("Detected server target");
    expect(plug.config).toEqual({ plugin: [spec] });
    expectInstalledAndStopped(runs.get("plugin-command")!, "threshold 3 \\(default\\)");
  });
});

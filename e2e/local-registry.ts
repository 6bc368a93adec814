/**
 * A throwaway npm registry on 127.0.0.1 for the install-by-name tests: verdaccio (one of
 * the suite's own packages: e2e/package.json, tools.ts) with its own storage dir and no
 * uplink, so nothing is fetched from the internet. The package is packed with `npm pack` (what `npm publish` would upload) and
 * published to it together with its runtime dependencies, packed from node_modules.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "../src/sources/opencode.js";
import { PROJECT_ROOT } from "./sandbox.js";
import { E2E_DIR, ensureE2eTools } from "./tools.js";

const run = promisify(execFile);

/** A running local registry. */
export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` (with the trailing slash npm writes). */
  url: string;
  /** Every request verdaccio logged, as `METHOD path` (e.g. `GET /opencode-compaction-guard`). */
  requests: string[];
  /** Publish a tarball to it. */
  publish(tarball: string): Promise<void>;
  close(): Promise<void>;
}

/** What `npm pack --json` says about one tarball. */
export interface PackResult {
  /** Absolute path of the tarball. */
  tarball: string;
  name: string;
  version: string;
  /** Packed size in bytes. */
  size: number;
  unpackedSize: number;
  /** Paths inside the package, sorted. */
  files: string[];
}

/** npm with a private user config, so the caller's ~/.npmrc plays no part. */
async function npm(args: string[], cwd: string, npmrc: string): Promise<string> {
  const { stdout } = await run("npm", args, {
    cwd,
    env: {
      ...process.env,
      npm_config_userconfig: npmrc,
      npm_config_update_notifier: "false",
      npm_config_fund: "false",
      npm_config_audit: "false",
    },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

/**
 * `npm pack` a folder (scripts not run: the project is built already) into `dest`.
 * @returns the tarball and its contents.
 */
export async function packFolder(folder: string, dest: string): Promise<PackResult> {
  const npmrc = join(dest, ".npmrc-pack");
  await writeFile(npmrc, "");
  const out = await npm(["pack", "--ignore-scripts", "--json", "--pack-destination", dest, folder], dest, npmrc);
  const [info] = JSON.parse(out) as Array<{
    filename: string;
    name: string;
    version: string;
    size: number;
    unpackedSize: number;
    files: Array<{ path: string }>;
  }>;
  if (!info) throw new Error(`npm pack ${folder} printed nothing`);
  return {
    tarball: join(dest, info.filename),
    name: info.name,
    version: info.version,
    size: info.size,
    unpackedSize: info.unpackedSize,
    files: info.files.map((f) => f.path).sort(),
  };
}

/**
 * The installed folders (`node_modules/…`, nested ones too) of every package a production
 * install needs: the lockfile's entries that are not dev-only, i.e. the runtime
 * dependencies and theirs.
 */
export async function runtimeDependencyFolders(): Promise<string[]> {
  const lock = JSON.parse(await readFile(join(PROJECT_ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith("node_modules/") && entry.dev !== true && entry.devOptional !== true)
    .map(([path]) => path)
    .sort();
}

/** Pack this project (as `npm publish` would) and every package of its runtime dependency tree from node_modules. */
export async function packProjectAndDependencies(dest: string): Promise<{ project: PackResult; dependencies: PackResult[] }> {
  const project = await packFolder(PROJECT_ROOT, dest);
  const dependencies: PackResult[] = [];
  for (const folder of await runtimeDependencyFolders()) dependencies.push(await packFolder(join(PROJECT_ROOT, folder), dest));
  return { project, dependencies };
}

/** Wait until `url` answers 200, or throw after `timeoutMs`. */
async function waitForOk(url: string, child: ChildProcess, timeoutMs: number, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited (${child.exitCode}): ${log().slice(-2000)}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`verdaccio did not answer ${url} within ${timeoutMs} ms: ${log().slice(-2000)}`);
}

/**
 * Start verdaccio on a free port of 127.0.0.1 with an empty storage dir and no uplinks
 * (anyone may read; publishing needs the user this function creates).
 */
export async function startLocalRegistry(): Promise<LocalRegistry> {
  ensureE2eTools();
  const dir = await mkdtemp(join(tmpdir(), "ocg-registry-"));
  const storage = join(dir, "storage");
  await mkdir(storage);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = [
    `storage: ${JSON.stringify(storage)}`,
    `auth:`,
    `  htpasswd:`,
    `    file: ${JSON.stringify(join(dir, "htpasswd"))}`,
    `    max_users: 10`,
    // No uplinks: what is not published here does not exist (no fetch from npmjs.org).
    `uplinks: {}`,
    `packages:`,
    `  "**":`,
    `    access: $all`,
    `    publish: $authenticated`,
    `web:`,
    `  enable: false`,
    `middlewares:`,
    `  audit:`,
    `    enabled: false`,
    `log: { type: stdout, format: json, level: http }`,
    "",
  ].join("\n");
  const configPath = join(dir, "config.yaml");
  await writeFile(configPath, config);
  const child = spawn(
    process.execPath,
    [join(E2E_DIR, "node_modules", "verdaccio", "bin", "verdaccio"), "--config", configPath, "--listen", `127.0.0.1:${port}`],
    {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, NODE_ENV: "production" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  const requests: string[] = [];
  child.stdout!.on("data", (d: Buffer) => {
    output += d.toString("utf8");
    let nl: number;
    while ((nl = output.indexOf("\n")) >= 0) {
      const line = output.slice(0, nl);
      output = output.slice(nl + 1);
      try {
        const entry = JSON.parse(line) as { request?: { method?: string; url?: string } };
        if (entry.request?.method && entry.request.url) requests.push(`${entry.request.method} ${entry.request.url}`);
      } catch {
        // Not a JSON log line.
      }
    }
  });
  let errors = "";
  child.stderr!.on("data", (d: Buffer) => (errors += d.toString("utf8")));
  const close = async () => {
    if (child.exitCode === null) {
      const exited = new Promise<void>((r) => child.once("exit", () => r()));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitForOk(`${url}-/ping`, child, 30_000, () => errors + output);
    // Create the publishing user; verdaccio answers with its token.
    const res = await fetch(`${url}-/user/org.couchdb.user:e2e`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "e2e", password: "e2e-password" }),
    });
    const { token } = (await res.json()) as { token?: string };
    if (!res.ok || !token) throw new Error(`verdaccio: could not create a user (HTTP ${res.status})`);
    const npmrc = join(dir, ".npmrc");
    await writeFile(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
    return {
      url,
      requests,
      publish: async (tarball: string) => {
        await npm(["publish", tarball, "--ignore-scripts", "--provenance=false", "--registry", url], dir, npmrc);
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

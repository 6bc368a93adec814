/**
 * Runs the real opencode headless against the scripted model server, once per call, in a
 * hermetic sandbox, and gathers what happened: opencode's exit, its JSON events, the
 * session export, the server's request log, the guard's log lines, and (for guarded runs)
 * the replay CLI's decisions on the same export.
 */
import { spawn } from "node:child_process";
import { open, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { guardLogLines, liveDecisions, type LiveDecision, type LogLine } from "./guard-log.js";
import { startModelServer, type ModelServer, type RecordedRequest } from "./model-server.js";
import { loadTokenizer, type TokenizerName } from "./tokenizers.js";
import { PLUGIN_ENTRY, replayExport, type ReplayResult } from "./replay.js";
import { createSandbox, writeOpencodeConfig, writeProjectFiles, type Sandbox } from "./sandbox.js";
import { PRIOR_PROMPT, PROMPTS, scenarioSetup, type RequestKind, type ScenarioName } from "./scenarios.js";
import { exportFigures, sanitizeExport, type ExportFigures, type PathMap, type SessionExport } from "./session-export.js";

/** Options of `runScenario`. */
export interface RunOptions {
  scenario: ScenarioName;
  /** Load the built plugin (`dist/index.js`) into opencode. */
  guard: boolean;
  /** The plugin tuple's options (`["file:///…/dist/index.js", pluginOptions]`). */
  pluginOptions?: Record<string, unknown>;
  /** Extra environment for opencode (e.g. `OPENCODE_COMPACTION_GUARD_THRESHOLD`). */
  env?: Record<string, string>;
  /** Model requests the server answers before refusing with HTTP 400. Default 16. */
  maxRequests?: number;
  /** Kill opencode's process group after this many ms. Default 60 000. */
  timeoutMs?: number;
  /** First run a normally answered prompt, then run the scenario in the same session (`--session`). */
  priorTurn?: boolean;
  /** Replay the export through the built CLI. Default: when `guard` is true. */
  replay?: boolean;
  /** The opencode binary to run. Default: `OPENCODE_BIN`, else the devDependency's (sandbox.ts). */
  opencodeBin?: string;
  /**
   * The plugin entry written to `opencode.json` instead of the built file's `file://` URL,
   * e.g. `"opencode-compaction-guard@0.4.0"` for opencode to install by name.
   */
  pluginSpec?: string;
  /** Called with the sandbox after it is set up, before opencode runs (e.g. write `~/.npmrc`). */
  prepareSandbox?: (sandbox: Sandbox) => Promise<void>;
  /**
   * After the scenario's run and its export, send this real user message in the same session
   * (`opencode run --session <id> "…"`), then export (and replay) the session again.
   */
  followUp?: string;
  /** Called with every request body the model server gets, and its kind. */
  onRequest?: (kind: RequestKind, body: unknown) => void;
  /**
   * Run in this sandbox instead of a fresh one, and leave it in place (the caller disposes
   * it): several runs then share one opencode storage (its XDG dirs), as one user's do.
   */
  sandbox?: Sandbox;
  /** Count every request's tokens with this tokenizer (tokenizers.ts); default: the scenario's (chars4 for the counted ones, else its fixed figures). */
  tokenizer?: TokenizerName;
}

/** The second turn of a run with `followUp`: what that `opencode run --session` did. */
export interface FollowUpRun {
  prompt: string;
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  wallMs: number;
  guardLines: LogLine[];
  decisions: LiveDecision[];
  /** The model server's requests during this turn. */
  requests: RecordedRequest[];
  /** The session's export after this turn (both turns). */
  export: SessionExport;
  figures: ExportFigures;
  /** The replay CLI's verdicts on that export, or null when not replayed. */
  replay: ReplayResult | null;
}

/** How a run ended, most telling cause first. */
export type Ending =
  | { kind: "timeout"; detail: string }
  | { kind: "request-cap"; detail: string }
  | { kind: "provider-error"; detail: string }
  | { kind: "guard-stop"; detail: string }
  /** The turn had ended; the guard skipped opencode's restart of it (a deny at info level, e.g. turn-finished). */
  | { kind: "guard-skip"; detail: string }
  | { kind: "final-answer"; detail: string }
  | { kind: "exit"; detail: string };

/** Figures of one run, for the tables. Tokens in tokens, times in milliseconds. */
export interface RunMetrics {
  /** Automatic compactions in the export. */
  compactionCycles: number;
  /** Synthetic continue turns opencode added. */
  continueTurns: number;
  /** Requests opencode sent to the model server (titles and refused ones included). */
  modelRequests: number;
  /** Sum of the prompt tokens the server reported for every answered request. */
  promptTokensSent: number;
  /** From spawning `opencode run` until it exited. */
  wallMs: number;
  ended: Ending;
  /** The guard's warn message when it stopped a loop (a WARN deny line), else null. */
  guardReason: string | null;
  /** `elapsedMs` of every guard decision, in order. */
  hookMs: number[];
}

/** Everything one run produced. */
export interface ScenarioRun {
  scenario: ScenarioName;
  guard: boolean;
  sessionID: string | null;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Error messages from opencode's JSON `error` events, in order. */
  errorEvents: string[];
  /** The session export as opencode printed it, or null when there was no session. */
  export: SessionExport | null;
  /** The same with sandbox paths replaced by /home/dev/… (safe to commit). */
  sanitizedExport: SessionExport | null;
  figures: ExportFigures | null;
  /** The model server's request log. */
  requests: RecordedRequest[];
  guardLines: LogLine[];
  decisions: LiveDecision[];
  /** The replay CLI's verdicts on the raw export, or null when not replayed. */
  replay: ReplayResult | null;
  metrics: RunMetrics;
  /** The follow-up turn (`followUp`), or null. */
  followUp: FollowUpRun | null;
  /** The exports of the subagent sessions the run's `task` calls started, in call order. */
  children: SessionExport[];
}

/** A finished child process. Times in ms. */
export interface Finished {
  code: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/**
 * Run opencode in its own process group; on timeout, kill the whole group. After a normal
 * exit, stragglers left in the group (tool subprocesses) are killed too. `onSpawn` gets
 * opencode's pid once it is started (e.g. to sample its memory).
 */
export function runOpencode(
  args: string[],
  sandbox: Sandbox,
  timeoutMs: number,
  stdoutFd?: number,
  onSpawn?: (pid: number) => void,
): Promise<Finished> {
  const started = performance.now();
  const child = spawn(sandbox.opencodeBin, args, {
    cwd: sandbox.project,
    env: sandbox.env,
    stdio: ["ignore", stdoutFd ?? "pipe", "pipe"],
    detached: true,
  });
  if (child.pid) onSpawn?.(child.pid);
  const killGroup = () => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group is already gone.
    }
  };
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, timeoutMs);
  return new Promise((resolve, reject) => {
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("exit", (code, signal) => {
      const wallMs = performance.now() - started;
      clearTimeout(timer);
      killGroup();
      // Streams may still hold buffered output; wait for them, but not forever.
      const closed = new Promise<void>((r) => child.on("close", () => r()));
      const grace = new Promise<void>((r) => setTimeout(r, 2000).unref());
      void Promise.race([closed, grace]).then(() => resolve({ code, signal, timedOut, stdout, stderr, wallMs }));
    });
  });
}

/** The JSON events `opencode run --format json` printed, one per line. */
function jsonEvents(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
}

/** The session id from the JSON events, or from the "created id=ses_…" log line. */
function findSessionID(stdout: string, stderr: string): string | null {
  const fromEvent = jsonEvents(stdout).find((e) => typeof e.sessionID === "string")?.sessionID;
  if (typeof fromEvent === "string") return fromEvent;
  // logfmt (1.17.0 on): `message=created id=ses_…`; older: `service=session id=ses_… … created`.
  return /message=created id=(ses_[A-Za-z0-9]+)/.exec(stderr)?.[1] ?? /service=session id=(ses_[A-Za-z0-9]+)/.exec(stderr)?.[1] ?? null;
}

function errorMessages(stdout: string): string[] {
  return jsonEvents(stdout)
    .filter((e) => e.type === "error")
    .map((e) => {
      const error = e.error as { name?: string; data?: { message?: string } } | undefined;
      return error?.data?.message ?? error?.name ?? "unknown error";
    });
}

function classifyEnding(f: Finished, errors: string[], decisions: LiveDecision[], figures: ExportFigures | null): Ending {
  if (f.timedOut) return { kind: "timeout", detail: `killed after timeout (exit ${f.code ?? f.signal})` };
  const lastError = errors.at(-1);
  if (lastError?.includes("request cap")) return { kind: "request-cap", detail: `server cap, exit ${f.code}` };
  // A provider overflow error is reported and then compacted; a denial ends that loop too.
  // A denial at warn level stopped a loop; one at info level is housekeeping (the turn had
  // ended, the guard skipped the continue turn opencode would have added after it).
  const deny = decisions.find((d) => d.decision === "deny");
  if (deny && deny.level === "WARN") return { kind: "guard-stop", detail: `guard: ${deny.rule}, exit ${f.code ?? f.signal}` };
  if (deny) return { kind: "guard-skip", detail: `guard skipped the restart (${deny.rule}), exit ${f.code ?? f.signal}` };
  if (lastError) return { kind: "provider-error", detail: `${lastError.slice(0, 60)}, exit ${f.code}` };
  if (f.code === 0 && figures?.finalAssistantFinish === "stop") return { kind: "final-answer", detail: "final answer, exit 0" };
  return { kind: "exit", detail: `exit ${f.code ?? f.signal}` };
}

/**
 * Export a session; opencode prints "Exporting session: …" on stderr and the JSON on stdout.
 * Standard output goes to a file: opencode 1.18.33 can cut `export` short at 64–128 KiB
 * when it writes to a pipe (../shared/opencode-notes.md).
 */
export async function exportSession(sessionID: string, sandbox: Sandbox, timeoutMs: number): Promise<SessionExport> {
  const file = join(sandbox.root, `export-${sessionID}.json`);
  const handle = await open(file, "w");
  let f: Finished;
  try {
    f = await runOpencode(["export", sessionID], sandbox, timeoutMs, handle.fd);
  } finally {
    await handle.close();
  }
  const text = await readFile(file, "utf8");
  const start = text.indexOf("{");
  if (f.code !== 0 || start < 0) throw new Error(`opencode export ${sessionID} failed (exit ${f.code}): ${f.stderr.slice(-500)}`);
  return JSON.parse(text.slice(start)) as SessionExport;
}

/**
 * Run one scenario end to end.
 * @returns the run's outputs and metrics; the sandbox is removed before returning.
 */
export async function runScenario(options: RunOptions): Promise<ScenarioRun> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const sandbox = options.sandbox ?? (await createSandbox(options.opencodeBin ? { opencodeBin: options.opencodeBin } : {}));
  Object.assign(sandbox.env, options.env ?? {});
  const setup = scenarioSetup(options.scenario);
  let server: ModelServer | undefined;
  try {
    await writeProjectFiles(sandbox, setup.files);
    server = await startModelServer({
      scenario: options.scenario,
      readPath: sandbox.readPath,
      projectDir: sandbox.project,
      maxRequests: options.maxRequests ?? 16,
      ...(options.priorTurn ? { warmupPrompt: PRIOR_PROMPT } : {}),
      ...(options.onRequest ? { onRequest: options.onRequest } : {}),
      ...(options.tokenizer ? { tokenizer: await loadTokenizer(options.tokenizer) } : {}),
    });
    const pluginURL = options.pluginSpec ?? pathToFileURL(PLUGIN_ENTRY).href;
    const entry: string | [string, Record<string, unknown>] = options.pluginOptions ? [pluginURL, options.pluginOptions] : pluginURL;
    await writeOpencodeConfig(sandbox, {
      baseURL: server.baseURL,
      limits: setup.limits,
      ...(setup.permission ? { permission: setup.permission } : {}),
      ...(setup.compaction ? { compaction: setup.compaction } : {}),
      ...(setup.model ? { model: setup.model } : {}),
      ...(setup.mcpServers
        ? { mcp: Object.fromEntries(Object.entries(setup.mcpServers).map(([name, file]) => [name, ["node", join(sandbox.project, file)]])) }
        : {}),
      ...(options.guard ? { plugin: [entry] } : {}),
    });
    await options.prepareSandbox?.(sandbox);

    let priorSession: string | undefined;
    if (options.priorTurn) {
      const prior = await runOpencode(runArgs(PRIOR_PROMPT), sandbox, timeoutMs);
      priorSession = findSessionID(prior.stdout, prior.stderr) ?? undefined;
      if (prior.code !== 0 || !priorSession) throw new Error(`prior turn failed (exit ${prior.code}): ${prior.stderr.slice(-500)}`);
    }
    const firstRequest = server.requests.length; // the prior turn's requests are not this run's
    const f = await runOpencode(runArgs(PROMPTS[options.scenario], priorSession), sandbox, timeoutMs);
    const sessionID = findSessionID(f.stdout, f.stderr);
    const exp = sessionID ? await exportSession(sessionID, sandbox, timeoutMs) : null;
    const reserved = setup.compaction?.reserved;
    const replayOf = async (e: SessionExport | null, name: string): Promise<ReplayResult | null> => {
      if (!e || !(options.replay ?? options.guard)) return null;
      const exportPath = join(sandbox.root, name);
      await writeFile(exportPath, JSON.stringify(e));
      return replayExport(exportPath, {
        pluginOptions: options.pluginOptions,
        env: options.env,
        limits: setup.limits,
        ...(typeof reserved === "number" ? { reserved } : {}),
      });
    };
    const replay = await replayOf(exp, "export.json");
    const children: SessionExport[] = [];
    for (const child of subagentSessions(exp)) children.push(await exportSession(child, sandbox, timeoutMs));
    const requests = server.requests.slice(firstRequest);
    let followUp: FollowUpRun | null = null;
    if (options.followUp !== undefined && sessionID) {
      const before = server.requests.length;
      const g = await runOpencode(runArgs(options.followUp, sessionID), sandbox, timeoutMs);
      const after = await exportSession(sessionID, sandbox, timeoutMs);
      const guardLines = guardLogLines(g.stderr);
      followUp = {
        prompt: options.followUp,
        exitCode: g.code,
        timedOut: g.timedOut,
        stdout: g.stdout,
        stderr: g.stderr,
        wallMs: g.wallMs,
        guardLines,
        decisions: liveDecisions(guardLines),
        requests: server.requests.slice(before),
        export: after,
        figures: exportFigures(after),
        replay: await replayOf(after, "export-follow-up.json"),
      };
    }
    return { ...collect(options, f, sessionID, exp, replay, requests, sandbox), followUp, children };
  } finally {
    await server?.close();
    if (!options.sandbox) await sandbox.dispose();
  }
}

/** The session ids of the subagents a session's `task` calls started (the tool part's `metadata.sessionId`). */
function subagentSessions(exp: SessionExport | null): string[] {
  return (exp?.messages ?? []).flatMap((m) =>
    m.parts.flatMap((p) => {
      const id =
        p.type === "tool" && p.tool === "task"
          ? (p.state as { metadata?: { sessionId?: unknown } } | undefined)?.metadata?.sessionId
          : undefined;
      return typeof id === "string" ? [id] : [];
    }),
  );
}

/** `opencode run` arguments for one prompt, optionally in an existing session. */
export function runArgs(prompt: string, session?: string): string[] {
  return ["run", "--print-logs", "--format", "json", "--model", "fake/fakemodel", ...(session ? ["--session", session] : []), prompt];
}

/** Put one run's outputs together and compute its metrics. */
function collect(
  options: RunOptions,
  f: Finished,
  sessionID: string | null,
  exp: SessionExport | null,
  replay: ReplayResult | null,
  requests: RecordedRequest[],
  sandbox: Sandbox,
): Omit<ScenarioRun, "followUp" | "children"> {
  const figures = exp ? exportFigures(exp) : null;
  const guardLines = guardLogLines(f.stderr);
  const decisions = liveDecisions(guardLines);
  const errorEvents = errorMessages(f.stdout);
  const sandboxPaths: PathMap = [
    [sandbox.project, "/home/dev/project"],
    [sandbox.home, "/home/dev"],
    [sandbox.root, "/home/dev/.local/e2e"],
  ];
  return {
    scenario: options.scenario,
    guard: options.guard,
    sessionID,
    exitCode: f.code,
    signal: f.signal,
    timedOut: f.timedOut,
    stdout: f.stdout,
    stderr: f.stderr,
    errorEvents,
    export: exp,
    sanitizedExport: exp ? sanitizeExport(exp, sandboxPaths) : null,
    figures,
    requests,
    guardLines,
    decisions,
    replay,
    metrics: {
      compactionCycles: figures?.compactionCycles ?? 0,
      continueTurns: figures?.continueTurns ?? 0,
      modelRequests: requests.length,
      promptTokensSent: requests.reduce((sum, r) => sum + (r.promptTokens ?? 0), 0),
      wallMs: f.wallMs,
      ended: classifyEnding(f, errorEvents, decisions, figures),
      guardReason: decisions.find((d) => d.decision === "deny" && d.level === "WARN")?.message ?? null,
      hookMs: decisions.map((d) => d.elapsedMs).filter((ms): ms is number => ms !== null),
    },
  };
}

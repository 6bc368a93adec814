/**
 * The `/guard` command in the real opencode, headless: one sandbox (one opencode storage), a
 * session the guard stopped (fixed-point) and one it left alone (healthy), then `opencode run
 * --session <id> --command guard [off]` on them (the same server path the TUI's command takes),
 * then a new turn in the switched-off session, and a new session still guarded. Every
 * `opencode run` is a new opencode process: the switch is read back after a restart.
 */
import { guardLogLines, liveDecisions, type LiveDecision } from "./guard-log.js";
import { exportSession, runArgs, runOpencode, runScenario } from "./harness.js";
import { startModelServer, type RecordedRequest } from "./model-server.js";
import { PLUGIN_ENTRY } from "./replay.js";
import { createSandbox, writeOpencodeConfig, type Sandbox } from "./sandbox.js";
import { PROMPTS, scenarioSetup, type ScenarioName } from "./scenarios.js";
import type { SessionExport } from "./session-export.js";
import { pathToFileURL } from "node:url";

/** Model requests the server answers before its cap in the turn after `/guard off`. */
export const CAP = 10;

/** What one `opencode run` of the flow did. */
export interface FlowRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The model server's requests during this run. */
  requests: RecordedRequest[];
  decisions: LiveDecision[];
  /** The guard's log lines (messages). */
  lines: string[];
  /** The session's export after this run. */
  export: SessionExport;
}

/** Everything the flow produced. */
export interface GuardCommandFlow {
  sandbox: Sandbox;
  stopped: string;
  healthy: string;
  /** `/guard` on the stopped session, and on the healthy one. */
  reportStopped: FlowRun;
  reportHealthy: FlowRun;
  /** `/guard off` on the stopped session. */
  off: FlowRun;
  /** A new turn in the switched-off session (a new process: after a restart). */
  afterOff: FlowRun;
  /** A new session in the same storage, guarded as before. */
  other: FlowRun;
}

/** The text of the last ignored part of an export (the guard's answer), or "". */
export function lastNote(exp: SessionExport): string {
  const parts = exp.messages.flatMap((m) => (m.info.role === "user" ? m.parts : [])).filter((p) => p.type === "text" && p.ignored === true);
  return parts.at(-1)?.text ?? "";
}

/**
 * Runs `args` (`opencode run …`) in the sandbox against a fresh scripted server of `scenario`
 * (cap {@link CAP}), then exports `session` (or the session the run created).
 */
async function runWith(sandbox: Sandbox, scenario: ScenarioName, args: string[], session?: string): Promise<FlowRun> {
  const server = await startModelServer({ scenario, readPath: sandbox.readPath, projectDir: sandbox.project, maxRequests: CAP });
  try {
    await writeOpencodeConfig(sandbox, {
      baseURL: server.baseURL,
      limits: scenarioSetup(scenario).limits,
      plugin: [pathToFileURL(PLUGIN_ENTRY).href],
    });
    const f = await runOpencode(args, sandbox, 90_000);
    const created = /"sessionID":"(ses_[A-Za-z0-9]+)"/.exec(f.stdout)?.[1] ?? /message=created id=(ses_[A-Za-z0-9]+)/.exec(f.stderr)?.[1];
    const id = session ?? created;
    if (!id) throw new Error(`no session (exit ${f.code}): ${f.stderr.slice(-400)}`);
    const lines = guardLogLines(f.stderr);
    return {
      exitCode: f.code,
      stdout: f.stdout,
      stderr: f.stderr,
      requests: [...server.requests],
      decisions: liveDecisions(lines),
      lines: lines.map((l) => l.message),
      export: await exportSession(id, sandbox, 60_000),
    };
  } finally {
    await server.close();
  }
}

/** `opencode run --session <id> --command guard [args]`. */
export const guardCommandArgs = (session: string, args: string): string[] => [
  "run",
  "--print-logs",
  "--format",
  "json",
  "--model",
  "fake/fakemodel",
  "--session",
  session,
  "--command",
  "guard",
  ...(args ? [args] : []),
];

/**
 * The whole flow with one opencode binary. Prediction is off, so that the fixed-point loop is
 * stopped at compaction 2 by no-progress (compaction 1 allowed): the report then shows both.
 * @returns the runs; the caller disposes `sandbox`.
 */
export async function guardCommandFlow(opencodeBin: string): Promise<GuardCommandFlow> {
  const sandbox = await createSandbox({ opencodeBin });
  sandbox.env.OPENCODE_COMPACTION_GUARD_PREDICT = "0";
  const first = await runScenario({ scenario: "fixed-point", guard: true, sandbox, replay: false, maxRequests: CAP });
  const second = await runScenario({ scenario: "healthy", guard: true, sandbox, replay: false });
  if (!first.sessionID || !second.sessionID) throw new Error("a scenario run made no session");
  const stopped = first.sessionID;
  const healthy = second.sessionID;
  const reportStopped = await runWith(sandbox, "fixed-point", guardCommandArgs(stopped, ""), stopped);
  const reportHealthy = await runWith(sandbox, "healthy", guardCommandArgs(healthy, ""), healthy);
  const off = await runWith(sandbox, "fixed-point", guardCommandArgs(stopped, "off"), stopped);
  const afterOff = await runWith(sandbox, "fixed-point", runArgs("keep going", stopped), stopped);
  const other = await runWith(sandbox, "fixed-point", runArgs(PROMPTS["fixed-point"]));
  return { sandbox, stopped, healthy, reportStopped, reportHealthy, off, afterOff, other };
}

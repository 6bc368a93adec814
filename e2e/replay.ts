/**
 * Runs the project's built replay CLI (`opencode-compaction-guard replay … --json`) on an
 * export file, with the model limits the e2e runs configure.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "./sandbox.js";
import { MODEL_LIMITS, type ModelLimits } from "./scenarios.js";

/** One row of the replay's JSON output. */
export interface ReplayRow {
  index: number;
  messageID: string;
  decision: "allow" | "deny";
  rule: string | null;
  evidence: unknown;
}

/** The replay's JSON output: `{ sessionID, compactions, firstDeny }`. */
export interface ReplayResult {
  sessionID: string;
  compactions: ReplayRow[];
  /** Index of the first denied compaction, or null. */
  firstDeny: number | null;
}

/** The built plugin entry (`dist/index.js`), absolute. */
export const PLUGIN_ENTRY = join(PROJECT_ROOT, "dist", "index.js");

/**
 * The built CLI, from package.json's `bin` (falls back to `dist/cli/bin.js`).
 * @returns an absolute path; throws when the file is missing (run `npm run build`).
 */
export function replayCli(): string {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { bin?: string | Record<string, string> };
  const bin = typeof pkg.bin === "string" ? pkg.bin : Object.values(pkg.bin ?? {})[0];
  const path = join(PROJECT_ROOT, bin ?? "dist/cli/bin.js");
  if (!existsSync(path)) throw new Error(`replay CLI ${path} not found; run npm run build`);
  return path;
}

/** Guard settings as the plugin tuple takes them, mapped to the CLI's flags. */
const SETTING_FLAGS: Record<string, string> = {
  threshold: "--threshold",
  window: "--window",
  minReduction: "--min-reduction",
  matchOutput: "--match-output",
};

/**
 * Replay an export file through the built CLI with `--context-limit`/`--output-limit` (and
 * `--input-limit`) set to the fake model's limits, `--reserved` to opencode's
 * `compaction.reserved` when the run set it, and the same settings the live run had:
 * `pluginOptions` become flags, `env` (the `OPENCODE_COMPACTION_GUARD_*` variables) is passed through.
 * @returns the parsed JSON output.
 */
export async function replayExport(
  exportPath: string,
  settings: { pluginOptions?: Record<string, unknown>; env?: Record<string, string>; limits?: ModelLimits; reserved?: number } = {},
): Promise<ReplayResult> {
  const limits: ModelLimits = settings.limits ?? MODEL_LIMITS;
  const flags = Object.entries(settings.pluginOptions ?? {})
    .filter(([key]) => key in SETTING_FLAGS)
    .flatMap(([key, value]) => [SETTING_FLAGS[key]!, String(value)]);
  const args = [
    replayCli(),
    "replay",
    exportPath,
    "--json",
    "--context-limit",
    String(limits.context),
    "--output-limit",
    String(limits.output),
    ...(limits.input !== undefined ? ["--input-limit", String(limits.input)] : []),
    ...(settings.reserved !== undefined ? ["--reserved", String(settings.reserved)] : []),
    ...flags,
  ];
  // Nothing inherited: the replay must see the run's guard settings, not the caller's.
  const env = { PATH: process.env.PATH ?? "", ...settings.env };
  const { stdout } = await promisify(execFile)(process.execPath, args, { env });
  return JSON.parse(stdout) as ReplayResult;
}

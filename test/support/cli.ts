/** Runs the CLI in-process and gathers what it printed. */
import { main } from "../../src/cli/main.js";

/** What one CLI run printed and returned. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `main(args)` with standard output and error collected as strings.
 * @param env the environment the settings are read from (default: none, so the machine's own variables never leak in).
 * @param cwd where the project's settings file is looked for (default: the working directory).
 */
export async function cli(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await main(
    args,
    (t) => (stdout += t),
    (t) => (stderr += t),
    env,
    undefined,
    cwd,
  );
  return { code, stdout, stderr };
}

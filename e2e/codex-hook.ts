/**
 * The e2e suite's stand-in for `opencode-compaction-guard hook codex` until the CLI has that
 * command: reads the hook's JSON on standard input, answers through the Codex live guard
 * (src/live/codex.ts) and exits with its code. Bundled by e2e/codex-run.ts with esbuild;
 * run as `node <bundle> hook codex`, so its command ends in ` hook codex` as an installed one does.
 */
import { homedir } from "node:os";
import { live } from "../src/live/codex.js";

const chunks: Buffer[] = [];
process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk));
process.stdin.on("end", () => {
  let input: unknown = null;
  try {
    input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    // Left null: the guard answers "go on" with a warning.
  }
  void live.handle(input, { env: process.env, cwd: process.cwd(), home: homedir() }).then((reply) => {
    if (reply.stdout !== null) process.stdout.write(reply.stdout);
    if (reply.stderr !== null) process.stderr.write(reply.stderr);
    process.exitCode = reply.exitCode;
  });
});

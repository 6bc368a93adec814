/**
 * Before the end-to-end suite's first file: the suite's own npm packages (tools.ts) and the
 * opencode binary it runs (sandbox.ts), each installed only when missing, so that no test's
 * timeout pays for a download.
 */
import { opencodeBinary } from "./sandbox.js";
import { ensureE2eTools } from "./tools.js";

export default function setup(): void {
  ensureE2eTools();
  opencodeBinary();
}

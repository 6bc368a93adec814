/**
 * A process with a thread of Node.js's pool stuck in `open()` of the FIFO given as its
 * argument (no one writes to it), which ends by shared/signals.ts on SIGINT or SIGTERM, as
 * the CLI's handlers do. Writes `waiting` once the open is under way. For test/sources/special-files.test.ts.
 */
import { readFile } from "node:fs/promises";
import { endBySignal } from "../../src/shared/signals.js";

const onSignal = (signal: "SIGINT" | "SIGTERM") => endBySignal(signal);
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);
readFile(process.argv[2]!).catch(() => undefined);
setTimeout(() => process.stdout.write("waiting\n"), 100);
// Keeps the event loop alive if the open ever returns.
setInterval(() => undefined, 1_000);

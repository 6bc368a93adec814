// Preloaded into a measured process (node --import): at exit, writes its peak RSS (bytes) to fd 3.
import { writeSync } from "node:fs";

process.on("exit", () => {
  try {
    writeSync(3, String(process.resourceUsage().maxRSS * 1024));
  } catch {
    // No fd 3: not run by the bench.
  }
});

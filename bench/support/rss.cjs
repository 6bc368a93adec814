// Preloaded into a measured process (node --require): at exit, writes its peak RSS (bytes) to fd 3.
// CommonJS, so that preloading it does not start Node's ESM loader in a process that has none
// of its own (the executable is CommonJS; an ES module preload cost it about 10 ms).
const { writeSync } = require("node:fs");

process.on("exit", () => {
  try {
    writeSync(3, String(process.resourceUsage().maxRSS * 1024));
  } catch {
    // No fd 3: not run by the bench.
  }
});

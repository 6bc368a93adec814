/** Ending the process on Ctrl-C (SIGINT) or SIGTERM, whatever it is waiting on. */

/**
 * Ends the process by `signal` itself, after the caller's clean-up: every listener of the
 * signal is removed (so its default action is back) and the signal is sent again. The shell
 * then sees what it would without a handler (`$?` 130 for SIGINT, 143 for SIGTERM), and
 * nothing waits: `process.exit` would first join Node.js's thread pool, which never ends
 * while one of its threads is stuck in a system call (an `open()` of a FIFO no one writes to).
 * Where sending a signal to oneself does not end the process, it exits with 130 / 143.
 */
export function endBySignal(signal: "SIGINT" | "SIGTERM"): never {
  process.removeAllListeners(signal);
  try {
    process.kill(process.pid, signal);
  } catch {
    // Not allowed to signal itself: exit with the shell's code for the signal below.
  }
  process.exit(signal === "SIGINT" ? 130 : 143);
}

/**
 * How `armature mcp` stops: the first SIGINT or SIGTERM (or, over stdio, the client closing stdin)
 * starts an orderly shutdown — sessions close, which cancels their runs, then the system is
 * disposed (Python processes ended, the workspace's queued writes finished; each file write is a
 * rename of a complete file, so none is left half-written). A second signal, or a shutdown still
 * going after `graceMs`, ends the process at once.
 */

/** Options of {@link untilShutdown}. */
export interface ShutdownOptions {
  /** How long the orderly shutdown may take before the process exits anyway, in ms. Default: 5000. */
  graceMs?: number;
  /** Where the forced exit says why. Default: stderr. */
  log?: (line: string) => void;
}

/**
 * An AbortSignal that aborts at the first SIGINT or SIGTERM (its reason names the signal); from
 * then on the process has `graceMs` to finish, and a second signal ends it at once. For the CLI
 * only: it installs process-wide handlers.
 */
export function shutdownSignal(options: ShutdownOptions = {}): AbortSignal {
  const log = options.log ?? ((line) => void process.stderr.write(`${line}\n`));
  const controller = new AbortController();
  const graceMs = options.graceMs ?? 5000;
  const stop = (why: 'SIGINT' | 'SIGTERM') => {
    // A second signal: the person (or the client) does not want to wait.
    if (controller.signal.aborted) process.exit(why === 'SIGINT' ? 130 : 143);
    graceful(graceMs, why, log);
    controller.abort(why);
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  return controller.signal;
}

/**
 * Gives an orderly shutdown `graceMs` to end the process on its own (the event loop emptied);
 * past that it exits with 1, saying why. The timer holds nothing open.
 */
export function graceful(graceMs: number, why: string, log: (line: string) => void = (line) => void process.stderr.write(`${line}\n`)): void {
  setTimeout(() => {
    log(`armature: the MCP server did not stop within ${graceMs} ms of ${why}; exiting now`);
    process.exit(1);
  }, graceMs).unref();
}

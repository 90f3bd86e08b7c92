/**
 * A session's logging level (`logging/setLevel`): log notifications below it are not sent. The
 * SDK accepts the request but filters only what goes through `sendLoggingMessage`, not the
 * notifications a request handler sends on its own stream — which is how `execute_python`'s
 * output travels — so each session keeps its level here.
 */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';

/** The levels of RFC 5424, least severe first, as MCP names them. */
export const LOG_LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** One session's level. Default: `debug` (everything is sent until the client says otherwise). */
export class LogLevel {
  private min = 0;

  /** The level set last. */
  get level(): LoggingLevel {
    return LOG_LEVELS[this.min]!;
  }

  set(level: LoggingLevel): void {
    this.min = LOG_LEVELS.indexOf(level);
  }

  /** Whether a message at `level` is to be sent. */
  allows(level: LoggingLevel): boolean {
    return LOG_LEVELS.indexOf(level) >= this.min;
  }
}

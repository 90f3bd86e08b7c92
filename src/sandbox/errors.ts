import { quote } from '../kernel/bounded.ts';
import { ArmatureError } from '../kernel/errors.ts';
import type { TransportExit } from './transport.ts';

/** Stable codes of {@link SandboxError}. */
export type SandboxErrorCode =
  | 'INVALID_OPTIONS'
  | 'SANDBOX_LOAD_FAILED'
  | 'SANDBOX_TIMEOUT'
  | 'SANDBOX_START_TIMEOUT'
  | 'SANDBOX_HANDLER_TIMEOUT'
  | 'SANDBOX_CRASHED'
  | 'SANDBOX_TERMINATED'
  | 'SANDBOX_ABORTED'
  | 'SANDBOX_PROTOCOL'
  | 'MESSAGE_TOO_LARGE'
  | 'NETWORK_DENIED';

/** A confined worker could not do what was asked (not an error thrown by the agent's code). */
export class SandboxError extends ArmatureError {
  declare readonly code: SandboxErrorCode;
  constructor(code: SandboxErrorCode, message: string, options?: { cause?: unknown; details?: unknown; hint?: string }) {
    super(code, message, options);
  }
}

/**
 * The agent's own code threw (or rejected). `message` and `stack` are the agent's; `agentCode` is
 * the thrown error's `code` property, when it had one.
 */
export class AgentCodeError extends ArmatureError {
  /** The worker's name. */
  readonly worker: string;
  /** The thrown error's `name` (e.g. `TypeError`). */
  readonly agentName: string;
  /** The thrown error's `code`, if any. */
  readonly agentCode?: string;
  constructor(worker: string, error: { name: string; message: string; stack?: string; code?: string }) {
    super('AGENT_ERROR', error.message, { details: { worker, name: error.name, code: error.code } });
    this.name = error.name && /^[\w$.]{1,60}$/.test(error.name) ? error.name : 'Error';
    this.worker = worker;
    this.agentName = error.name;
    this.agentCode = error.code;
    // The agent's stack, not the host's: the host frames say nothing about the agent's bug.
    this.stack = error.stack ?? `${this.name}: ${error.message}`;
  }
}

/** Why a worker `label` (as errors name it) exited, as the error its calls get; it is restarted after. */
export function exitError(label: string, exit: TransportExit, limits: { memoryMb: number; maxMessageBytes: number }): SandboxError {
  if (exit.reason === 'memory') {
    return new SandboxError('SANDBOX_CRASHED', `${label}: the worker ran out of memory: ${exit.detail}; it was restarted`, {
      hint: `Use less memory, or raise limits.memoryMb (now ${limits.memoryMb}).`,
      details: { reason: exit.reason },
    });
  }
  if (exit.reason === 'oversize') {
    return new SandboxError('MESSAGE_TOO_LARGE', `${label}: ${exit.detail}; the worker was restarted`, {
      hint: `Return less data, or raise limits.maxMessageBytes (now ${limits.maxMessageBytes}).`,
      details: { reason: exit.reason },
    });
  }
  return new SandboxError('SANDBOX_CRASHED', `${label}: the worker stopped: ${exit.detail}`, { details: { reason: exit.reason } });
}

/** The worker `label` did not start within `ms` (before the agent's module ran: the machine's time). */
export function startTimeoutError(label: string, ms: number): SandboxError {
  return new SandboxError('SANDBOX_START_TIMEOUT', `${label}: the worker did not start within ${ms} ms`, {
    hint: `The machine may be too busy to start it now: try again, or raise limits.startTimeoutMs (now ${ms}).`,
  });
}

/** The top level of the agent's module ran past `ms`. */
export function loadTimeoutError(label: string, ms: number): SandboxError {
  return new SandboxError('SANDBOX_TIMEOUT', `${label}: the module did not finish loading within ${ms} ms`, {
    hint: 'Do less at the top level of the module (an endless loop there never finishes); move work into exported functions.',
    details: { phase: 'load', timeoutMs: ms },
  });
}

/** The handlers of event `event` ran past `ms`: the worker was stopped. */
export function handlerTimeoutError(label: string, event: string, ms: number): SandboxError {
  return new SandboxError('SANDBOX_HANDLER_TIMEOUT', `${label}: its handler of ${quote(event)} did not finish within ${ms} ms; the worker was stopped`, {
    hint: 'Keep event handlers short (an endless loop there never finishes): long work belongs in a tool.',
    details: { event, timeoutMs: ms },
  });
}

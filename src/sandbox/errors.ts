import { ArmatureError } from '../kernel/errors.ts';

/** Stable codes of {@link SandboxError}. */
export type SandboxErrorCode =
  | 'INVALID_OPTIONS'
  | 'SANDBOX_LOAD_FAILED'
  | 'SANDBOX_TIMEOUT'
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

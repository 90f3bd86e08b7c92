/**
 * Why an operation of a session got no runtime of the pool: an error in the runtime's shape
 * (`PythonErrorInfo`), with a hint that says what to do. Each names the session and the limit it met.
 */
import { quote } from '../../../src/kernel/bounded.ts';
import { DISPOSED_HINT, runtimeDisposed } from '../protocol/hints.ts';
import type { PythonErrorInfo } from '../protocol/protocol.ts';

export interface Refusal {
  refused: PythonErrorInfo;
  hint: string;
}

const refusal = (type: string, message: string, hint: string): Refusal => ({ refused: { type, message, traceback: '' }, hint });

export const invalidSession = (session: unknown, problem: string): Refusal =>
  refusal('INVALID_SESSION', `invalid session ${quote(session)}: ${problem}; nothing ran`, 'Pass a session name of 1 to 128 characters, or leave it out for the shared runtime.');

export const poolDisposed = (): Refusal => ({ refused: runtimeDisposed(), hint: DISPOSED_HINT });

/** The pool was disposed while the operation waited for a runtime. */
export const disposedWhileWaiting = (): Refusal =>
  refusal('RuntimeNotReady', 'the runtime was disposed while the run waited for a runtime of the pool; nothing ran', DISPOSED_HINT);

export const queueFull = (session: string, size: number, waiting: number, limit: number): Refusal =>
  refusal(
    'RUNTIME_BUSY',
    `all ${size} runtimes of the pool are held by other sessions and ${waiting} runs already wait for one (poolQueueLimit ${limit}); the run of session ${quote(session)} was refused, nothing ran`,
    'Retry later, end sessions you no longer need, or raise poolQueueLimit or poolSize in the PyodideRuntime config.',
  );

export const waitedTooLong = (session: string, size: number, waitMs: number): Refusal =>
  refusal(
    'RUNTIME_BUSY',
    `no runtime of the pool (poolSize ${size}, all held by other sessions) became free within ${waitMs} ms for session ${quote(session)}; nothing ran`,
    'Retry later, end sessions you no longer need, lower poolIdleMs so idle sessions give their runtime up sooner, or raise poolSize.',
  );

export const cancelled = (): Refusal => refusal('KeyboardInterrupt', 'cancelled before it started', 'The run was cancelled by its caller; nothing ran.');

/** The refusal as an Error (carrying the info, code and hint), for operations that reject. */
export const refusalError = (r: Refusal): Error =>
  Object.assign(new Error(`[PyodideRuntime] ${r.refused.message}`), { info: r.refused, code: r.refused.type, hint: r.hint });

/** Hints that turn common Python failures into the next step to take. */
import type { PythonErrorInfo } from './protocol.ts';

const DISPOSED = 'the runtime is disposed';
/** What to do about a disposed runtime (the hint of {@link runtimeDisposed}). */
export const DISPOSED_HINT = 'The Python runtime was disposed: create a new one.';

/**
 * What every layer (a process's connection, a worker's supervisor, the pool) answers once its
 * runtime is disposed: one error, which {@link hintFor} tells apart from a runtime still starting.
 */
export function runtimeDisposed(): PythonErrorInfo {
  return { type: 'RuntimeNotReady', message: DISPOSED, traceback: '' };
}

/** {@link runtimeDisposed} as a thrown error carrying it (`info`), for the layers that reject. */
export function runtimeDisposedError(): Error & { info: PythonErrorInfo } {
  return Object.assign(new Error(DISPOSED), { info: runtimeDisposed() });
}

/** Adds a hint for common failures. */
export function hintFor(error: PythonErrorInfo): string | undefined {
  switch (error.type) {
    case 'SyntaxError':
    case 'IndentationError':
    case 'TabError':
      return `${error.type} at line ${error.line ?? '?'}, column ${error.column ?? '?'}: ${error.message}. Fix the code there and run it again.`;
    case 'ModuleNotFoundError': {
      const mod = /No module named '([^']+)'/.exec(error.message)?.[1]?.split('.')[0];
      return mod
        ? `The module "${mod}" is not installed: install it with install_python_package {"package": "${mod}"} (or pass install_packages to execute_python), then run again.`
        : 'Install the missing module with install_python_package, then run again.';
    }
    case 'MemoryError':
      return 'Python ran out of memory: process the data in smaller pieces, or free large objects (del) first.';
    case 'ToolError':
      return 'A tool called from Python failed: see the message, fix the arguments and retry.';
    case 'RuntimeNotReady':
      return error.message === DISPOSED
        ? DISPOSED_HINT
        : 'Python is not running: it is starting or restarting (retry in a moment), or it could not start (the message says why: fix that, then restart it from the PyodideRuntime widget or with restart()).';
    case 'WorkerCrashed':
      return 'The Python worker crashed during the run (for example out of memory); it was restarted: globals, imports and installed packages were lost.';
    case 'OverflowError':
      return /index-sized integer|too large|too many/.test(error.message)
        ? 'Python here is 32-bit WebAssembly: one object holds at most 2**31-1 items and memory is capped at a few GB. Process the data in smaller pieces.'
        : undefined;
    case 'CycleError':
      return 'A tool called from Python cannot use the Python runtime that is running that code. Call the tool outside Python, or do its work in the Python code itself.';
    case 'ResultTooLarge':
      return 'Return a smaller value (a summary, a slice, a count), or write the data to a file under /workspace and sync it; the limit is the runtime option maxResultBytes.';
    case 'SystemExit':
      return /interpreter exited/.test(error.message) ? 'os._exit ends the interpreter: the runtime was restarted and globals were lost. Raise an exception or return instead.' : undefined;
    case 'KeyboardInterrupt':
      return 'The run was interrupted.';
  }
  return undefined;
}

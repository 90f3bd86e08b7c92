/**
 * The re-entry guard. A `call_tool` from Python is answered by a tool handler; a handler that asks
 * the same runtime for work (a run, an install, ...) would wait behind the run that is waiting
 * for the handler: a deadlock. The handler runs inside a scope — carried through every await in
 * Node (AsyncLocalStorage), through its synchronous start in browsers (no async context there
 * yet) — so the runtime can refuse such work at once with a CycleError naming the cycle.
 */
import type { PythonErrorInfo } from '../protocol/protocol.ts';

/** The scope of one `call_tool` being answered. */
export interface ToolCallScope {
  /** The runtime whose Python made the call (an identity token). */
  runtime: object;
  tool: string;
  /** Set when the handler has answered: work it left behind (timers) is not part of the cycle. */
  done: boolean;
  /**
   * The scope this call was made in, when Python of another runtime waits further up (a session's
   * run calling an agent-made tool, whose own runtime calls another): every runtime of the chain is
   * busy, so work asked of any of them is a cycle. Set by {@link runInToolScope}.
   */
  parent?: ToolCallScope;
}

const asyncHooks = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:async_hooks') as
  | typeof import('node:async_hooks')
  | undefined;
const toolScopes = asyncHooks ? new asyncHooks.AsyncLocalStorage<ToolCallScope>() : undefined;
let syncToolScope: ToolCallScope | undefined;

/** Runs `fn` inside `scope` (the whole async call in Node, its synchronous start in browsers). */
export function runInToolScope<T>(scope: ToolCallScope, fn: () => T): T {
  const outer = toolScopes?.getStore() ?? syncToolScope;
  if (outer) scope.parent = outer;
  if (toolScopes) return toolScopes.run(scope, fn);
  syncToolScope = scope;
  try {
    return fn();
  } finally {
    syncToolScope = outer;
  }
}

/** The innermost scope of the chain, if any, whose runtime is `runtime` and whose handler has not answered. */
function waitingScope(runtime: object): ToolCallScope | undefined {
  for (let scope = toolScopes?.getStore() ?? syncToolScope; scope; scope = scope.parent) {
    if (scope.runtime === runtime && !scope.done) return scope;
  }
  return undefined;
}

/**
 * The CycleError for `method` of `runtime` when called from a tool that Python code of that
 * runtime is waiting on; undefined otherwise.
 */
export function cycleError(runtime: object, method: string): PythonErrorInfo | undefined {
  const scope = waitingScope(runtime);
  if (!scope) return undefined;
  return {
    type: 'CycleError',
    message: `call_tool("${scope.tool}") asked the Python runtime for ${method}, but that runtime is busy running the code waiting for "${scope.tool}": python -> call_tool("${scope.tool}") -> PyodideRuntime.${method} -> (waits for the same run). Refused instead of deadlocking.`,
    traceback: '',
  };
}

/** {@link cycleError} as an Error to reject with (carrying the info), for methods that reject. */
export function cycleFailure(runtime: object, method: string): Error | undefined {
  const info = cycleError(runtime, method);
  return info ? Object.assign(new Error(`[${method}] ${info.message}`), { info }) : undefined;
}

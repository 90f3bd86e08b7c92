/**
 * Entry of the agent's realm in the Node child (bundled as a script and run inside the fresh V8
 * context that holds the agent's module). That realm starts with ECMAScript's built-ins only; this
 * adds timers, text encoding, URLs and base64 (from the child's main realm, whose intrinsics are
 * frozen), then starts the agent scope. The host functions stay in closures the agent cannot reach.
 */
import { startAgentScope, type AgentScope, type ScopeHost } from './agent-scope.ts';
import type { InitMessage } from './protocol.ts';

/** What the child's main realm hands the agent's realm. */
export interface InnerHost extends ScopeHost {
  /** Starts a timer in the main realm; returns its id. */
  setTimer(fn: () => void, ms: number, repeat: boolean): number;
  clearTimer(id: number): void;
  /** Further globals (URL, TextEncoder, ...), already frozen. */
  globals: Record<string, unknown>;
}

/** Installs the globals and starts the scope. */
export function install(host: InnerHost, init: InitMessage): AgentScope {
  const g = globalThis as Record<string, unknown>;
  const { setTimer, clearTimer, post, load } = host;
  for (const key of Object.keys(host.globals)) g[key] = host.globals[key];
  const timer = (repeat: boolean) => (fn: unknown, ms?: unknown, ...args: unknown[]) => {
    if (typeof fn !== 'function') throw new TypeError(`${repeat ? 'setInterval' : 'setTimeout'} needs a function`);
    return setTimer(() => void fn(...args), Math.max(0, Number(ms) || 0), repeat);
  };
  const clear = (id: unknown) => {
    if (typeof id === 'number') clearTimer(id);
  };
  g.setTimeout = timer(false);
  g.setInterval = timer(true);
  g.clearTimeout = clear;
  g.clearInterval = clear;
  g.queueMicrotask = (fn: unknown) => {
    if (typeof fn !== 'function') throw new TypeError('queueMicrotask needs a function');
    void Promise.resolve().then(() => fn());
  };
  return startAgentScope({ post, load }, init);
}

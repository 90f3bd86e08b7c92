/**
 * Locks down a browser worker's global scope before untrusted code runs in it: what reaches
 * storage, the network, the page or other workers is deleted from the global object and from
 * every prototype it inherits from, so it cannot be found again through `Object.getPrototypeOf`.
 * The network is also closed by the worker script's CSP; storage and messaging only by this.
 */

/**
 * Globals a confined worker loses. Storage: `indexedDB`, `caches`, the legacy file systems (and
 * `navigator.storage`, with the rest of `navigator`). Network: `fetch`, `XMLHttpRequest`,
 * `WebSocket`, `EventSource`, `WebTransport`. The page and other contexts: `postMessage`,
 * `BroadcastChannel`, nested `Worker`s, `importScripts`.
 */
export const DENIED_GLOBALS: readonly string[] = [
  'indexedDB',
  'webkitIndexedDB',
  'caches',
  'cookieStore',
  'requestFileSystem',
  'webkitRequestFileSystem',
  'webkitRequestFileSystemSync',
  'webkitResolveLocalFileSystemURL',
  'webkitResolveLocalFileSystemSyncURL',
  'fetch',
  'fetchLater',
  'XMLHttpRequest',
  'WebSocket',
  'WebSocketStream',
  'EventSource',
  'WebTransport',
  'postMessage',
  'onmessage',
  'onmessageerror',
  'BroadcastChannel',
  'Worker',
  'SharedWorker',
  'importScripts',
  'Notification',
  'navigator',
];

/** The `navigator` left in place of the real one: facts, no capabilities. */
function plainNavigator(nav: Record<string, unknown> | undefined) {
  return Object.freeze({
    userAgent: String(nav?.userAgent ?? ''),
    hardwareConcurrency: Number(nav?.hardwareConcurrency ?? 1),
    language: String(nav?.language ?? ''),
  });
}

/**
 * Removes {@link DENIED_GLOBALS} (except `keep`) from the global object and its prototype chain,
 * and gives it a capability-free `navigator`. Returns the names that were present. A property
 * that cannot be deleted is overwritten with `undefined` and made read-only.
 */
export function lockdownWorkerScope(options: { keep?: readonly string[] } = {}): string[] {
  const keep = new Set(options.keep ?? []);
  const g = globalThis as unknown as Record<string, unknown>;
  const nav = keep.has('navigator') ? undefined : plainNavigator(g.navigator as Record<string, unknown> | undefined);
  const removed = new Set<string>();
  for (let o: object | null = g; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of DENIED_GLOBALS) {
      if (keep.has(name) || !Object.hasOwn(o, name)) continue;
      removed.add(name);
      if (!Reflect.deleteProperty(o, name)) Object.defineProperty(o, name, { value: undefined, writable: false, configurable: false });
    }
  }
  if (nav) Object.defineProperty(g, 'navigator', { value: nav, writable: false, configurable: false, enumerable: true });
  return [...removed];
}

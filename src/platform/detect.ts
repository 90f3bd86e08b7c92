/** Whether this code runs in Node (main thread or worker_threads). */
export function isNode(): boolean {
  return typeof process !== 'undefined' && typeof process.versions?.node === 'string' && typeof window === 'undefined';
}

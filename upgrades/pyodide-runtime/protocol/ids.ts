/** Ids of requests and runs, unique within this process or page. */
let seq = 0;

/** A fresh readable label such as `py-12` (run ids shown in events; not a secret). */
export function nextId(prefix: string): string {
  return `${prefix}-${++seq}`;
}

/**
 * A fresh id no one can predict, such as `run-12-Jm1Q…` (128 random bits): the id of a request
 * whose answer must come from the worker that was sent it. Code running next to the worker that
 * posts messages shaped like answers cannot guess one, and each is used for one request only.
 */
export function secretId(prefix: string): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return `${prefix}-${++seq}-${btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

import assert from 'node:assert/strict';

/**
 * Waits until `done()` holds, looking every 10 ms for at most `ms`; fails the test naming `what`
 * when it never does. For facts that arrive by themselves (a child's exit, a notification).
 * Default `ms`: 10 s.
 */
export async function until(what: string, done: () => boolean, ms = 10_000): Promise<void> {
  const end = performance.now() + ms;
  while (!done() && performance.now() < end) await new Promise((r) => setTimeout(r, 10));
  assert.ok(done(), `timed out waiting for ${what}`);
}

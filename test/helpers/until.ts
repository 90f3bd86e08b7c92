/**
 * Waits until `done()` holds, looking every 20 ms for at most `ms`; fails (an Error naming `what`)
 * when it never does. For facts that arrive by themselves: a child's exit, a notification, text a
 * widget renders. Works under both test runners (node:test and the browser's). Default `ms`: 10 s.
 */
export async function until(what: string | (() => string), done: () => boolean, ms = 10_000): Promise<void> {
  const end = performance.now() + ms;
  while (!done()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// The confined worker's tests of event handlers, in Node and in Chromium, load the same agent
// module (so nothing here imports node:).

/**
 * The source of an agent module whose `init` listens to three events: `quick` (a handler that
 * returns at once) and `later` (one that finishes after 50 ms) each add one to what `heard()`
 * returns; `spin` never returns, so the worker's handler limit must stop it.
 */
export const HANDLERS_MODULE = `
let heard = 0;
export default {
  init(ctx) {
    ctx.on('quick', () => { heard++; });
    ctx.on('later', async () => { await new Promise((r) => setTimeout(r, 50)); heard++; });
    ctx.on('spin', () => { for (;;) {} });
  },
  heard: () => heard,
};`;

// A Node module hook for running the sources: `import text from './x.py'` gives the file's text
// as the default export, as esbuild's `text` loader does in every bundle the project builds. It
// runs on Node's loader thread, registered by source-hooks.mjs.
import { readFile } from 'node:fs/promises';

/** @type {import('node:module').LoadHook} */
export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !new URL(url).pathname.endsWith('.py')) return nextLoad(url, context);
  const text = await readFile(new URL(url), 'utf8');
  return { format: 'module', source: `export default ${JSON.stringify(text)};\n`, shortCircuit: true };
}

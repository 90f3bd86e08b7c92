/**
 * A Python file imported as its source text: esbuild's `text` loader in every bundle the project
 * builds, and `python-text-hook.mjs` when Node runs the sources.
 */
declare module '*.py' {
  const source: string;
  export default source;
}

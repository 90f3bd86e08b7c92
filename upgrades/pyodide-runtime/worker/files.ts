/**
 * Files in Python's file system, inside the worker: workspace files copied in and changed files
 * read back (by mtime), and Armature's own modules under `/armature/lib`.
 */
import type { PyodideInterface } from 'pyodide';
import type { ReadChangedResult } from '../protocol/protocol.ts';

/** Where Armature's Python modules live (first on `sys.path`). */
export const LIB_DIR = '/armature/lib';
/** Where workspace files are synced to: Python's working directory. */
export const WORKSPACE_DIR = '/workspace';

/** Writes Armature's modules into a fresh interpreter (nothing imported them yet: no cache to forget). */
export function writeModules(py: PyodideInterface, modules: { path: string; source: string }[]): void {
  for (const m of modules) {
    const full = `${LIB_DIR}/${m.path}`;
    py.FS.mkdirTree(full.slice(0, full.lastIndexOf('/')));
    py.FS.writeFile(full, m.source);
  }
}

/** Writes `files` under `root` (with their mtimes when given); returns what was written. */
export function writeFiles(py: PyodideInterface, root: string, files: { path: string; data: Uint8Array; mtime?: number }[]): { count: number; bytes: number } {
  let bytes = 0;
  for (const f of files) {
    const full = `${root}/${f.path}`;
    py.FS.mkdirTree(full.slice(0, full.lastIndexOf('/')));
    py.FS.writeFile(full, f.data);
    if (f.mtime !== undefined) py.FS.utime(full, f.mtime, f.mtime);
    bytes += f.data.byteLength;
  }
  // New files must be seen by the next import. Only the finders of folders under `root` (and of
  // the working directory) forget what they listed: importlib.invalidate_caches() would also
  // import importlib.metadata (~80 ms) to reset caches this does not touch.
  py.runPython(`import sys\nfor _p, _f in list(sys.path_importer_cache.items()):\n    if _f is not None and (_p in ("", ${JSON.stringify(root)}) or _p.startswith(${JSON.stringify(`${root}/`)})) and hasattr(_f, "invalidate_caches"):\n        _f.invalidate_caches()`);
  if (root === LIB_DIR) {
    // Regenerated modules replace old ones: forget the imported ones so the next import reads them.
    py.runPython('import sys\nfor _m in [m for m in sys.modules if m == "tools" or m.startswith("tools.")]:\n    del sys.modules[_m]');
  }
  return { count: files.length, bytes };
}

/**
 * Files under `root` that are new or whose mtime differs from `known` (path -> mtime), at most
 * `maxBytes` of them (the rest listed as skipped), and the known paths no longer present.
 */
export function readChanged(py: PyodideInterface, root: string, known: Record<string, number>, maxBytes: number): ReadChangedResult {
  const FS = py.FS;
  const result: ReadChangedResult = { files: [], deleted: [], skipped: [] };
  const present = new Set<string>();
  let total = 0;
  const walk = (dir: string, rel: string) => {
    for (const name of FS.readdir(dir) as string[]) {
      if (name === '.' || name === '..') continue;
      const full = `${dir}/${name}`;
      const path = rel ? `${rel}/${name}` : name;
      const st = FS.stat(full);
      if (FS.isDir(st.mode)) walk(full, path);
      else if (FS.isFile(st.mode)) {
        present.add(path);
        const mtime = st.mtime instanceof Date ? st.mtime.getTime() : Number(st.mtime);
        if (known[path] !== undefined && Math.abs(known[path]! - mtime) < 1) continue;
        if (total + st.size > maxBytes) {
          result.skipped.push(path);
          continue;
        }
        total += st.size;
        result.files.push({ path, data: FS.readFile(full) as Uint8Array, mtime });
      }
    }
  };
  walk(root, '');
  result.deleted = Object.keys(known).filter((p) => !present.has(p));
  return result;
}

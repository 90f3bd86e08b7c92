/**
 * Agent-made Python tools in the Pyodide runtime. Each version's code is a module of its own,
 * `armature_made.v_<sha256 prefix>`, written once: a version under test never touches the one in
 * force, and no import cache ever holds stale code. The generated `tools.<namespace>` function of
 * a tool in force imports its version's function and calls it directly (no bridge round trip);
 * a call from JavaScript or an agent is one `execute` of {@link invokeCode}.
 */
import packageInit from './armature_made/__init__.py';

/** The Python package holding every version's module. */
export const MADE_PACKAGE = 'armature_made';

/** The package's `__init__.py` (`armature_made/__init__.py` beside this file): `invoke`, the one entry point of calls from the host. */
export const PACKAGE_INIT: string = packageInit;

/** The module name of a version, e.g. `v_1a2b3c4d5e6f7a8b`. */
export function versionModule(hash: string): string {
  return `v_${hash.slice(0, 16)}`;
}

/** The files a set of versions needs under the module path: the package and one module per version. */
export function versionFiles(versions: Iterable<{ hash: string; code: string }>): { path: string; source: string }[] {
  const files = [{ path: `${MADE_PACKAGE}/__init__.py`, source: PACKAGE_INIT }];
  for (const v of versions) files.push({ path: `${MADE_PACKAGE}/${versionModule(v.hash)}.py`, source: v.code });
  return files;
}

/**
 * One Python expression that calls `fn` of version `hash` with `args` and evaluates to its value,
 * leaving nothing behind in the interpreter's globals. The arguments travel as a JSON string
 * literal (JSON's string escapes are valid Python).
 */
export function invokeCode(hash: string, fn: string, args: Record<string, unknown>): string {
  return `__import__(${JSON.stringify(MADE_PACKAGE)}).invoke(${JSON.stringify(versionModule(hash))}, ${JSON.stringify(fn)}, ${JSON.stringify(JSON.stringify(args))})`;
}

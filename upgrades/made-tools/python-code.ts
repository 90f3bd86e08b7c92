/**
 * Agent-made Python tools in the Pyodide runtime's pool. Each version's code is the module
 * `armature_made.v_<sha256 prefix>`, given (`setSessionModules`) to one pool session only: the
 * gate of a candidate (`made-gate:...`, stopped after its tests) or the version in force
 * (`made:...`, stopped when the version goes, and restarted fresh at its next call after being
 * reclaimed while idle). No other interpreter ever holds it, so code made by another change never
 * reaches its functions or `invoke`: Python has no boundary inside one interpreter (`gc`, frames
 * and `sys.modules` reach everything), which is why versions do not share one. Every call, from
 * any caller, is a ToolRunner call of the tool, which runs one `execute` of {@link invokeCode} in
 * the version's session; from Python, the generated `tools.made` function is a `call_tool` wrapper.
 */
import packageInit from './armature_made/__init__.py';

/** The Python package holding every version's module. */
export const MADE_PACKAGE = 'armature_made';

/** The package's `__init__.py` (`armature_made/__init__.py` beside this file): `invoke`, the one entry point of calls from the host. */
export const PACKAGE_INIT: string = packageInit;

let gates = 0;

/** The pool session of one gate of version `hash`: a new one each time, so no gate meets another's interpreter. */
export function gateSession(hash: string): string {
  return `made-gate:${hash.slice(0, 16)}:${++gates}`;
}

/** The pool session of version `hash` of tool `target` while it is in force (at most 128 characters). */
export function versionSession(target: string, hash: string): string {
  return `made:${hash.slice(0, 16)}:${target}`.slice(0, 128);
}

/** The module name of a version, e.g. `v_1a2b3c4d5e6f7a8b`. */
export function versionModule(hash: string): string {
  return `v_${hash.slice(0, 16)}`;
}

/** The files versions need under the module path: the package and one module per version (a session holds one version). */
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

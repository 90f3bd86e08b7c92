/**
 * Package installs inside the worker, offline first: names through the pinned lock file
 * (`loadPackage`), wheel URLs, (Node) wheel paths and wheel bytes directly, micropip only for
 * names the index lacks and only if micropip itself loads.
 */
import type { PyodideInterface } from 'pyodide';
import { DEFAULT_PACKAGE_INDEX, type InitRequest, type PythonErrorInfo } from '../protocol/protocol.ts';
import { allowInstallUrl } from './confine.ts';
import { isNode } from './port.ts';

/** What an install request answers. */
export type InstallOutcome = { ok: true; value: { installed: string[]; messages: string[] } } | { ok: false; error: PythonErrorInfo };

/** A package of the lock file, by normalized name. */
export type LockIndex = Map<string, { name: string; version: string }>;

/**
 * Reads `pyodide-lock.json`: from the installed package when `packageIndexURL` is the pinned
 * version's official index (the same file: start-up never waits on the network), else from the
 * mirror (3 s), falling back to the installed package's.
 */
export async function readLock(req: Pick<InitRequest, 'indexURL' | 'packageIndexURL'>): Promise<string> {
  const local = `${req.indexURL}pyodide-lock.json`;
  const own = req.packageIndexURL === req.indexURL || req.packageIndexURL === DEFAULT_PACKAGE_INDEX;
  const urls = own ? [local] : [`${req.packageIndexURL}pyodide-lock.json`, local];
  for (const url of urls) {
    try {
      if (isNode && !/^https?:/.test(url)) {
        const { readFile } = await import('node:fs/promises');
        return await readFile(url.startsWith('file:') ? new URL(url) : url, 'utf8');
      } else {
        const ctl = new AbortController();
        const timer = setTimeout(() => ctl.abort(), 3000);
        try {
          const r = await fetch(url, { signal: ctl.signal });
          if (r.ok) return await r.text();
        } finally {
          clearTimeout(timer);
        }
      }
    } catch {
      // Unreachable mirror: fall back to the lock file shipped with the installed Pyodide (same pinned version).
    }
  }
  throw new Error(`no pyodide-lock.json could be read from ${urls.join(' or ')}`);
}

/** The lock file's packages by normalized name. */
export function lockIndex(lockText: string): LockIndex {
  const lock = JSON.parse(lockText) as { packages: Record<string, { name: string; version: string }> };
  return new Map(Object.values(lock.packages).map((p) => [normalizeName(p.name), p]));
}

/** Installs `spec` into `py`. Never throws for a package that cannot be installed: it says why. */
export async function install(py: PyodideInterface, lock: LockIndex, spec: { source: string } | { fileName: string; bytes: Uint8Array }): Promise<InstallOutcome> {
  const errors: string[] = [];
  const messages: string[] = [];
  const opts = { messageCallback: (m: string) => messages.push(m), errorCallback: (m: string) => errors.push(m) };
  const before = new Set(Object.keys(py.loadedPackages));
  if ('bytes' in spec) {
    if (!/\.whl$/.test(spec.fileName)) return { ok: false, error: { type: 'ValueError', message: `${spec.fileName} is not a wheel (.whl)`, traceback: '' } };
    const site = py.runPython('import site; site.getsitepackages()[0]') as string;
    py.unpackArchive(new Uint8Array(spec.bytes), 'wheel', { extractDir: site });
    py.runPython('import importlib; importlib.invalidate_caches()');
    return { ok: true, value: { installed: [wheelName(spec.fileName)], messages: [] } };
  }
  const source = spec.source.trim();
  const isWheelRef = /\.whl(\?.*)?$/.test(source) || /^(https?|file):/.test(source) || source.startsWith('/');
  const indexed = isWheelRef ? undefined : lock.get(normalizeName(source));
  if (!isWheelRef && !indexed) {
    // Not in the index: micropip can resolve it from PyPI, if micropip itself can be loaded.
    const mp = await py.loadPackage('micropip', opts);
    if (!mp.length) {
      return {
        ok: false,
        error: {
          type: 'PackageNotFoundError',
          message: `${source} is not in the Pyodide package index, and micropip could not be loaded to look further (${errors.join('; ') || 'no network?'})`,
          traceback: '',
        },
      };
    }
    try {
      await py.runPythonAsync(`import micropip\nawait micropip.install(${JSON.stringify(source)})`);
      return { ok: true, value: { installed: [source], messages } };
    } catch (e) {
      return { ok: false, error: { type: 'PackageInstallError', message: `micropip could not install ${source}: ${(e as Error).message}`, traceback: '' } };
    }
  }
  // Node reads local wheels by path; a file: URL is turned into one.
  const target = indexed ? indexed.name : isNode && source.startsWith('file:') ? decodeURIComponent(new URL(source).pathname) : source;
  // The host asked for this URL: a confined worker's fetch lets it through for this install only.
  const revoke = /^https?:/.test(target) ? allowInstallUrl(new URL(target).href) : undefined;
  let loaded: Awaited<ReturnType<PyodideInterface['loadPackage']>>;
  try {
    loaded = await py.loadPackage(target, opts);
  } finally {
    revoke?.();
  }
  // loadPackage resolves [] instead of rejecting when a fetch fails: report what it logged.
  const added = Object.keys(py.loadedPackages).filter((p) => !before.has(p));
  if (!loaded.length && !added.length) {
    const already = !!indexed && before.has(indexed.name);
    if (already) return { ok: true, value: { installed: [], messages: [`${source} is already installed`] } };
    return {
      ok: false,
      error: {
        type: 'PackageInstallError',
        message: `could not install ${source}: ${errors.join('; ') || messages.join('; ') || 'loadPackage returned nothing'}`,
        traceback: '',
      },
    };
  }
  return { ok: true, value: { installed: loaded.map((p) => p.name), messages } };
}

/** A package name as PEP 503 compares them: lower case, runs of `-`, `_`, `.` as one `-`. */
export function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

function wheelName(file: string): string {
  return file.replace(/^.*\//, '').split('-')[0]!;
}

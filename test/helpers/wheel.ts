// Builds pure-Python wheels in memory (Node and browser), for offline install tests.
import { strToU8, zipSync } from 'fflate';

export interface BuiltWheel {
  name: string;
  version: string;
  fileName: string;
  bytes: Uint8Array;
  /** Hex sha256 of the wheel, as pyodide-lock.json records it. */
  sha256: string;
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as BufferSource);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** A wheel for package `name` whose `__init__.py` is `init` (plus any extra module files). */
export async function buildWheel(name: string, version: string, init: string, extra: Record<string, string> = {}): Promise<BuiltWheel> {
  const dist = `${name}-${version}.dist-info`;
  const files: Record<string, Uint8Array> = {
    [`${name}/__init__.py`]: strToU8(init),
    ...Object.fromEntries(Object.entries(extra).map(([p, t]) => [`${name}/${p}`, strToU8(t)])),
    [`${dist}/METADATA`]: strToU8(`Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\nSummary: test package built by Armature's tests\n`),
    [`${dist}/WHEEL`]: strToU8('Wheel-Version: 1.0\nGenerator: armature-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n'),
    [`${dist}/top_level.txt`]: strToU8(`${name}\n`),
  };
  files[`${dist}/RECORD`] = strToU8(Object.keys(files).map((p) => `${p},,`).join('\n') + `\n${dist}/RECORD,,\n`);
  // A fixed timestamp makes the bytes (and so the sha256 in a lock file) the same on every build.
  const bytes = zipSync(files, { level: 0, mtime: new Date('2020-01-01T00:00:00Z') });
  const fileName = `${name}-${version}-py3-none-any.whl`;
  return { name, version, fileName, bytes, sha256: await sha256Hex(bytes) };
}

/** A pyodide-lock.json that is `base` plus entries for `wheels`. */
export function lockWith(base: { info: unknown; packages: Record<string, unknown> }, wheels: BuiltWheel[]): string {
  const packages = { ...base.packages };
  for (const w of wheels) {
    // Pyodide looks packages up by canonical name (PEP 503: lower case, runs of -_. as -).
    const canonical = w.name.toLowerCase().replace(/[-_.]+/g, '-');
    packages[canonical] = {
      name: canonical,
      version: w.version,
      file_name: w.fileName,
      install_dir: 'site',
      sha256: w.sha256,
      package_type: 'package',
      imports: [w.name],
      depends: [],
      unvendored_tests: false,
      shared_library: false,
    };
  }
  return JSON.stringify({ info: base.info, packages });
}

/**
 * An agent-made upgrade's private storage: a folder of its own in the workspace's hidden area
 * `upgrade-data` (`<id>/...`), reached only through its `storage_*` capabilities. Paths are
 * normalized inside that folder (`..` out of it is refused), files are UTF-8 text, sizes bounded.
 * The ordinary file tools, Python and other upgrades never see it. A version under test gets a
 * storage of its own in memory, so its tests never touch the data of the version in force.
 */
import { quote } from '../../src/kernel/bounded.ts';
import { ArmatureError } from '../../src/kernel/errors.ts';
import type { SystemArea } from '../workspace/contract.ts';

/** The hidden area upgrades keep their data in. */
export const UPGRADE_DATA_AREA = 'upgrade-data';

/** Limits of one upgrade's storage. */
export const STORAGE_LIMITS = { fileChars: 1024 * 1024, files: 500 } as const;

/** What an upgrade's `storage_*` capabilities do. */
export interface UpgradeStorage {
  read(path: unknown): string | null;
  write(path: unknown, text: unknown): Promise<{ path: string; size: number }>;
  list(prefix?: unknown): { path: string; size: number }[];
  delete(path: unknown): Promise<boolean>;
}

/** The backend: a system area, or a map in memory for a version under test. */
interface Backend {
  list(prefix: string): { path: string; size: number }[];
  read(path: string): string | undefined;
  write(path: string, text: string): Promise<void>;
  delete(path: string): Promise<boolean>;
}

/**
 * `p` as a path inside the upgrade's folder: relative segments of printable characters, no `.`
 * or `..` segment, no backslash — stricter than workspace paths, so nothing can point outside.
 */
function folderPath(id: string, p: unknown): string {
  const bad = (why: string) => new ArmatureError('INVALID_PATH', `[storage] invalid path ${quote(p)}: ${why}`, { hint: `Storage paths are relative to ${id}'s own folder, e.g. "counts.json" or "daily/2025-01-01.json".` });
  if (typeof p !== 'string') throw bad('a path must be a string');
  if (!p || p.length > 512) throw bad('paths have 1 to 512 characters');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(p)) throw bad('control characters and backslashes are not allowed');
  const segments = p.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) throw bad('empty, "." and ".." segments are not allowed (and no leading "/")');
  return p;
}

function storageOver(id: string, b: Backend): UpgradeStorage {
  const path = (p: unknown) => folderPath(id, p);
  return {
    read: (p) => b.read(path(p)) ?? null,
    async write(p, text) {
      const at = path(p);
      if (typeof text !== 'string') throw new ArmatureError('INVALID_ARGUMENTS', `[storage] storage_write(${quote(at)}, text) takes text, got ${quote(text)}`, { hint: 'Store JSON.stringify(data).' });
      if (text.length > STORAGE_LIMITS.fileChars) throw new ArmatureError('STORAGE_FULL', `[storage] ${quote(at)} would be ${text.length} characters; at most ${STORAGE_LIMITS.fileChars}`, { hint: 'Keep less, or split it into files.' });
      if (b.read(at) === undefined && b.list('').length >= STORAGE_LIMITS.files) throw new ArmatureError('STORAGE_FULL', `[storage] ${id} has ${STORAGE_LIMITS.files} files already`, { hint: 'Delete some with storage_delete.' });
      await b.write(at, text);
      return { path: at, size: text.length };
    },
    list: (prefix) => b.list(prefix === undefined || prefix === '' ? '' : path(prefix)),
    delete: (p) => b.delete(path(p)),
  };
}

/** The storage of upgrade `id` in the workspace's `upgrade-data` area. */
export function areaStorage(id: string, area: SystemArea): UpgradeStorage {
  const root = `${id}/`;
  return storageOver(id, {
    list: (prefix) => area.list(`${id}${prefix ? `/${prefix}` : ''}`).map((f) => ({ path: f.path.slice(root.length), size: f.size })),
    read: (p) => area.readText(`${root}${p}`),
    write: async (p, text) => void (await area.write(`${root}${p}`, text)),
    delete: (p) => area.delete(`${root}${p}`),
  });
}

/** A storage in memory, for a version under test. */
export function memoryStorage(id: string): UpgradeStorage {
  const files = new Map<string, string>();
  return storageOver(id, {
    list: (prefix) => [...files].filter(([p]) => !prefix || p === prefix || p.startsWith(`${prefix}/`)).map(([p, t]) => ({ path: p, size: t.length })).sort((a, b) => (a.path < b.path ? -1 : 1)),
    read: (p) => files.get(p),
    write: async (p, text) => void files.set(p, text),
    delete: async (p) => files.delete(p),
  });
}

import { ArmatureError } from '../../src/kernel/errors.ts';
import type { AreaFileInfo, SystemArea } from './contract.ts';
import { normalizePath } from './paths.ts';

export type { AreaFileInfo, SystemArea } from './contract.ts';

/**
 * First path segment of the workspace's hidden system folder. Nothing under it is listed, read,
 * written or deleted through the ordinary workspace API, the file tools or Python's workspace
 * sync: only through {@link SystemArea}s, which the system's own upgrades (agent transcripts,
 * change records, versions) hold.
 */
export const SYSTEM_FOLDER = '.armature';

/** Area names: a kebab-case word, e.g. `runs`, `changes`. */
const AREA_NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** The raw operations an area needs, on full workspace paths (the workspace provides them). */
export interface AreaBackend {
  list(prefix: string): AreaFileInfo[];
  read(path: string): Uint8Array | undefined;
  write(path: string, data: Uint8Array): Promise<AreaFileInfo>;
  delete(path: string): Promise<boolean>;
}

/** Whether a normalized workspace path lies in the hidden system folder. */
export function isSystemPath(normalized: string): boolean {
  return normalized === SYSTEM_FOLDER || normalized.startsWith(`${SYSTEM_FOLDER}/`);
}

/** Creates the area `name` over `backend`. Throws `INVALID_AREA` for a name that is not kebab-case. */
export function createSystemArea(name: string, backend: AreaBackend): SystemArea {
  if (!AREA_NAME.test(name)) {
    throw new ArmatureError('INVALID_AREA', `[workspace] invalid system area name ${JSON.stringify(name.slice(0, 60))}`, {
      hint: 'Use a kebab-case word of at most 40 characters, e.g. "runs".',
    });
  }
  const root = `${SYSTEM_FOLDER}/${name}`;
  const full = (path: string) => `${root}/${normalizePath(path)}`;
  const relative = (info: AreaFileInfo): AreaFileInfo => ({ ...info, path: info.path.slice(root.length + 1) });
  const encoder = new TextEncoder();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  // Appends read, extend and rewrite a file: one at a time, or two would each keep only their own line.
  let appends: Promise<unknown> = Promise.resolve();

  return {
    name,
    list(prefix) {
      const base = prefix ? `${root}/${normalizePath(prefix)}` : root;
      return backend.list(base).map(relative);
    },
    read: (path) => backend.read(full(path)),
    readText(path) {
      const data = backend.read(full(path));
      return data === undefined ? undefined : decoder.decode(data);
    },
    write: async (path, data) => relative(await backend.write(full(path), typeof data === 'string' ? encoder.encode(data) : new Uint8Array(data))),
    append(path, text) {
      const target = full(path);
      const next = appends.then(async () => {
        const prior = backend.read(target);
        const add = encoder.encode(text);
        const data = new Uint8Array((prior?.byteLength ?? 0) + add.byteLength);
        if (prior) data.set(prior);
        data.set(add, prior?.byteLength ?? 0);
        return relative(await backend.write(target, data));
      });
      appends = next.catch(() => undefined);
      return next;
    },
    delete: (path) => backend.delete(full(path)),
  };
}

/**
 * The host's half of `syncWorkspace` 'out', shared by both isolations: what Python changed is
 * applied to the workspace only as far as the caller may (PythonTool passes the persona's
 * write_file and delete_file permissions).
 */
import type { SyncOptions, SyncReport, WorkspaceLike } from './runtime-types.ts';

/**
 * Applies what Python changed to the workspace as far as `options` allows (both isolations): the
 * files it wrote (or lists them as refused), and the synced files it deleted (or only reports them).
 */
export async function applyOut(
  ws: WorkspaceLike,
  files: { path: string; data: Uint8Array }[],
  deleted: string[],
  skipped: string[],
  options: SyncOptions,
): Promise<NonNullable<SyncReport['out']>> {
  const out: NonNullable<SyncReport['out']> = { count: 0, bytes: 0, deleted, skipped };
  if (options.write === false) {
    if (files.length) out.refused = files.map((f) => f.path);
  } else {
    for (const f of files) {
      await ws.write(f.path, f.data);
      out.count++;
      out.bytes += f.data.byteLength;
    }
  }
  if (options.delete && deleted.length) {
    if (!ws.delete) throw new Error('[syncWorkspace] this workspace cannot delete files');
    out.removed = [];
    for (const path of deleted) {
      await ws.delete(path);
      out.removed.push(path);
    }
  }
  return out;
}

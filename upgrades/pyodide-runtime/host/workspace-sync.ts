/**
 * The host's halves of `syncWorkspace`, shared by both isolations: the files that go in, within
 * the byte limit; and what Python changed, applied to the workspace only as far as the caller may
 * (PythonTool passes the persona's write_file and delete_file permissions).
 */
import type { SyncOptions, SyncReport, WorkspaceLike } from './runtime-types.ts';

/**
 * The workspace's files to copy into Python, in list order, as long as they fit in `maxBytes`
 * together; those that do not are `skipped` (by path). `data` is the workspace's own bytes.
 */
export function filesIn(ws: WorkspaceLike, maxBytes: number): { files: { path: string; data: Uint8Array; mtime: number }[]; skipped: string[]; bytes: number } {
  const files: { path: string; data: Uint8Array; mtime: number }[] = [];
  const skipped: string[] = [];
  let bytes = 0;
  for (const f of ws.list()) {
    if (bytes + f.size > maxBytes) {
      skipped.push(f.path);
      continue;
    }
    bytes += f.size;
    files.push({ path: f.path, data: ws.read(f.path), mtime: f.mtime });
  }
  return { files, skipped, bytes };
}

/**
 * Applies what Python changed to the workspace as far as `options` allows (both isolations): the
 * synced files it deleted (or only reports them), then the files it wrote (or lists them as
 * refused); a file the workspace refuses is listed in `failed` and the others still come out.
 */
export async function applyOut(
  ws: WorkspaceLike,
  files: { path: string; data: Uint8Array }[],
  deleted: string[],
  skipped: string[],
  options: SyncOptions,
): Promise<NonNullable<SyncReport['out']>> {
  const out: NonNullable<SyncReport['out']> = { count: 0, bytes: 0, deleted, skipped };
  // Deletions first: a folder Python replaced by a file of the same name is gone before the file comes.
  if (options.delete && deleted.length) {
    if (!ws.delete) throw new Error('[syncWorkspace] this workspace cannot delete files');
    out.removed = [];
    for (const path of deleted) {
      await ws.delete(path);
      out.removed.push(path);
    }
  }
  if (options.write === false) {
    if (files.length) out.refused = files.map((f) => f.path);
  } else {
    for (const f of files) {
      try {
        await ws.write(f.path, f.data);
      } catch (e) {
        // One file the workspace cannot take does not keep the others in Python.
        (out.failed ??= []).push({ path: f.path, error: String((e as Error)?.message ?? e).slice(0, 500) });
        continue;
      }
      out.count++;
      out.bytes += f.data.byteLength;
    }
  }
  return out;
}

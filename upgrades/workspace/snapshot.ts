import type { FileInfo, WorkspaceApi } from './contract.ts';

/** How many files the snapshot lists (by path); the card reads the rest with list_files. */
export const SNAPSHOT_FILES = 200;

/** What the Workspace's card shows: the first files by path, with the totals. */
export interface WorkspaceSnapshot {
  /** The first {@link SNAPSHOT_FILES} files, sorted by path. */
  files: FileInfo[];
  /** Files in the workspace. */
  totalFiles: number;
  /** Bytes stored (the hidden system folder included). */
  totalBytes: number;
  /** The newest modification time of a file, ms since the epoch. */
  lastModified?: number;
}

/** The Workspace's snapshot now. */
export function workspaceSnapshot(api: Pick<WorkspaceApi, 'list' | 'totalBytes'>): WorkspaceSnapshot {
  const all = api.list();
  let last: number | undefined;
  for (const f of all) if (last === undefined || f.mtime > last) last = f.mtime;
  return {
    files: all.slice(0, SNAPSHOT_FILES).map((f) => ({ path: f.path, size: f.size, mtime: f.mtime })),
    totalFiles: all.length,
    totalBytes: api.totalBytes(),
    ...(last === undefined ? {} : { lastModified: last }),
  };
}

/**
 * What `execute_python`'s `sync_workspace` says when the persona kept something in Python: files
 * Python wrote without `write_file`, deletions without `delete_file`.
 */
import type { SyncReport } from '../pyodide-runtime/contract.ts';
import type { SyncOut } from './python-tool-types.ts';

/** `out` with a notice of what the persona kept in Python, if anything. */
export function withSyncNotice(out: NonNullable<SyncReport['out']>, may: { write: boolean; delete: boolean }, personaId: string): SyncOut {
  const list = (paths: string[]) => `${paths.slice(0, 5).join(', ')}${paths.length > 5 ? `, … (${paths.length} in all)` : ''}`;
  const parts: string[] = [];
  if (!may.write && out.refused?.length) {
    parts.push(`persona ${personaId} does not allow write_file: the ${out.refused.length} file(s) Python wrote stayed in Python (${list(out.refused)}); add "write_file" to its tools to sync files out`);
  }
  if (!may.delete && out.deleted.length) {
    parts.push(`persona ${personaId} does not allow delete_file: the ${out.deleted.length} file(s) Python deleted (${list(out.deleted)}) stay in the workspace; add "delete_file" to its tools to sync deletions`);
  }
  return parts.length ? { ...out, notice: `${parts.join('. ')}.` } : out;
}

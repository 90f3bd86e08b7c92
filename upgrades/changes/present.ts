import type { ChangeKind, ChangeKindHandler, ChangePresentation, ChangeRecord } from '../../src/contracts/change-contract.ts';
import type { ChangeStore } from './change-store.ts';
import type { ChangeRecords } from './records.ts';

/**
 * What the changes widget shows of change `id`: its version and the version it was proposed over,
 * as their kind presents them (plain JSON when the kind is not loaded or cannot present it).
 */
export function presentChange(
  id: string,
  records: ChangeRecords,
  store: Pick<ChangeStore, 'peekVersion'>,
  kinds: ReadonlyMap<ChangeKind, ChangeKindHandler>,
): { change: ChangeRecord; current?: ChangePresentation; previous?: ChangePresentation } | undefined {
  const change = records.get(id);
  if (!change) return undefined;
  const show = (hash: string | null) => {
    const v = hash === null ? undefined : store.peekVersion(hash);
    if (!v) return undefined;
    const h = kinds.get(change.kind);
    try {
      return h ? h.present(v.content) : { code: JSON.stringify(v.content, null, 2) };
    } catch {
      return { code: JSON.stringify(v.content, null, 2) };
    }
  };
  const parent = change.parent === null ? undefined : records.history(change.kind, change.target).find((r) => r.version === change.parent && r.hash !== null);
  const current = show(change.hash);
  const previous = parent ? show(parent.hash) : undefined;
  return { change, ...(current ? { current } : {}), ...(previous ? { previous } : {}) };
}

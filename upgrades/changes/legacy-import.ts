/**
 * Carrying over the history of the older layout: before the journal, change records lived in the
 * workspace's hidden area `changes` as one lineage file per target (`lineage/<kind>/<target>.jsonl`,
 * the whole record then `{ id, at, set }` per transition) and versions as `versions/<sha256>.json`.
 * The first open of an empty journal over such an area imports them, once: versions as blobs (same
 * bytes, same names), records as `import` lines. What the old files could not hold true is
 * repaired on the way and said: unreadable lines are skipped, and of several records "in force"
 * for one target (a crash between two appends) only the one brought in last stays in force.
 */
import type { ChangeRecord } from '../../src/contracts/change-contract.ts';
import type { SystemArea } from '../workspace/contract.ts';
import type { ChangeStore } from './change-store.ts';

/** The older layout's area name. */
export const LEGACY_AREA = 'changes';

type LegacyLine = { record: ChangeRecord } | { id: string; at: number; set: Partial<ChangeRecord> };

/** Imports the older lineage from `area` into an empty journal; resolves to the notes of what was done (none: nothing to import). */
export async function importLegacy(area: SystemArea, store: ChangeStore): Promise<string[]> {
  const files = area.list('lineage');
  if (!files.length) return [];
  return store.shared.lock('journal-import', async () => {
    await store.refresh();
    if (store.records.size || store.fold.repairs.length) return [];
    const notes: string[] = [];
    const byId = new Map<string, ChangeRecord>();
    for (const file of files) {
      let text: string | undefined;
      try {
        text = area.readText(file.path);
      } catch {
        notes.push(`skipped the older lineage file ${file.path}: not UTF-8 text`);
        continue;
      }
      (text ?? '').split('\n').forEach((raw, i) => {
        if (!raw.trim()) return;
        try {
          const line = JSON.parse(raw) as LegacyLine;
          if ('record' in line && line.record && typeof line.record.id === 'string') byId.set(line.record.id, { ...line.record });
          else if ('set' in line && typeof line.id === 'string' && byId.has(line.id)) Object.assign(byId.get(line.id)!, line.set);
          else throw new Error('not a lineage line');
        } catch {
          notes.push(`skipped line ${i + 1} of the older lineage file ${file.path}: torn or not a lineage line`);
        }
      });
    }
    for (const v of area.list('versions')) {
      const data = area.read(v.path);
      const name = v.path.slice('versions/'.length);
      if (data && /^[0-9a-f]{64}\.json$/.test(name)) await store.shared.putBlob(name, data);
    }
    const all = [...byId.values()].sort((a, b) => a.at - b.at);
    // Of several records in force for one target, the one brought in last stays in force.
    const winners = new Map<string, ChangeRecord>();
    for (const r of all) {
      if (r.status !== 'active') continue;
      const key = `${r.kind}\u0000${r.target}`;
      const w = winners.get(key);
      if (!w || (r.activatedAt ?? r.at) >= (w.activatedAt ?? w.at)) winners.set(key, r);
    }
    for (const r of all) {
      if (r.status === 'active' && winners.get(`${r.kind}\u0000${r.target}`) !== r) {
        const w = winners.get(`${r.kind}\u0000${r.target}`)!;
        notes.push(`${r.kind} ${r.target}: changes ${r.id} and ${w.id} were both in force in the older lineage; ${w.id} (brought in last) stays in force, ${r.id} is recorded superseded`);
        Object.assign(r, { status: 'superseded', endedAt: w.activatedAt ?? w.at, outcome: `replaced by version ${w.version ?? '-'} (change ${w.id}); repaired on import: both were recorded in force` });
      }
      await store.append({ t: 'import', record: r });
    }
    notes.unshift(`imported ${all.length} change${all.length === 1 ? '' : 's'} from the older lineage files in the workspace`);
    await store.recordProblems(notes);
    return notes;
  });
}

// The change store as it grows (issue 28.8: 10,000 pending changes took creating from 7 s to 59 s
// per 2,000, and boot 4.8 s): 5 batches of 2,000 changes on the Node store (auto policy, 100
// targets, a kind whose gate costs nothing, so the store's own cost is what is timed, fsyncs
// included), then opening the store over the 10,000 records (the fold at boot), side by side with
// the same records in memory.
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { ChangeKindHandler } from '../src/contracts/change-contract.ts';
import { createEventBus } from '../src/kernel/event-bus.ts';
import type { Persona } from '../src/kernel/manifest-schemas.ts';
import { memoryShared } from '../src/platform/memory-shared-store.ts';
import type { SharedStore } from '../src/platform/platform.ts';
import { openSharedDirectory } from '../src/platform/node-shared-directory.ts';
import { createChanges } from '../upgrades/changes/changes.ts';
import { medianRow, type BenchRow } from './types.ts';

const BATCH = 2000;
const BATCHES = 5;
const TARGETS = 100;
const persona: Persona = { id: 'bench', name: 'B', description: 'd', upgrades: ['Changes'], tools: ['*'], skills: [], selfModification: { tools: 'auto' } };
const kind: ChangeKindHandler<{ name: string; n: number }> = {
  kind: 'tool',
  targetOf: (c) => c.name,
  gate: async () => ({ problems: [], tests: [{ args: {}, ok: true, ms: 0 }] }),
  activate: async () => undefined,
  deactivate: async () => undefined,
  present: (c) => ({ code: String(c.n) }),
};

/** Opens the change path over `store` and restores; wall time, and this process's CPU time (what a shared machine's load does not add). */
async function open(store: SharedStore) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const changes = await createChanges({ store, bus: createEventBus(), persona, watch: false, log: () => undefined });
  changes.registerKind(kind);
  await changes.restore('tool');
  const cpu = process.cpuUsage(c0);
  return { changes, ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 };
}

export async function run(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'armature-bench-changes-'));
  const rows: BenchRow[] = [];
  try {
    const memory = memoryShared();
    const disk = await openSharedDirectory(join(dir, 'changes'));
    const { changes } = await open(disk);
    const mem = (await open(memory.open())).changes;
    const batches: number[] = [];
    let n = 0;
    for (let b = 0; b < BATCHES; b++) {
      const t0 = performance.now();
      const per: number[] = [];
      for (let i = 0; i < BATCH; i++, n++) {
        const c = { kind: 'tool' as const, action: 'create' as const, content: { name: `t${n % TARGETS}`, n }, caller: 'agent' as const };
        const t = performance.now();
        await changes.propose(c);
        per.push(performance.now() - t);
        await mem.propose(c);
      }
      batches.push(performance.now() - t0);
      rows.push(medianRow('change-store', `propose, batch ${b + 1} (records ${b * BATCH}–${(b + 1) * BATCH})`, per, 'ms/change'));
      process.stderr.write(`change-store: batch ${b + 1}: ${(batches[b]! / 1000).toFixed(1)} s for ${BATCH}\n`);
    }
    const flat = batches[BATCHES - 1]! / batches[0]!;
    rows.push({ suite: 'change-store', name: `${BATCH} changes: last batch / first batch`, value: flat, unit: 'x', target: '<= 1.25 (no slower as it grows)', pass: flat <= 1.25 });
    await changes.dispose();
    await disk.close();
    const opens: number[] = [];
    const cpus: number[] = [];
    const memOpens: number[] = [];
    const memCpus: number[] = [];
    for (let i = 0; i < 5; i++) {
      const shared = await openSharedDirectory(join(dir, 'changes'));
      const o = await open(shared);
      if (o.changes.list().length !== BATCH * BATCHES) throw new Error(`the store holds ${o.changes.list().length} records, not ${BATCH * BATCHES}`);
      opens.push(o.ms);
      cpus.push(o.cpuMs);
      await o.changes.dispose();
      await shared.close();
      const m = await open(memory.open());
      memOpens.push(m.ms);
      memCpus.push(m.cpuMs);
    }
    rows.push(medianRow('change-store', `open over ${BATCH * BATCHES} records (Node files: read, checksum, fold, restore)`, opens, 'ms', { text: '<= 500 ms', pass: (v) => v <= 500 }));
    rows.push(medianRow('change-store', `open over ${BATCH * BATCHES} records (Node files), CPU time`, cpus, 'ms', { text: '<= 500 ms', pass: (v) => v <= 500 }));
    rows.push(medianRow('change-store', `open over ${BATCH * BATCHES} records (memory: fold and restore alone)`, memOpens, 'ms'));
    rows.push(medianRow('change-store', `open over ${BATCH * BATCHES} records (memory), CPU time`, memCpus, 'ms'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

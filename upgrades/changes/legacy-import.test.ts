// The older layout (lineage files per target in the workspace's hidden area) is carried into an
// empty journal once: its versions, its records, and a repair of what a crash left there — two
// records "in force" for one target, a torn line — said and recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChangeRecord } from '../../src/contracts/change-contract.ts';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { memoryShared } from '../../src/platform/memory-shared-store.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';
import { createWorkspace } from '../workspace/workspace.ts';
import { createChanges } from './changes.ts';
import { canonicalJson, sha256Hex } from './content-hash.ts';
import { LEGACY_AREA } from './legacy-import.ts';

const persona: Persona = { id: 'p', name: 'P', description: 'd', upgrades: ['Changes'], tools: ['*'], skills: [] };

const record = (id: string, version: number, hash: string, status: ChangeRecord['status'], at: number): ChangeRecord => ({
  id, kind: 'tool', target: 'made.ct', action: version === 1 ? 'create' : 'update', version, hash, parent: version - 1 || null,
  status, reason: `v${version}`, caller: { persona: 'p', via: 'agent' }, tests: [], approver: 'cli', at, activatedAt: at,
});

test('the older lineage is imported once; of two records in force for one target the later stays; the repair is said and recorded', async () => {
  const bus = createEventBus({ historySize: 100 });
  const workspace = await createWorkspace({ store: memoryStore(), bus });
  const area = workspace.area(LEGACY_AREA);
  const hashes: string[] = [];
  for (const code of ['one', 'two']) {
    const text = canonicalJson({ kind: 'tool', target: 'made.ct', content: { code } });
    const hash = await sha256Hex(text);
    hashes.push(hash);
    await area.write(`versions/${hash}.json`, text);
  }
  // As the old fold read it after a kill between two appends: v2 active, v1 never superseded.
  const lines = [
    JSON.stringify({ record: record('c00000001', 1, hashes[0]!, 'active', 1000) }),
    JSON.stringify({ record: record('c00000002', 2, hashes[1]!, 'active', 2000) }),
    '{"id":"c00000002","at":3',
  ];
  await area.write('lineage/tool/made.ct.jsonl', `${lines.join('\n')}\n`);

  const shared = memoryShared();
  const changes = await createChanges({ store: shared.open(), legacy: area, bus, persona, watch: false });
  assert.deepEqual(changes.list({ kind: 'tool', target: 'made.ct', status: 'active' }).map((r) => r.id), ['c00000002']);
  assert.equal(changes.get('c00000001')!.status, 'superseded');
  assert.deepEqual(changes.content(changes.get('c00000002')!), { code: 'two' }, 'the versions came along');
  const said = changes.repairs().map((r) => r.what).join('\n');
  assert.match(said, /imported 2 changes from the older lineage files/);
  assert.match(said, /made\.ct: changes c00000001 and c00000002 were both in force .* c00000002 \(brought in last\) stays in force/);
  assert.match(said, /skipped line 3 of the older lineage file lineage\/tool\/made\.ct\.jsonl/);
  assert.ok(bus.history(['change:repaired']).length > 0, 'and told');

  // Once: a second open (another process) imports nothing again.
  const lineCount = shared.lines.length;
  const again = await createChanges({ store: shared.open(), legacy: area, bus: createEventBus(), persona, watch: false });
  assert.equal(shared.lines.length, lineCount);
  assert.equal(again.list().length, 2);
});

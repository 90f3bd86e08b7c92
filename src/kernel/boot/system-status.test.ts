// Status snapshots through boot: a module's status() read by ArmatureSystem.status, published as
// coalesced module:status events after context.statusChanged(), for parts through their upgrade.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boot } from './boot.ts';
import { createEventBus, type EventRecord } from '../event-bus.ts';
import type { UpgradeContext, UpgradeModule } from '../upgrade.ts';
import { memoryPlatform } from '../../../test/helpers/memory-platform.ts';

function counterUpgrade(onContext: (ctx: UpgradeContext, bump: () => void) => void): UpgradeModule {
  return {
    metadata: { id: 'Counter', version: '1.0.0', description: 'counts', dependencies: [], blueprint: '0x000099', category: 'tools', widget: null },
    factory: (_deps, ctx) => {
      let n = 0;
      const parts = new Map<string, number>();
      onContext(ctx, () => {
        n++;
        ctx.statusChanged();
      });
      ctx.parts.loaded('counter:a', { version: '1.0.0', durationMs: 0 });
      parts.set('counter:a', 7);
      return {
        api: { part: (v: number) => (parts.set('counter:a', v), ctx.statusChanged('counter:a')) },
        status: () => ({ count: n }),
        partStatus: (id) => (parts.has(id) ? { value: parts.get(id)! } : undefined),
      };
    },
  };
}

async function bootCounter() {
  let bump!: () => void;
  const bus = createEventBus();
  const platform = memoryPlatform({
    'modules/upgrades.json': JSON.stringify({ upgrades: [{ id: 'Counter', entry: 'upgrades/counter/index.ts', blueprint: '0x000099', category: 'tools' }] }),
    'modules/tools-read.json': '[]',
    'modules/tools-write.json': '[]',
    'modules/personas/default.json': JSON.stringify({ id: 'default', name: 'T', description: 't', upgrades: ['Counter'], tools: ['*'] }),
  });
  const sys = await boot({ bus, platform, importer: async () => counterUpgrade((_c, b) => (bump = b)) });
  const seen: EventRecord<'module:status'>[] = [];
  bus.on('module:status', (_p, r) => seen.push(r));
  return { sys, bus, bump: () => bump(), seen };
}

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};

test('ArmatureSystem.status reads a module\'s snapshot now; statusChanged publishes module:status, coalesced', async () => {
  const { sys, bump, seen } = await bootCounter();
  assert.deepEqual(sys.status('Counter'), { count: 0 });
  assert.equal(sys.status('Nothing'), undefined);
  for (let i = 0; i < 50; i++) bump();
  assert.deepEqual(sys.status('Counter'), { count: 50 }, 'read at the time asked');
  await until(() => seen.some((r) => (r.payload.status as { count: number }).count === 50));
  assert.ok(seen.length <= 2, `50 changes in one task: one event at once, at most one trailing (got ${seen.length})`);
  assert.deepEqual(seen.at(-1)!.payload, { id: 'Counter', status: { count: 50 } });
  await sys.dispose();
});

test('a part reports its own snapshot through its upgrade; nothing is published after dispose', async () => {
  const { sys, bus, seen } = await bootCounter();
  const api = await sys.resolve<{ part(v: number): void }>('Counter');
  assert.deepEqual(sys.status('counter:a'), { value: 7 }, 'a part reported by its upgrade');
  api.part(9);
  await until(() => seen.some((r) => r.payload.id === 'counter:a'));
  assert.deepEqual(seen.find((r) => r.payload.id === 'counter:a')!.payload.status, { value: 9 });
  await sys.dispose();
  const before = bus.history(['module:status']).length;
  api.part(10);
  await new Promise((r) => setTimeout(r, 150));
  assert.equal(bus.history(['module:status']).length, before);
  assert.equal(sys.status('Counter'), undefined, 'a disposed module has no snapshot');
});

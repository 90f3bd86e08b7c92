import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boot } from './boot.ts';
import { initLimits } from './init-limit.ts';
import type { UpgradeContext, UpgradeModule } from '../upgrade.ts';
import * as toolRunner from '../../../upgrades/tool-runner/index.ts';
import { memoryPlatform } from '../../../test/helpers/memory-platform.ts';

/** An init that never finishes: whatever the machine's load, it misses any limit. */
const never = () => new Promise<void>(() => undefined);

/** A project of the real ToolRunner and upgrades made by `factories` (in that order, the first depending on nothing). */
function project(factories: Record<string, { deps?: string[]; make: UpgradeModule['factory'] }>) {
  const ids = Object.keys(factories);
  const entry = (id: string) => `upgrades/${id.toLowerCase()}/index.ts`;
  const upgrades = [
    { id: 'ToolRunner', entry: 'upgrades/tool-runner/index.ts', blueprint: '0x000012', category: 'core' },
    ...ids.map((id) => ({ id, entry: entry(id), dependencies: factories[id]!.deps ?? ['ToolRunner'], blueprint: '0x000099', category: 'tools' })),
  ];
  const modules = new Map<string, UpgradeModule>([['upgrades/tool-runner/index.ts', toolRunner as UpgradeModule]]);
  for (const id of ids) {
    const { deps = ['ToolRunner'], make } = factories[id]!;
    modules.set(entry(id), { metadata: { id, version: '1.0.0', description: id, dependencies: deps, blueprint: '0x000099', category: 'tools', widget: null }, factory: make });
  }
  const platform = memoryPlatform({
    'modules/upgrades.json': JSON.stringify({ upgrades }),
    'modules/tools-read.json': JSON.stringify(ids.includes('Hangs') ? [{ name: 'late_tool', description: 'Registered only after init.', module: 'Hangs', inputSchema: { type: 'object', properties: {} } }] : []),
    'modules/tools-write.json': '[]',
    'modules/personas/default.json': JSON.stringify({ id: 'default', name: 'Test', description: 'test persona', upgrades: ['ToolRunner', ...ids], tools: ['*'] }),
  });
  return { platform, importer: async (path: string) => modules.get(path)! };
}

test('an init past its limit fails its upgrade (which one, the limit, how to raise it) and its dependents; the rest boots; a late init registers nothing', async () => {
  let finishLate!: () => void;
  const { platform, importer } = project({
    Hangs: { make: () => ({ api: {}, tools: { late_tool: () => 'late' }, init: () => new Promise<void>((r) => (finishLate = r)) }) },
    Dependent: { deps: ['Hangs'], make: () => ({ api: {} }) },
    Fine: { make: () => ({ api: {}, init: async () => undefined }) },
  });
  const sys = await boot({ platform, importer, initTimeoutMs: 200 });
  assert.deepEqual(sys.modules.map((m) => [m.id, m.state]), [['ToolRunner', 'loaded'], ['Hangs', 'failed'], ['Dependent', 'failed'], ['Fine', 'loaded']]);
  const hangs = sys.modules.find((m) => m.id === 'Hangs')!;
  assert.match(hangs.error!.message, /^\[init\] Hangs failed to initialize: init did not finish within 200 ms, so the boot went on without it; if its init needs longer, raise the limit: boot\(\{ initTimeouts: \{ "Hangs": 5000 \} \}\) for it alone, or boot\(\{ initTimeoutMs \}\) \(armature --init-timeout MS\) for every upgrade$/);
  assert.equal(sys.modules.find((m) => m.id === 'Dependent')!.rootCause, 'Hangs');
  finishLate();
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(sys.tools.hasTool('late_tool'), false, 'its tools never come');
  await sys.dispose();
});

test('the limit of an upgrade: initTimeouts for it, else what it asks, else initTimeoutMs; parts get theirs through the context', async () => {
  const seen: Record<string, number> = {};
  const { platform, importer } = project({
    Asks: { make: () => ({ api: {}, initTimeoutMs: 300, init: never }) },
    Overridden: { make: () => ({ api: {}, initTimeoutMs: 60_000, init: never }) },
    Default: { make: () => ({ api: {}, init: never }) },
    Starter: {
      make: (_deps, ctx: UpgradeContext) => {
        seen.set = ctx.initTimeoutMs('upgrade:notes-index');
        seen.unset = ctx.initTimeoutMs('upgrade:other');
        return { api: {} };
      },
    },
  });
  const sys = await boot({ platform, importer, initTimeoutMs: 100, initTimeouts: { Overridden: 150, 'upgrade:notes-index': 4000 } });
  const limitOf = (id: string) => /within (\d+) ms/.exec(sys.modules.find((m) => m.id === id)!.error!.message)?.[1];
  assert.deepEqual([limitOf('Asks'), limitOf('Overridden'), limitOf('Default')], ['300', '150', '100']);
  assert.deepEqual(seen, { set: 4000, unset: 100 });
  assert.equal(sys.modules.find((m) => m.id === 'Starter')!.state, 'loaded');
  await sys.dispose();
});

test('unusable limits are refused naming the option and the value; an upgrade asking for an unusable one fails alone', async () => {
  assert.throws(() => initLimits(0, undefined), (e: Error & { code: string; hint: string }) => e.code === 'INVALID_CONFIG' && /initTimeoutMs 0 is out of range/.test(e.message) && /default 2000/.test(e.hint));
  assert.throws(() => initLimits(undefined, { McpClient: 'long' }), /initTimeouts\["McpClient"\] "long" is out of range/);
  assert.throws(() => initLimits(undefined, [1]), /initTimeouts must be an object of upgrade ids to milliseconds/);
  assert.deepEqual({ ...initLimits(undefined, undefined) }, { all: 2000, byId: Object.create(null) });
  const { platform, importer } = project({ Bad: { make: () => ({ api: {}, initTimeoutMs: -1 }) }, Good: { make: () => ({ api: {} }) } });
  await assert.rejects(boot({ platform, importer, initTimeoutMs: Number.NaN }), /INVALID_CONFIG|initTimeoutMs NaN is out of range/);
  const sys = await boot({ platform, importer });
  assert.deepEqual(sys.modules.map((m) => [m.id, m.state]), [['ToolRunner', 'loaded'], ['Bad', 'failed'], ['Good', 'loaded']]);
  assert.match(sys.modules[1]!.error!.message, /Bad asks for its init: initTimeoutMs -1 is out of range/);
  await sys.dispose();
});

test('a boot refused for its init limits tells the early starts it began that nothing will take over their work', async () => {
  const upgrades = [
    { id: 'ToolRunner', entry: 'upgrades/tool-runner/index.ts', blueprint: '0x000012', category: 'core' },
    { id: 'Slow', entry: 'upgrades/slow/index.ts', earlyStart: 'upgrades/slow/early-start.ts', dependencies: ['ToolRunner'], blueprint: '0x000099', category: 'tools' },
  ];
  const platform = memoryPlatform({
    'modules/upgrades.json': JSON.stringify({ upgrades }),
    'modules/tools-read.json': '[]',
    'modules/tools-write.json': '[]',
    'modules/personas/default.json': JSON.stringify({ id: 'default', name: 'Test', description: 'test persona', upgrades: ['ToolRunner', 'Slow'], tools: ['*'] }),
  });
  let signal: AbortSignal | undefined;
  const modules = new Map<string, unknown>([
    ['upgrades/tool-runner/index.ts', toolRunner],
    ['upgrades/slow/early-start.ts', { earlyStart: (ctx: { signal: AbortSignal }) => void (signal = ctx.signal) }],
  ]);
  await assert.rejects(boot({ platform, importer: async (path: string) => modules.get(path) as UpgradeModule, initTimeoutMs: Number.NaN }), /initTimeoutMs NaN is out of range/);
  assert.ok(signal, 'the early start was called');
  // Told as the boot's rejection settles: by the next turn.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(signal.aborted, true);
});

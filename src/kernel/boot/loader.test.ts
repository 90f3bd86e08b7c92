import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boot } from './boot.ts';
import type { BootConfig } from '../config-schema.ts';
import { ArmatureError } from '../errors.ts';
import { createEventBus, type AnyEventRecord } from '../event-bus.ts';
import type { EarlyStartContext, EarlyStartModule, UpgradeMetadata, UpgradeModule } from '../upgrade.ts';
import * as toolRunner from '../../../upgrades/tool-runner/index.ts';
import { memoryPlatform } from '../../../test/helpers/memory-platform.ts';

/** A fake upgrade; `early` gives it an early start (`null`: one whose module exports no hook). */
type Fake = Partial<UpgradeMetadata> & { id: string; make?: UpgradeModule['factory']; early?: EarlyStartModule['earlyStart'] | null };

/** A project whose upgrades are the real ToolRunner plus fakes built from `fakes`. */
function project(fakes: Fake[], opts: { tools?: unknown[]; personaUpgrades?: string[]; registry?: (f: Fake) => Record<string, unknown> } = {}) {
  const folder = (id: string) => id.toLowerCase();
  const upgrades = [
    { id: 'ToolRunner', entry: 'upgrades/tool-runner/index.ts', blueprint: '0x000012', category: 'core' },
    ...fakes.map((f) => ({
      id: f.id,
      entry: `upgrades/${folder(f.id)}/index.ts`,
      dependencies: [...(f.dependencies ?? [])],
      blueprint: '0x000099',
      category: 'tools',
      ...(f.early !== undefined ? { earlyStart: `upgrades/${folder(f.id)}/early-start.ts` } : {}),
      ...opts.registry?.(f),
    })),
  ];
  const modules = new Map<string, UpgradeModule | EarlyStartModule>([['upgrades/tool-runner/index.ts', toolRunner as UpgradeModule]]);
  for (const { make, early, ...f } of fakes) {
    modules.set(`upgrades/${folder(f.id)}/index.ts`, {
      metadata: { version: '1.0.0', description: f.id, dependencies: [], blueprint: '0x000099', category: 'tools', widget: null, ...f },
      factory: make ?? (() => ({ api: { id: f.id } })),
    });
    if (early !== undefined) modules.set(`upgrades/${folder(f.id)}/early-start.ts`, (early ? { earlyStart: early } : {}) as EarlyStartModule);
  }
  const platform = memoryPlatform({
    'modules/upgrades.json': JSON.stringify({ upgrades }),
    'modules/tools-read.json': JSON.stringify(opts.tools ?? []),
    'modules/tools-write.json': '[]',
    'modules/personas/default.json': JSON.stringify({
      id: 'default',
      name: 'Test',
      description: 'test persona',
      upgrades: opts.personaUpgrades ?? ['ToolRunner', ...fakes.map((f) => f.id)],
      tools: ['*'],
    }),
  });
  const importer = async (entry: string) => {
    const m = modules.get(entry);
    if (!m) throw new Error(`Cannot find module '${entry}'`);
    return m;
  };
  return { platform, importer };
}

const echoTool = { name: 'echo', description: 'Echo', module: 'Echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } };

test('boots in dependency order with module:loading/loaded events and timings', async () => {
  const bus = createEventBus();
  const events: AnyEventRecord[] = [];
  bus.onAny((r) => events.push(r));
  const { platform, importer } = project([{ id: 'Top', dependencies: ['Mid'] }, { id: 'Mid' }]);
  const sys = await boot({ platform, importer, bus });
  assert.deepEqual(sys.modules.map((m) => [m.id, m.state]), [['ToolRunner', 'loaded'], ['Mid', 'loaded'], ['Top', 'loaded']]);
  const loaded = events.filter((e) => e.type === 'module:loaded').map((e) => (e.payload as { id: string }).id);
  assert.deepEqual(loaded, ['ToolRunner', 'Mid', 'Top']);
  for (const m of sys.modules) assert.ok(m.durationMs >= 0 && Number.isFinite(m.durationMs));
  assert.deepEqual(await sys.resolve('Top'), { id: 'Top' });
  const booted = events.find((e) => e.type === 'system:booted')!.payload as { loaded: string[]; failed: string[] };
  assert.deepEqual(booted.failed, []);
  await sys.dispose();
  assert.deepEqual(
    events.filter((e) => e.type === 'module:disposed').map((e) => (e.payload as { id: string }).id),
    ['Top', 'Mid', 'ToolRunner'],
  );
});

test('a failing init fails its dependents naming the root cause while unrelated modules load', async () => {
  const bus = createEventBus();
  const failed: unknown[] = [];
  bus.on('module:failed', (p) => failed.push([p.id, p.error.code, p.rootCause]));
  const { platform, importer } = project([
    { id: 'Runtime', make: () => ({ api: {}, init: () => Promise.reject(new Error('Pyodide did not load')) }) },
    { id: 'PyTool', dependencies: ['Runtime'] },
    { id: 'Files' },
  ]);
  const sys = await boot({ platform, importer, bus });
  const byId = Object.fromEntries(sys.modules.map((m) => [m.id, m]));
  assert.equal(byId.Files!.state, 'loaded');
  assert.equal(byId.Runtime!.state, 'failed');
  assert.match(byId.Runtime!.error!.message, /\[init\] Runtime failed to initialize: Pyodide did not load/);
  assert.equal(byId.PyTool!.rootCause, 'Runtime');
  assert.match(byId.PyTool!.error!.message, /PyTool cannot start because its dependency Runtime failed \(root cause in Runtime/);
  assert.deepEqual(failed, [['Runtime', 'MODULE_INIT_FAILED', undefined], ['PyTool', 'DEPENDENCY_FAILED', 'Runtime']]);
  await sys.dispose();
});

test('an entry that fails to import is a module failure, not a boot failure', async () => {
  const { platform, importer } = project([{ id: 'Gone' }, { id: 'Fine' }]);
  const sys = await boot({ platform, importer: (e) => (e.includes('gone') ? Promise.reject(new SyntaxError('Unexpected token }')) : importer(e)) });
  const gone = sys.modules.find((m) => m.id === 'Gone')!;
  assert.equal(gone.state, 'failed');
  assert.match(gone.error!.message, /Gone failed to initialize: Unexpected token/);
  assert.equal(sys.modules.find((m) => m.id === 'Fine')!.state, 'loaded');
  await sys.dispose();
});

test('metadata that disagrees with modules/upgrades.json names both sides', async () => {
  const { platform, importer } = project([{ id: 'Odd', dependencies: [] }], { registry: () => ({ dependencies: ['ToolRunner'] }) });
  const sys = await boot({ platform, importer });
  const odd = sys.modules.find((m) => m.id === 'Odd')!;
  assert.equal(odd.error?.code, 'MODULE_INIT_FAILED');
  assert.match(odd.error!.message, /dependencies are \[\] in upgrades\/odd\/index\.ts but \[ToolRunner\] in modules\/upgrades\.json/);
  await sys.dispose();
});

test('a persona missing a dependency fails that module with MissingDependencyError', async () => {
  const { platform, importer } = project([{ id: 'Needy', dependencies: ['Helper'] }, { id: 'Helper' }], { personaUpgrades: ['ToolRunner', 'Needy'] });
  const sys = await boot({ platform, importer });
  const needy = sys.modules.find((m) => m.id === 'Needy')!;
  assert.equal(needy.state, 'failed');
  assert.match(needy.error!.message, /Needy depends on Helper which is not registered/);
  await sys.dispose();
});

test('tools are registered with the ToolRunner after init and unregistered on dispose', async () => {
  const { platform, importer } = project(
    [{ id: 'Echo', dependencies: ['ToolRunner'], make: () => ({ api: {}, tools: { echo: (a) => ({ said: a.text }) } }) }],
    { tools: [echoTool] },
  );
  const sys = await boot({ platform, importer });
  assert.deepEqual(await sys.tools.executeTool('echo', { text: 'hi' }).then((r) => r.ok && r.value), { said: 'hi' });
  assert.deepEqual(sys.tools.getToolDeclarations().map((d) => d.name), ['echo']);
  await sys.dispose();
  assert.equal(sys.tools.hasTool('echo'), false);
});

test('declared-but-unimplemented and implemented-but-undeclared tools fail boot of that module, naming both sides', async () => {
  const { platform, importer } = project(
    [
      { id: 'Echo', dependencies: ['ToolRunner'], make: () => ({ api: {}, tools: { shout: () => 'HI' } }) },
      { id: 'Other' },
    ],
    { tools: [echoTool] },
  );
  const sys = await boot({ platform, importer });
  const echo = sys.modules.find((m) => m.id === 'Echo')!;
  assert.equal(echo.state, 'failed');
  assert.match(echo.error!.message, /declared in the tool manifests but not implemented by Echo: echo/);
  assert.match(echo.error!.message, /implemented by Echo but declared in no tool manifest: shout \(add them to modules\/tools-read\.json or modules\/tools-write\.json\)/);
  assert.equal(sys.modules.find((m) => m.id === 'Other')!.state, 'loaded');
  await sys.dispose();
});

test('a module with tools that does not depend on ToolRunner is told so', async () => {
  // Listed first, so it fails before the ToolRunner is made: its failure reaches it through the bus history.
  const { platform, importer } = project([{ id: 'Echo', make: () => ({ api: {}, tools: { echo: () => 1 } }) }], { tools: [echoTool], personaUpgrades: ['Echo', 'ToolRunner'] });
  const sys = await boot({ platform, importer });
  assert.match(sys.modules.find((m) => m.id === 'Echo')!.error!.message, /Echo implements tools \(echo\) but does not depend on ToolRunner/);
  // Its tool is missing with that reason, whether Echo failed before the ToolRunner was made or after.
  const r = await sys.tools.executeTool('echo', {});
  assert.equal(!r.ok && r.error.code, 'TOOL_UNAVAILABLE');
  assert.match(!r.ok ? r.error.message : '', /echo is unavailable: its module Echo failed to load \(.*does not depend on ToolRunner/);
  await sys.dispose();
});

test("a module's bus subscriptions end when it is disposed", async () => {
  // What the system subscribes without the Listener (the ToolRunner's own, say): the baseline.
  const baseline = createEventBus();
  const empty = project([]);
  const bare = await boot({ platform: empty.platform, importer: empty.importer, bus: baseline });
  const system = baseline.listenerCount();
  await bare.dispose();
  const bus = createEventBus();
  let heard = 0;
  const { platform, importer } = project([
    { id: 'Listener', make: (_d, ctx) => (ctx.bus.on('workspace:deleted', () => heard++), ctx.bus.onAny(() => undefined), { api: {} }) },
  ]);
  const before = bus.listenerCount();
  const sys = await boot({ platform, importer, bus });
  bus.emit('workspace:deleted', { path: 'a' });
  assert.equal(bus.listenerCount(), before + system + 2, "the system's own and the Listener's two");
  await sys.dispose();
  assert.equal(bus.listenerCount(), before);
  bus.emit('workspace:deleted', { path: 'b' });
  assert.equal(heard, 1);
});

test('boot rejects an unknown persona with the list of personas', async () => {
  const { platform, importer } = project([]);
  await assert.rejects(boot({ platform, importer, persona: 'nope' }), /no persona "nope"\. Personas: default/);
});

test('without a ToolRunner, tool calls return TOOL_RUNNER_UNAVAILABLE instead of throwing', async () => {
  const { platform, importer } = project([{ id: 'Alone' }], { personaUpgrades: ['Alone'] });
  const sys = await boot({ platform, importer });
  const r = await sys.tools.executeTool('read_file', {});
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.error.code, 'TOOL_RUNNER_UNAVAILABLE');
  await sys.dispose();
});

test('parts an upgrade runs are reported after it, as modules with a parent, and stay current after boot', async () => {
  const bus = createEventBus();
  const events: string[] = [];
  bus.onAny((r) => (r.type.startsWith('module:') && (r.payload as { parent?: string }).parent ? events.push(`${r.type}:${(r.payload as { id: string }).id}`) : undefined));
  let parts: import('../upgrade.ts').ModuleParts | undefined;
  const { platform, importer } = project([
    {
      id: 'Servers',
      make: (_d, ctx) => {
        parts = ctx.parts;
        return {
          api: {},
          init: () => {
            ctx.parts.loading('srv:a');
            ctx.parts.loaded('srv:a', { version: '1.2.0', durationMs: 5 });
            ctx.parts.failed('srv:b', { code: 'MCP_START_FAILED', message: 'spawn nope ENOENT' }, 2);
          },
        };
      },
    },
    { id: 'After' },
  ]);
  const sys = await boot({ platform, importer, bus });
  assert.deepEqual(sys.modules.map((m) => [m.id, m.state, m.parent]), [['ToolRunner', 'loaded', undefined], ['Servers', 'loaded', undefined], ['srv:a', 'loaded', 'Servers'], ['srv:b', 'failed', 'Servers'], ['After', 'loaded', undefined]]);
  assert.equal(sys.modules[3]!.error?.message, 'spawn nope ENOENT');
  assert.equal(sys.modules[3]!.category, 'tools');
  // After boot: a part dies, another comes back, a new one appears, one goes away.
  parts!.failed('srv:a', { code: 'MCP_SERVER_EXITED', message: 'exited with code 1' }, 0);
  parts!.loaded('srv:b', { version: '1.0.0', durationMs: 3 });
  parts!.loaded('srv:c', { version: '1.0.0', durationMs: 1 });
  parts!.disposed('srv:b');
  assert.deepEqual(sys.modules.map((m) => [m.id, m.state]), [['ToolRunner', 'loaded'], ['Servers', 'loaded'], ['srv:a', 'failed'], ['srv:c', 'loaded'], ['After', 'loaded']]);
  assert.equal(sys.modules[2]!.error?.code, 'MCP_SERVER_EXITED');
  assert.deepEqual(events, ['module:loading:srv:a', 'module:loaded:srv:a', 'module:failed:srv:b', 'module:failed:srv:a', 'module:loaded:srv:b', 'module:loaded:srv:c', 'module:disposed:srv:b']);
  await sys.dispose();
});

test('an upgrade\'s typed events must agree with its registry entry; a part may report a widget, category and title of its own', async () => {
  const { platform, importer } = project(
    [
      { id: 'Typed', events: ['typed:happened' as never] },
      {
        id: 'Parent',
        make: (_d, ctx) => ({ api: {}, init: () => ctx.parts.loaded('child:one', { version: 'v2', durationMs: 1, widget: 'child-widget', category: 'knowledge', title: 'Child one' }) }),
      },
    ],
    { registry: (f) => (f.id === 'Typed' ? { events: ['typed:other'] } : {}) },
  );
  const sys = await boot({ platform, importer });
  const typed = sys.modules.find((m) => m.id === 'Typed')!;
  assert.equal(typed.state, 'failed');
  assert.match(typed.error!.message, /events are \[typed:happened\] in upgrades\/typed\/index\.ts but \[typed:other\] in modules\/upgrades\.json/);
  const part = sys.modules.find((m) => m.id === 'child:one')!;
  assert.deepEqual([part.parent, part.widget, part.category, part.title, part.version], ['Parent', 'child-widget', 'knowledge', 'Child one', 'v2']);
  await sys.dispose();
});

test('safe mode reaches every upgrade, and the booted persona is a copy of the file\'s', async () => {
  let seen: boolean | undefined;
  const { platform, importer } = project([{ id: 'Probe', make: (_d, ctx) => ((seen = ctx.safe), { api: {} }) }]);
  const sys = await boot({ platform, importer, safe: true });
  assert.equal(seen, true);
  assert.equal(sys.safe, true);
  sys.persona.tools.push('extra');
  assert.deepEqual(sys.manifests.personas.get('default')!.tools, ['*']);
  await sys.dispose();
});

test('early starts are called before any entry is imported, for the upgrades the persona loads only, each with its config', async () => {
  const log: string[] = [];
  const seen = new Map<string, EarlyStartContext>();
  const early = (id: string) => (ctx: EarlyStartContext) => void (seen.set(id, ctx), log.push(`early ${id}`));
  const { platform, importer } = project(
    [
      { id: 'Warm', early: early('Warm') },
      { id: 'Cold', early: early('Cold') },
      { id: 'Plain', make: (_d, ctx) => (log.push(`factory Plain ${JSON.stringify(ctx.config)}`), { api: {} }) },
    ],
    { personaUpgrades: ['ToolRunner', 'Plain', 'Warm'] },
  );
  // Upgrades of this test alone: their options are not in the typed map.
  const config = { Warm: { level: 3 }, Cold: { level: 9 }, Plain: { level: 1 } } as BootConfig;
  const sys = await boot({ platform, config, importer: (path) => (log.push(`import ${path}`), importer(path)) });
  assert.deepEqual(sys.modules.map((m) => [m.id, m.state]), [['ToolRunner', 'loaded'], ['Plain', 'loaded'], ['Warm', 'loaded']]);
  assert.deepEqual(log.slice(0, 3), ['import upgrades/warm/early-start.ts', 'early Warm', 'import upgrades/tool-runner/index.ts']);
  assert.ok(!log.some((l) => l.includes('cold')) && !seen.has('Cold'), `Cold is not in the persona: nothing of it is imported or called (${log.join('; ')})`);
  assert.ok(log.includes('factory Plain {"level":1}'));
  const ctx = seen.get('Warm')!;
  assert.deepEqual(ctx.config, { level: 3 }, 'the config its factory gets');
  assert.equal(ctx.persona.id, 'default');
  assert.equal(ctx.platform, platform);
  assert.equal(ctx.signal.aborted, false, 'its upgrade loaded and runs: its work is taken over, not stopped');
  await sys.dispose();
  assert.equal(ctx.signal.aborted, true, 'disposed: anything not taken over is to be stopped');
});

test('an early start that throws, rejects, hangs, exports no hook or cannot be imported is reported, and boot and its upgrade go on', async () => {
  const bus = createEventBus();
  const failures: [string, string, string][] = [];
  bus.on('module:early-start-failed', (p) => void failures.push([p.id, p.error.code, p.error.message]));
  const { platform, importer } = project([
    { id: 'Throws', early: () => { throw new TypeError('no spawn here'); } },
    { id: 'Rejects', early: () => Promise.reject(new ArmatureError('WARM_UP_FAILED', 'the cache is locked')) },
    { id: 'Hangs', early: () => new Promise<void>(() => undefined) },
    { id: 'Hollow', early: null },
    { id: 'Lost', early: () => undefined },
  ]);
  const sys = await boot({ platform, bus, importer: (path) => (path === 'upgrades/lost/early-start.ts' ? Promise.reject(new Error('Cannot find module')) : importer(path)) });
  assert.deepEqual(sys.modules.map((m) => [m.id, m.state]), [['ToolRunner', 'loaded'], ['Throws', 'loaded'], ['Rejects', 'loaded'], ['Hangs', 'loaded'], ['Hollow', 'loaded'], ['Lost', 'loaded']]);
  assert.deepEqual(failures.map(([id, code]) => [id, code]).sort(), [['Hollow', 'INVALID_EARLY_START'], ['Lost', 'EARLY_START_FAILED'], ['Rejects', 'WARM_UP_FAILED'], ['Throws', 'EARLY_START_FAILED']]);
  const message = (id: string) => failures.find((f) => f[0] === id)![2];
  assert.match(message('Throws'), /^\[early-start\] Throws: TypeError: no spawn here \(boot goes on; the upgrade starts its work when it loads\)$/);
  assert.match(message('Rejects'), /the cache is locked/);
  assert.match(message('Hollow'), /upgrades\/hollow\/early-start\.ts exports no function "earlyStart\(context\)": export one there, or remove "earlyStart"/);
  assert.match(message('Lost'), /Cannot find module/);
  assert.equal(await sys.tools.executeTool('no_such_tool', {}).then((r) => !r.ok && r.error.code), 'UNKNOWN_TOOL', 'the system works');
  await sys.dispose();
});

test("an early start's signal aborts as soon as its upgrade fails to load", async () => {
  const signals = new Map<string, AbortSignal>();
  const keep = (id: string) => (ctx: EarlyStartContext) => void signals.set(id, ctx.signal);
  const { platform, importer } = project([
    { id: 'Broken', early: keep('Broken'), make: () => { throw new Error('no runtime'); } },
    { id: 'Dependent', dependencies: ['Broken'], early: keep('Dependent') },
    { id: 'Fine', early: keep('Fine') },
  ]);
  const sys = await boot({ platform, importer });
  assert.deepEqual(sys.modules.map((m) => [m.id, m.state]), [['ToolRunner', 'loaded'], ['Broken', 'failed'], ['Dependent', 'failed'], ['Fine', 'loaded']]);
  assert.deepEqual([...signals].map(([id, s]) => [id, s.aborted]), [['Broken', true], ['Dependent', true], ['Fine', false]]);
  await sys.dispose();
  assert.equal(signals.get('Fine')!.aborted, true);
});

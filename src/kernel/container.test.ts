import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Container } from './container.ts';
import {
  ContainerDisposedError,
  DependencyCycleError,
  DependencyFailedError,
  DuplicateRegistrationError,
  MissingDependencyError,
  ModuleInitError,
} from './errors.ts';

const mod = (id: string, deps: string[] = [], extra: Partial<{ init: () => unknown; dispose: () => unknown; optional: string[] }> = {}) => ({
  id,
  dependencies: deps,
  optionalDependencies: extra.optional,
  factory: (d: Record<string, unknown>) => ({ api: { id, deps: d }, init: extra.init as never, dispose: extra.dispose as never }),
});

test('resolve builds dependencies first and returns a singleton api', async () => {
  const c = new Container();
  const order: string[] = [];
  c.register({ ...mod('A', ['B']), factory: (d) => (order.push('A'), { api: { b: d.B } }) });
  c.register({ ...mod('B'), factory: () => (order.push('B'), { api: { name: 'b' } }) });
  const a1 = await c.resolve<{ b: { name: string } }>('A');
  const a2 = await c.resolve('A');
  assert.equal(a1, a2);
  assert.deepEqual(order, ['B', 'A']);
  assert.equal(a1.b.name, 'b');
  assert.equal(c.state('A'), 'ready');
});

test('init is awaited before dependents are built', async () => {
  const c = new Container();
  const events: string[] = [];
  c.register(mod('B', [], { init: async () => { await new Promise((r) => setTimeout(r, 10)); events.push('B.init'); } }));
  c.register({ ...mod('A', ['B']), factory: () => (events.push('A.factory'), { api: {} }) });
  await c.resolve('A');
  assert.deepEqual(events, ['B.init', 'A.factory']);
});

test('a missing dependency names the module that asked and the id it lacked', async () => {
  const c = new Container();
  c.register(mod('PythonTool', ['PyodideRuntime']));
  const err = await c.resolve('PythonTool').catch((e) => e);
  assert.ok(err instanceof MissingDependencyError);
  assert.equal(err.code, 'MISSING_DEPENDENCY');
  assert.match(err.message, /^\[resolve\] PythonTool depends on PyodideRuntime which is not registered/);
});

test('a cycle is reported with its whole path', async () => {
  const c = new Container();
  c.register(mod('A', ['B']));
  c.register(mod('B', ['C']));
  c.register(mod('C', ['A']));
  const err = await c.resolve('A').catch((e) => e);
  assert.ok(err instanceof DependencyCycleError);
  assert.equal(err.code, 'DEPENDENCY_CYCLE');
  assert.match(err.message, /A -> B -> C -> A/);
  // Concurrent resolves of members of the cycle do not hang.
  const all = await Promise.allSettled([c.resolve('B'), c.resolve('C')]);
  assert.ok(all.every((r) => r.status === 'rejected'));
});

test('a failing init marks the module failed; dependents name the root cause; unrelated modules load', async () => {
  const failed: { id: string; code: string; root?: string }[] = [];
  const c = new Container(undefined, { onFailed: (id, e, _ms, root) => failed.push({ id, code: e.code, root }) });
  c.register(mod('Runtime', [], { init: () => { throw new Error('wasm exploded'); } }));
  c.register(mod('Tool', ['Runtime']));
  c.register(mod('Widget', ['Tool']));
  c.register(mod('Workspace'));
  const widget = await c.resolve('Widget').catch((e) => e);
  assert.ok(widget instanceof DependencyFailedError);
  assert.match(widget.message, /Widget cannot start because its dependency Tool failed \(root cause in Runtime: \[init\] Runtime failed to initialize: wasm exploded\)/);
  assert.equal(widget.rootModuleId, 'Runtime');
  const runtime = await c.resolve('Runtime').catch((e) => e);
  assert.ok(runtime instanceof ModuleInitError);
  assert.equal(c.state('Runtime'), 'failed');
  assert.deepEqual(await c.resolve('Workspace'), { id: 'Workspace', deps: {} });
  assert.deepEqual(failed, [
    { id: 'Runtime', code: 'MODULE_INIT_FAILED', root: undefined },
    { id: 'Tool', code: 'DEPENDENCY_FAILED', root: 'Runtime' },
    { id: 'Widget', code: 'DEPENDENCY_FAILED', root: 'Runtime' },
  ]);
});

test('a module whose init failed is disposed so it leaks nothing', async () => {
  const c = new Container();
  let disposed = false;
  c.register(mod('A', [], { init: () => { throw new Error('no'); }, dispose: () => { disposed = true; } }));
  await c.resolve('A').catch(() => undefined);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(disposed, true);
});

test('optional dependencies: absent or failed ones are undefined, present ones resolved', async () => {
  const c = new Container();
  c.register(mod('Bad', [], { init: () => { throw new Error('x'); } }));
  c.register(mod('Good'));
  c.register(mod('A', [], { optional: ['Missing', 'Bad', 'Good'] }));
  const a = await c.resolve<{ deps: Record<string, unknown> }>('A');
  assert.equal(a.deps.Missing, undefined);
  assert.equal(a.deps.Bad, undefined);
  assert.deepEqual(a.deps.Good, { id: 'Good', deps: {} });
});

test('dispose runs in reverse dependency order and only once', async () => {
  const c = new Container();
  const order: string[] = [];
  for (const [id, deps] of [['Base', []], ['Mid', ['Base']], ['Top', ['Mid', 'Base']]] as const) {
    c.register(mod(id, [...deps], { dispose: () => order.push(id) }));
  }
  await c.resolve('Top');
  await c.dispose();
  await c.dispose();
  assert.deepEqual(order, ['Top', 'Mid', 'Base']);
  assert.equal(c.state('Top'), 'disposed');
  await assert.rejects(c.resolve('Top'), ContainerDisposedError);
});

test('dispose errors are collected after every module had its turn', async () => {
  const c = new Container();
  const order: string[] = [];
  c.register(mod('A', [], { dispose: () => { order.push('A'); throw new Error('A broke'); } }));
  c.register(mod('B', ['A'], { dispose: () => order.push('B') }));
  await c.resolve('B');
  await assert.rejects(c.dispose(), /A broke/);
  assert.deepEqual(order, ['B', 'A']);
});

test('registering an id twice is an error naming it', () => {
  const c = new Container();
  c.register(mod('A'));
  assert.throws(() => c.register(mod('A')), (e: unknown) => e instanceof DuplicateRegistrationError && /A is already registered/.test(e.message));
});

test('child containers resolve their own modules first, then the parent, and dispose before it', async () => {
  const parent = new Container();
  const order: string[] = [];
  parent.register(mod('Shared', [], { dispose: () => order.push('parent:Shared') }));
  parent.register(mod('Config'));
  const child = parent.createChild();
  child.register({ ...mod('Config'), factory: () => ({ api: 'child-config' }) });
  child.register(mod('Agent', ['Shared', 'Config'], { dispose: () => order.push('child:Agent') }));
  const agent = await child.resolve<{ deps: Record<string, unknown> }>('Agent');
  assert.equal(agent.deps.Config, 'child-config');
  assert.equal(agent.deps.Shared, await parent.resolve('Shared'));
  assert.equal(parent.has('Agent'), false);
  await parent.dispose();
  assert.deepEqual(order, ['child:Agent', 'parent:Shared']);
});

test('a factory returning no api is reported clearly', async () => {
  const c = new Container();
  c.register({ id: 'A', factory: () => 42 as never });
  await assert.rejects(c.resolve('A'), /\[init\] A failed to initialize: factory must return \{ api, init\?, dispose\? \}, got 42/);
});

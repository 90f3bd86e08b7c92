// The runtime widget renders each state from the runtime's snapshot and its progress events, and
// acts through PythonTool's person-only tools. The first view here is fed by the test; a real
// PyodideRuntime booted alone drives the pool rows below, and the whole dashboard in
// test/e2e/dashboard.test.ts.
import { expect } from 'chai';
import type { PythonStatus } from '../../src/contracts/python-events.ts';
import type { PyodideRuntimeApi } from './runtime.ts';
import type { PyodideRuntimeSnapshot } from './snapshot.ts';
import { PyodideRuntimeWidget } from './widget.ts';
import { bootTest } from '../../test/helpers/test-system.ts';
import { recordedView } from '../../test/helpers/recorded-view.ts';
import { $, $$, eventually, mount, report, settle, stateOf, text } from '../../test/helpers/widget-fixture.ts';
import { until } from '../../test/helpers/until.ts';

function setup() {
  const view = recordedView();
  let state: PyodideRuntimeSnapshot = { status: 'idle', packages: 0, executions: 0, restarts: 0 };
  for (const tool of ['start_python', 'interrupt_python', 'restart_python']) view.answer(tool, () => ({}));
  const el = new PyodideRuntimeWidget();
  el.context = { view, moduleId: 'PyodideRuntime', report: report('PyodideRuntime', { category: 'runtime' }) };
  const set = (status: PythonStatus, extra: Partial<PyodideRuntimeSnapshot> = {}) => {
    state = { ...state, status, ...extra };
    view.emit('python:state', { status });
    view.setStatus('PyodideRuntime', state);
  };
  set('idle');
  return { view, el, set, calls: () => view.calls.map((c) => c.name) };
}

const buttons = (el: Element) => $$(el, '.controls button').map((b) => `${b.textContent!.trim()}${(b as HTMLButtonElement).disabled ? ' (disabled)' : ''}`);

describe('pyodide-runtime-widget', () => {
  it('goes through disabled, loading (with stage progress), idle, active, warning and error; its buttons are tool calls', async () => {
    const { view, el, calls, set } = setup();
    await mount(el);
    expect(stateOf(el)).to.equal('disabled');
    expect(buttons(el)).to.deep.equal(['Start Python', 'Interrupt (disabled)', 'Restart']);
    ($(el, '[data-control=start]') as HTMLButtonElement).click();
    expect(calls()).to.deep.equal(['start_python']);

    set('loading');
    view.emit('python:progress', { stage: 'fetch', percent: 40 });
    view.emit('python:progress', { stage: 'compile', percent: 55, message: 'compiling the WebAssembly module' });
    await settle(el);
    expect(stateOf(el)).to.equal('loading');
    expect((($(el, 'progress') as HTMLProgressElement).value)).to.equal(55);
    expect($$(el, 'ol.stages li').map((li) => li.textContent!.replace(/\s+/g, ' ').trim())).to.deep.equal(['✓ Fetch', '… Compile', '○ Start Python', '○ Ready']);
    expect(text(el)).to.contain('compiling the WebAssembly module');

    view.emit('python:progress', { stage: 'ready', percent: 100 });
    set('ready', { pythonVersion: '3.13.2', pyodideVersion: '0.29.5', transport: 'shared-memory', memoryBytes: 20 * 1024 * 1024 });
    await settle(el);
    expect(stateOf(el)).to.equal('idle');
    expect($(el, 'progress')).to.equal(null);
    expect(text(el)).to.match(/Python 3\.13\.2.*call_tool transport\s*shared-memory.*Memory \(wasm heap\)\s*20 MB/);

    set('busy');
    await settle(el);
    expect(stateOf(el)).to.equal('active');
    expect(buttons(el)).to.deep.equal(['Interrupt', 'Restart']);
    ($(el, '[data-control=interrupt]') as HTMLButtonElement).click();
    ($(el, '[data-control=restart]') as HTMLButtonElement).click();
    expect(calls()).to.deep.equal(['start_python', 'interrupt_python', 'restart_python']);

    set('restarting');
    await settle(el);
    expect(stateOf(el)).to.equal('warning');

    set('error', { lastError: { type: 'WorkerCrashed', message: 'the Python worker exited (code 1)' } });
    await settle(el);
    expect(stateOf(el)).to.equal('error');
    expect($(el, '[role=alert]')!.textContent).to.equal('WorkerCrashed: the Python worker exited (code 1)');
    expect(buttons(el)[0]).to.equal('Start again');
    el.remove();
  });

  it('mounted late, shows the load progress from the history; leaves no listener behind', async () => {
    const { view, el, set } = setup();
    set('loading');
    view.emit('python:progress', { stage: 'stdlib', percent: 70 });
    const before = view.feed.listenerCount();
    await mount(el);
    expect((($(el, 'progress') as HTMLProgressElement).value)).to.equal(70);
    expect(view.feed.listenerCount()).to.be.greaterThan(before);
    el.remove();
    expect(view.feed.listenerCount()).to.equal(before);
  });

  it('a failed call says why on the card', async () => {
    const { view, el } = setup();
    view.answer('start_python', () => {
      throw Object.assign(new Error('[executeTool] start_python is a person\'s decision'), { code: 'PERSON_ONLY', hint: 'Ask a person.' });
    });
    await mount(el);
    ($(el, '[data-control=start]') as HTMLButtonElement).click();
    await eventually(el, () => !!$(el, 'p.failure'), true);
    expect($(el, 'p.failure')!.textContent).to.equal('[executeTool] start_python is a person\'s decision Ask a person.');
    el.remove();
  });
});

describe('pyodide-runtime-widget with a real pool of Web Workers', () => {
  it('shows the pool: workers, spares, busy, sessions and the queue, as sessions run in workers of their own', async () => {
    const { sys, view } = await bootTest({ upgrades: ['PyodideRuntime'] }, { config: { PyodideRuntime: { autoStart: false, poolSize: 2, poolQueueLimit: 5, poolGraceMs: 0 } } });
    const rt = await sys.resolve<PyodideRuntimeApi>('PyodideRuntime');
    const el = new PyodideRuntimeWidget();
    el.context = { view, moduleId: 'PyodideRuntime', report: report('PyodideRuntime', { category: 'runtime' }) };
    const started = new Set<string>();
    sys.bus.on('python:started', ({ runId }) => started.add(runId));
    try {
      await mount(el);
      const pool = () => ['workers', 'sessions', 'queue'].map((k) => $(el, `[data-pool=${k}]`)!.textContent);
      expect(pool()).to.deep.equal(['0 for 2 at once (0 busy, 0 warm)', '0', '0 waiting (limit 5)']);
      // Two sessions, each in a Web Worker of its own with its own globals, both running code.
      const a = await rt.execute('x = "a"\nx', { session: 'A' });
      expect(a.ok && a.value).to.equal('a');
      const loopA = rt.execute('while True:\n    pass', { session: 'A', runId: 'loop-a' });
      const loopB = rt.execute('while True:\n    pass', { session: 'B', runId: 'loop-b' });
      // A third session waits for a worker (the pool's event comes at most every 100 ms, with the state of then).
      const third = rt.execute('"c"', { session: 'C' });
      // Two runtimes held and a warm spare for the next session (a spare's start, beside two loops
      // on a shared machine, takes what it takes: wait for the pool's state, then for the card).
      const poolIs = (workers: number, busy: number, queued: number) => () => {
        const s = rt.getState().pool!;
        return s.workers === workers && s.busy === busy && s.spares === 1 && s.queued === queued;
      };
      await until('a warm spare while C waits', poolIs(3, 2, 1), 60_000);
      const waiting = ['3 for 2 at once (2 busy, 1 warm)', '2', '1 waiting (limit 5)'];
      expect(await eventually(el, pool, waiting)).to.deep.equal(waiting);
      await until('both loops to start', () => started.has('loop-a') && started.has('loop-b'), 30_000);
      // The shared runtime never started, yet Python runs: the card is active and counts the session's run.
      expect(await eventually(el, () => stateOf(el), 'active')).to.equal('active');
      expect($(el, '.metrics')!.textContent).to.match(/Python in 3 session workers\s*1 run \(1 in sessions\)/);
      // A stops running: its worker is stopped for C (never handed over), and C starts on the warm spare.
      rt.interrupt('A');
      expect(((r) => !r.ok && r.error.type)(await loopA)).to.equal('KeyboardInterrupt');
      const c = await third;
      expect(c.ok && c.value).to.equal('c');
      rt.interrupt('B');
      expect(((r) => !r.ok && r.error.type)(await loopB)).to.equal('KeyboardInterrupt');
      await until('a new warm spare, nothing running', poolIs(3, 0, 0), 60_000);
      const idle = ['3 for 2 at once (0 busy, 1 warm)', '2', '0 waiting (limit 5)'];
      expect(await eventually(el, pool, idle)).to.deep.equal(idle);
      // Afterwards, every run is counted, and nothing runs.
      expect(await eventually(el, () => $(el, '.secondary')!.textContent, '4 runs (4 in sessions) · 0 restarts')).to.equal('4 runs (4 in sessions) · 0 restarts');
      expect(stateOf(el), 'workers wait for sessions: not "disabled"').to.equal('idle');
    } finally {
      el.remove();
      await sys.dispose();
    }
  });
});

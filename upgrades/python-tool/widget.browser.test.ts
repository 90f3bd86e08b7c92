// The PythonTool widget and its console against a view the test feeds: PythonTool's snapshots,
// the run's output events, and execute_python's answers; the real PythonTool drives the same
// widget in test/e2e/dashboard.test.ts and test/browser/agent-panel.test.ts.
import { expect } from 'chai';
import type { PythonPoolState, PythonStatus } from '../../src/contracts/python-events.ts';
import type { ToolResult } from '../../src/kernel/tool-contract.ts';
import type { ExecutePythonValue, PythonToolStats } from './python-tool-types.ts';
import type { PythonConsole } from './console.ts';
import type { PythonToolSnapshot } from './snapshot.ts';
import { PythonToolWidget } from './widget.ts';
import { recordedView } from '../../test/helpers/recorded-view.ts';
import { $, mount, report, settle, stateOf, text } from '../../test/helpers/widget-fixture.ts';

/** What a run answers: execute_python's tool result. */
type Run = (code: string, runId: string) => Promise<ToolResult<ExecutePythonValue>>;

const okRun = (v: Partial<ExecutePythonValue> = {}): ToolResult<ExecutePythonValue> => ({ ok: true, value: { value: null, stdout: '', stderr: '', executionTime: 1, ...v }, durationMs: 1 });

function setup() {
  const view = recordedView();
  let snap: PythonToolSnapshot = {
    stats: { executions: 0, successes: 0, failures: 0, meanMs: 0, errors: [] },
    runtime: { status: 'loading' },
    catalog: { tools: [{ name: 'execute_python', description: 'Run Python.' }], namespaces: [{ namespace: 'workspace', tools: ['read_file'] }] },
    packages: [],
  };
  let next: Run = async () => okRun();
  const interrupted: unknown[] = [];
  view.answer('execute_python', ({ args, options }) => next(String(args.code), options.callId!));
  view.answer('interrupt_python', ({ args }) => void interrupted.push(args.session));
  const publish = () => view.setStatus('PythonTool', structuredClone(snap));
  publish();
  const el = new PythonToolWidget();
  el.context = { view, moduleId: 'PythonTool', report: report('PythonTool', { category: 'tools' }) };
  return {
    view,
    el,
    setStats: (s: Partial<PythonToolStats>) => ((snap = { ...snap, stats: { ...snap.stats, ...s } }), publish()),
    setRuntime: (status: PythonStatus, extra: { pool?: PythonPoolState; packages?: PythonToolSnapshot['packages'] } = {}) => {
      snap = { ...snap, runtime: { status, ...(extra.pool ? { pool: extra.pool } : {}) }, ...(extra.packages ? { packages: extra.packages } : {}) };
      publish();
    },
    onRun: (f: Run) => (next = f),
    interrupts: () => interrupted,
  };
}

const consoleOf = (el: Element) => $(el, 'python-console') as unknown as PythonConsole;

/** A mounted widget with Python ready, and its console. */
async function mountedConsole() {
  const f = setup();
  f.setRuntime('ready');
  await mount(f.el);
  const c = consoleOf(f.el);
  await c.updateComplete;
  return { f, c };
}

describe('python-tool-widget', () => {
  it('renders loading, idle, active, warning and error with statistics, catalog and packages', async () => {
    const f = setup();
    await mount(f.el);
    expect(stateOf(f.el)).to.equal('loading');
    f.setRuntime('ready', { packages: [{ name: 'attrs', version: '23.2.0' }] });
    await settle(f.el);
    expect(stateOf(f.el)).to.equal('idle');
    expect(text(f.el)).to.match(/0 executions.*Python ready/);
    expect(text(f.el)).to.contain('attrs 23.2.0');
    expect(text(f.el)).to.contain('from tools.workspace import read_file');
    f.setRuntime('busy');
    await settle(f.el);
    expect(stateOf(f.el)).to.equal('active');
    // Runs in sessions (on the pool's runtimes) keep the card active while the shared runtime idles.
    const pool = { size: 2, workers: 3, spares: 1, busy: 2, sessions: 2, queued: 1, queueLimit: 64, runs: 5 };
    /** The shared runtime's status and the pool's busy runtimes, as the widget learns them. */
    const poolNow = async (status: PythonStatus, busy: number) => {
      const state = { ...pool, busy, queued: busy ? pool.queued : 0 };
      f.setRuntime(status, { pool: state });
      await settle(f.el);
      return { state: stateOf(f.el), text: text(f.el) };
    };
    let now = await poolNow('ready', 2);
    expect(now.state).to.equal('active');
    expect(now.text).to.match(/Python ready · 2 sessions running/);
    now = await poolNow('ready', 0);
    expect(now.state).to.equal('idle');
    expect(now.text).not.to.match(/sessions? running/);
    // Only sessions ran: the shared runtime never started, the pool's runtimes are up.
    now = await poolNow('idle', 1);
    expect(now.state).to.equal('active');
    expect(now.text).to.match(/Python ready · 1 session running/);
    now = await poolNow('idle', 0);
    expect(now.state, 'not loading: Python is up in the pool').to.equal('idle');
    expect(now.text).to.match(/Python ready/);
    f.setRuntime('ready');
    f.setStats({ executions: 4, successes: 3, failures: 1, successRate: 0.75, meanMs: 12.4, errors: [{ type: 'ValueError', message: 'bad', at: Date.now() }], lastExecution: { at: Date.now(), ok: false, durationMs: 9 } });
    await settle(f.el);
    expect(stateOf(f.el)).to.equal('warning');
    expect(text(f.el)).to.match(/Last run failed: ValueError: bad/);
    expect(text(f.el)).to.match(/4\s*executions\s*75%\s*success rate\s*12 ms\s*mean time\s*1\s*errors/);
    expect(text(f.el)).to.match(/Last execution: just now \(✖ failed, 9 ms\)/);
    f.setRuntime('error');
    await settle(f.el);
    expect(stateOf(f.el)).to.equal('error');
    f.el.remove();
  });

  it('console: streams only its own run, tells stderr apart, shows value or traceback and hint', async () => {
    const { f, c } = await mountedConsole();
    f.onRun(async (_code, runId) => {
      f.view.emit('python:stdout', { runId: 'someone-else', chunk: 'not mine\n' });
      f.view.emit('python:stdout', { runId, chunk: 'hello\n' });
      f.view.emit('python:stderr', { runId, chunk: 'careful\n' });
      await new Promise((r) => setTimeout(r, 50));
      return okRun({ value: { answer: 42 }, stdout: 'hello\n', stderr: 'careful\n', executionTime: 5 });
    });
    await c.run('print("hello")');
    await settle(c);
    const spans = [...c.shadowRoot!.querySelectorAll('.out span')].map((s) => [s.className, s.textContent]);
    expect(spans).to.deep.equal([['stdout', 'hello\n'], ['stderr', 'careful\n']]);
    expect(getComputedStyle(c.shadowRoot!.querySelector('.out .stderr')!, '::before').content).to.equal('"[stderr] "');
    expect(c.shadowRoot!.querySelector('.value')!.textContent).to.match(/value: \{\s*"answer": 42\s*\}/);
    f.onRun(async () => ({
      ok: false,
      error: { code: 'ZeroDivisionError', message: 'ZeroDivisionError: division by zero', details: { traceback: 'Traceback (most recent call last):\n  File "<python:2>", line 1\nZeroDivisionError: division by zero\n', stdout: '', stderr: '', executionTime: 1 } },
      hint: 'Do not divide by zero.',
      durationMs: 1,
    }));
    await c.run('1/0');
    await settle(c);
    const err = c.shadowRoot!.querySelector('[role=alert]')!;
    expect(err.textContent).to.contain('ZeroDivisionError: division by zero');
    expect(err.querySelector('pre')!.textContent).to.contain('File "<python:2>", line 1');
    expect(err.textContent).to.contain('Hint: Do not divide by zero.');
    f.el.remove();
  });

  it('console: a long error message and traceback line wrap inside the console, at a narrow width too', async () => {
    const { f, c } = await mountedConsole();
    f.el.style.width = '360px';
    const word = 'z'.repeat(500);
    f.onRun(async () => ({
      ok: false,
      error: { code: 'ValueError', message: `ValueError: ${word}`, details: { traceback: `Traceback (most recent call last):\n  File "<python:1>", line 1, in <module>\nValueError: ${word}\n`, stdout: '', stderr: '', executionTime: 1 } },
      durationMs: 1,
    }));
    await c.run(`raise ValueError("${word}")`);
    await settle(c);
    const err = c.shadowRoot!.querySelector<HTMLElement>('[role=alert]')!;
    expect(err.scrollWidth, 'the message does not run past the error box').to.be.at.most(err.clientWidth);
    const tb = err.querySelector('pre')!;
    expect(tb.scrollWidth, 'the traceback wraps instead of hiding its end').to.be.at.most(tb.clientWidth);
    f.el.remove();
  });

  it('console: Ctrl+Enter runs, Interrupt is enabled only while running', async () => {
    const { f, c } = await mountedConsole();
    let release!: () => void;
    let ran = '';
    f.onRun((code) => {
      ran = code;
      return new Promise((r) => (release = () => r(okRun())));
    });
    const ta = c.shadowRoot!.querySelector('textarea')!;
    ta.value = 'while True: pass';
    ta.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', ctrlKey: true, bubbles: true }));
    await settle(c);
    expect(ran).to.equal('while True: pass');
    const interrupt = c.shadowRoot!.querySelector<HTMLButtonElement>('[data-control=interrupt]')!;
    expect(interrupt.disabled).to.equal(false);
    interrupt.click();
    await settle(c);
    expect(f.interrupts(), 'interrupt_python for the console\'s own session').to.deep.equal([c.session]);
    expect(f.view.calls.find((x) => x.name === 'execute_python')!.options.session).to.equal(c.session);
    release();
    await new Promise((r) => setTimeout(r, 20));
    await settle(c);
    expect(c.shadowRoot!.querySelector<HTMLButtonElement>('[data-control=interrupt]')!.disabled).to.equal(true);
    f.el.remove();
  });

  it('console: 100,000 lines render as a bounded window with a hidden-line count, and the full log keeps all', async () => {
    const { f, c } = await mountedConsole();
    f.onRun(async (_code, runId) => {
      for (let chunk = 0; chunk < 100; chunk++) {
        let s = '';
        for (let i = 0; i < 1000; i++) s += `line ${chunk * 1000 + i}\n`;
        f.view.emit('python:stdout', { runId, chunk: s });
        if (chunk % 10 === 0) await new Promise((r) => setTimeout(r, 0));
      }
      return okRun();
    });
    await c.run('for i in range(100000): print("line", i)');
    await settle(c);
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    await c.updateComplete;
    const shown = c.shadowRoot!.querySelector('.out')!.textContent!.trimEnd().split('\n');
    expect(shown.length).to.equal(2000);
    expect(shown.at(-1)).to.equal('line 99999');
    expect(c.shadowRoot!.querySelector('.hidden-note')!.textContent).to.match(/98,000 earlier lines hidden/);
    const log = (c as unknown as { output: { fullLog(): string } }).output.fullLog();
    expect(log.split('\n').length - 1).to.equal(100000);
    f.el.remove();
  });

  it('leaves no listener behind when removed', async () => {
    const f = setup();
    const before = f.view.feed.listenerCount();
    await mount(f.el);
    await consoleOf(f.el).updateComplete;
    expect(f.view.feed.listenerCount()).to.be.greaterThan(before);
    f.el.remove();
    expect(f.view.feed.listenerCount()).to.equal(before);
  });
});

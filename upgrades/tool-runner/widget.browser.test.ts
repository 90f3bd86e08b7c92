import { expect } from 'chai';
import type { ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { ToolRunnerWidget } from './widget.ts';
import { bootTest } from '../../test/helpers/test-system.ts';
import { $$, eventually, mount, report, settle, stateOf, text } from '../../test/helpers/widget-fixture.ts';

const decl = (name: string): ToolDeclaration => ({ name, description: name, module: 'T', inputSchema: { type: 'object' }, pythonCallable: true });

/** The real ToolRunner booted alone, with three tools of the test's, and its widget on the system's view. */
async function setup() {
  const { sys, view } = await bootTest({ upgrades: ['ToolRunner'] });
  let release: () => void = () => undefined;
  sys.tools.registerTools([decl('echo'), decl('slow'), decl('boom')], (name, args) => {
    if (name === 'boom') throw new Error('it broke');
    if (name === 'slow') return new Promise((r) => (release = () => r('done')));
    return args;
  });
  const el = new ToolRunnerWidget();
  el.context = { view, moduleId: 'ToolRunner', report: report('ToolRunner') };
  return { sys, view, bus: sys.bus, runner: sys.tools, el, release: () => release() };
}

describe('tool-runner-widget', () => {
  it('renders idle, active, warning and back from the snapshot and the tool events', async () => {
    const { runner, el, release, sys } = await setup();
    await mount(el);
    expect(stateOf(el)).to.equal('idle');
    expect(text(el)).to.contain('0 calls');
    const slow = runner.executeTool('slow', {});
    await settle(el);
    expect(stateOf(el)).to.equal('active');
    expect(text(el)).to.contain('1 running');
    release();
    await slow;
    await settle(el);
    expect(stateOf(el)).to.equal('idle');
    await runner.executeTool('boom', {}, { caller: 'python' });
    await settle(el);
    expect(stateOf(el)).to.equal('warning');
    expect(text(el)).to.contain('boom failed: Error: it broke');
    const rows = $$(el, 'table[aria-label="recent tool calls"] tbody tr').map((r) => r.textContent!.replace(/\s+/g, ' ').trim());
    expect(rows[0]).to.match(/^boom Python [\d.]+ ✖ Error: it broke$/);
    expect(rows[1]).to.match(/^slow agent [\d.]+ ✓ ok$/);
    // The totals come from the ToolRunner's snapshot, which follows the calls on the trailing edge.
    expect(await eventually(el, () => text(el).includes('2 calls'), true)).to.equal(true);
    el.remove();
    await sys.dispose();
  });

  it('announces widget:mounted once attached and given a context, in either order, and unmounted on removal', async () => {
    const { view, sys } = await setup();
    const seen: string[] = [];
    view.events.on('widget:mounted', (p) => seen.push(`mounted ${p.module}`));
    view.events.on('widget:unmounted', (p) => seen.push(`unmounted ${p.module}`));
    const late = new ToolRunnerWidget();
    await mount(late);
    expect(seen, 'no context yet').to.deep.equal([]);
    late.context = { view, moduleId: 'Late', report: report('Late') };
    await settle(late);
    late.requestUpdate();
    await settle(late);
    expect(seen, 'context after attach: once').to.deep.equal(['mounted Late']);
    late.remove();
    const early = new ToolRunnerWidget();
    early.context = { view, moduleId: 'Early', report: report('Early') };
    await mount(early);
    early.remove();
    expect(seen).to.deep.equal(['mounted Late', 'unmounted Late', 'mounted Early', 'unmounted Early']);
    await sys.dispose();
  });

  it('shows calls made before it mounted (history and snapshot)', async () => {
    const { runner, el, sys } = await setup();
    await runner.executeTool('echo', { a: 1 });
    await mount(el);
    expect($$(el, 'table[aria-label="recent tool calls"] tbody tr')).to.have.length(1);
    expect(text(el)).to.match(/echo agent [\d.]+ ✓ ok/);
    expect(text(el)).to.match(/\b1 call ?0 errors · 3 tools\b/);
    el.remove();
    await sys.dispose();
  });

  it('leaves no listener behind when removed, and stops its clock', async () => {
    const { bus, el, sys } = await setup();
    const before = bus.listenerCount();
    await mount(el);
    expect(bus.listenerCount()).to.be.greaterThan(before);
    el.remove();
    expect(bus.listenerCount()).to.equal(before);
    expect((el as unknown as { clock: { running: boolean } }).clock.running).to.equal(false);
    await sys.dispose();
  });
});

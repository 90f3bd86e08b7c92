import { expect } from 'chai';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { ToolDeclaration } from '../../src/kernel/manifest-schemas.ts';
import { createToolRunner } from './tool-runner.ts';
import { ToolRunnerWidget } from './widget.ts';
import { $$, mount, report, settle, stateOf, text } from '../../test/helpers/widget-fixture.ts';

const decl = (name: string): ToolDeclaration => ({ name, description: name, module: 'T', inputSchema: { type: 'object' }, pythonCallable: true });

function setup() {
  const bus = createEventBus();
  const runner = createToolRunner({ bus, persona: { id: 'p', name: 'p', description: 'p', upgrades: [], tools: ['*'], skills: [] } });
  let release: () => void = () => undefined;
  runner.registerTools([decl('echo'), decl('slow'), decl('boom')], (name, args) => {
    if (name === 'boom') throw new Error('it broke');
    if (name === 'slow') return new Promise((r) => (release = () => r('done')));
    return args;
  });
  const el = new ToolRunnerWidget();
  el.context = { bus, moduleId: 'ToolRunner', api: runner, report: report('ToolRunner') };
  return { bus, runner, el, release: () => release() };
}

describe('tool-runner-widget', () => {
  it('renders idle, active, warning and back from bus events', async () => {
    const { runner, el, release } = setup();
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
    expect(text(el)).to.contain('2 calls');
    el.remove();
  });

  it('announces widget:mounted once attached and given a context, in either order, and unmounted on removal', async () => {
    const { bus, runner } = setup();
    const seen: string[] = [];
    bus.on('widget:mounted', (p) => seen.push(`mounted ${p.module}`));
    bus.on('widget:unmounted', (p) => seen.push(`unmounted ${p.module}`));
    const late = new ToolRunnerWidget();
    await mount(late);
    expect(seen, 'no context yet').to.deep.equal([]);
    late.context = { bus, moduleId: 'Late', api: runner, report: report('Late') };
    await settle(late);
    late.requestUpdate();
    await settle(late);
    expect(seen, 'context after attach: once').to.deep.equal(['mounted Late']);
    late.remove();
    const early = new ToolRunnerWidget();
    early.context = { bus, moduleId: 'Early', api: runner, report: report('Early') };
    await mount(early);
    early.remove();
    expect(seen).to.deep.equal(['mounted Late', 'unmounted Late', 'mounted Early', 'unmounted Early']);
  });

  it('shows calls made before it mounted (bus history)', async () => {
    const { runner, el } = setup();
    await runner.executeTool('echo', { a: 1 });
    await mount(el);
    expect($$(el, 'table[aria-label="recent tool calls"] tbody tr')).to.have.length(1);
    expect(text(el)).to.match(/echo agent [\d.]+ ✓ ok/);
    expect(text(el)).to.match(/\b1 call ?0 errors · 3 tools\b/);
    el.remove();
  });

  it('leaves no listener behind when removed, and stops its clock', async () => {
    const { bus, el } = setup();
    const before = bus.listenerCount();
    await mount(el);
    expect(bus.listenerCount()).to.be.greaterThan(before);
    el.remove();
    expect(bus.listenerCount()).to.equal(before);
    expect((el as unknown as { clock: { running: boolean } }).clock.running).to.equal(false);
  });
});

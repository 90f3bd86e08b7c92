import { expect } from 'chai';
import { WorkspaceWidget } from './widget.ts';
import type { WorkspaceApi } from './contract.ts';
import { bootTest } from '../../test/helpers/test-system.ts';
import { until } from '../../test/helpers/until.ts';
import { $, $$, mount, report, stateOf, text } from '../../test/helpers/widget-fixture.ts';

/** The real Workspace (and ToolRunner) booted alone, and its widget on the system's view. */
async function setup() {
  const { sys, view } = await bootTest({ upgrades: ['ToolRunner', 'Workspace'] });
  const ws = await sys.resolve<WorkspaceApi>('Workspace');
  const el = new WorkspaceWidget();
  el.context = { view, moduleId: 'Workspace', report: report('Workspace', { category: 'storage' }) };
  return { sys, bus: sys.bus, ws, el };
}

const rowsOf = (el: WorkspaceWidget) => $$(el, 'table[aria-label="workspace files"] tbody tr').map((r) => r.textContent!.replace(/\s+/g, ' ').trim());

describe('workspace-widget', () => {
  it('goes from idle to active as files arrive and lists them with sizes', async () => {
    const { ws, el, sys } = await setup();
    await mount(el);
    expect(stateOf(el)).to.equal('idle');
    expect(text(el)).to.contain('The workspace is empty.');
    await ws.write('notes/a.txt', 'hello <b>world</b>');
    await ws.write('img.bin', new Uint8Array([0, 255]));
    await until('both files in the widget', () => rowsOf(el).length === 2);
    expect(stateOf(el)).to.equal('active');
    expect(text(el)).to.contain('2 files');
    expect(rowsOf(el)).to.deep.equal(['img.bin 2 B just now', 'notes/a.txt 18 B just now']);
    el.remove();
    await sys.dispose();
  });

  it('shows a text file when clicked, read with read_file (as text, never markup), and explains binary files', async () => {
    const { ws, el, sys } = await setup();
    await ws.write('notes/a.txt', 'hello <b>world</b>');
    await ws.write('img.bin', new Uint8Array([0, 255]));
    await mount(el);
    const [bin, txt] = $$(el, 'button.file');
    txt!.click();
    await until('the text', () => !!$(el, 'pre'));
    expect($(el, 'pre')!.textContent).to.equal('hello <b>world</b>');
    expect($(el, 'pre b')).to.equal(null);
    expect(txt!.getAttribute('aria-pressed')).to.equal('true');
    const reads = sys.bus.history(['tool:finished']).filter((r) => r.payload.name === 'read_file' && r.payload.caller === 'ui');
    expect(reads, 'the widget read it as the person, through the tool').to.have.length(1);
    bin!.click();
    await until('the binary note', () => text(el).includes('img.bin is binary (2 B)'));
    expect($(el, 'p.failure')).to.equal(null, 'a binary file is no failure of the card');
    await ws.delete('img.bin');
    await until('the deleted file gone', () => !rowsOf(el).some((r) => r.startsWith('img.bin')));
    expect(text(el)).to.contain('img.bin no longer exists.');
    el.remove();
    await sys.dispose();
  });

  it('keeps a long path inside the card, its size and time in sight', async () => {
    const { ws, el, sys } = await setup();
    await ws.write(`data/very/long/${'x'.repeat(200)}.txt`, 'y');
    el.style.width = '360px';
    await mount(el);
    const card = $(el, '.card')!.getBoundingClientRect();
    const size = $(el, 'tbody td.num')!.getBoundingClientRect();
    expect(size.right, 'the size column ends inside the card').to.be.at.most(card.right);
    expect($(el, 'table')!.getBoundingClientRect().width, 'the table fits the card').to.be.at.most(card.width);
    el.remove();
    await sys.dispose();
  });

  it('leaves no listener behind when removed', async () => {
    const { bus, el, sys } = await setup();
    const before = bus.listenerCount();
    await mount(el);
    expect(bus.listenerCount()).to.be.greaterThan(before);
    el.remove();
    expect(bus.listenerCount()).to.equal(before);
    await sys.dispose();
  });
});

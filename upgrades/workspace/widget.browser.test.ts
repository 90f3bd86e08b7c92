import { expect } from 'chai';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { createWorkspace } from './workspace.ts';
import { WorkspaceWidget } from './widget.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';
import { $, $$, mount, report, settle, stateOf, text } from '../../test/helpers/widget-fixture.ts';

async function setup() {
  const bus = createEventBus();
  const ws = await createWorkspace({ store: memoryStore(), bus });
  const el = new WorkspaceWidget();
  el.context = { bus, moduleId: 'Workspace', api: ws, report: report('Workspace', { category: 'storage' }) };
  return { bus, ws, el };
}

describe('workspace-widget', () => {
  it('goes from idle to active as files arrive and lists them with sizes', async () => {
    const { ws, el } = await setup();
    await mount(el);
    expect(stateOf(el)).to.equal('idle');
    expect(text(el)).to.contain('The workspace is empty.');
    await ws.write('notes/a.txt', 'hello <b>world</b>');
    await ws.write('img.bin', new Uint8Array([0, 255]));
    await settle(el);
    expect(stateOf(el)).to.equal('active');
    expect(text(el)).to.contain('2 files');
    const rows = $$(el, 'table[aria-label="workspace files"] tbody tr').map((r) => r.textContent!.replace(/\s+/g, ' ').trim());
    expect(rows).to.deep.equal(['img.bin 2 B just now', 'notes/a.txt 18 B just now']);
    el.remove();
  });

  it('shows a text file when clicked (as text, never markup) and explains binary files', async () => {
    const { ws, el } = await setup();
    await ws.write('notes/a.txt', 'hello <b>world</b>');
    await ws.write('img.bin', new Uint8Array([0, 255]));
    await mount(el);
    const [bin, txt] = $$(el, 'button.file');
    txt!.click();
    await settle(el);
    expect($(el, 'pre')!.textContent).to.equal('hello <b>world</b>');
    expect($(el, 'pre b')).to.equal(null);
    expect(txt!.getAttribute('aria-pressed')).to.equal('true');
    bin!.click();
    await settle(el);
    expect(text(el)).to.contain('img.bin is binary (2 B)');
    await ws.delete('img.bin');
    await settle(el);
    expect(text(el)).to.not.contain('img.bin');
    el.remove();
  });

  it('keeps a long path inside the card, its size and time in sight', async () => {
    const { ws, el } = await setup();
    await ws.write(`data/very/long/${'x'.repeat(200)}.txt`, 'y');
    el.style.width = '360px';
    await mount(el);
    const card = $(el, '.card')!.getBoundingClientRect();
    const size = $(el, 'tbody td.num')!.getBoundingClientRect();
    expect(size.right, 'the size column ends inside the card').to.be.at.most(card.right);
    expect($(el, 'table')!.getBoundingClientRect().width, 'the table fits the card').to.be.at.most(card.width);
    el.remove();
  });

  it('leaves no listener behind when removed', async () => {
    const { bus, el } = await setup();
    const before = bus.listenerCount();
    await mount(el);
    expect(bus.listenerCount()).to.be.greaterThan(before);
    el.remove();
    expect(bus.listenerCount()).to.equal(before);
  });
});

// The changes widget in Chromium, over the real change path and a real workspace (in memory), with
// a small kind of its own whose "code" is text: the tool kind drives the same widget for real in the
// dashboard's end-to-end suite.
import { expect } from 'chai';
import type { ChangeKindHandler } from '../../src/contracts/change-contract.ts';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { memoryShared } from '../../src/platform/memory-shared-store.ts';
import { $, $$, mount, report, settle, stateOf, text } from '../../test/helpers/widget-fixture.ts';
import { createChanges } from './changes.ts';
import { ChangesWidget } from './widget.ts';

interface Note {
  name: string;
  code: string;
  ok: boolean;
}

const persona = (tools: 'auto' | 'ask'): Persona => ({ id: 'p', name: 'P', description: 'd', upgrades: ['Changes'], tools: ['*'], skills: [], selfModification: { tools } });

async function setup(policy: 'auto' | 'ask' = 'ask') {
  const bus = createEventBus({ historySize: 1000 });
  const store = memoryShared();
  const changes = await createChanges({ store: store.open(), bus, persona: persona(policy) });
  const live = new Map<string, string>();
  const kind: ChangeKindHandler<Note> = {
    kind: 'tool',
    targetOf: (c) => c.name,
    gate: async (_t, c) => ({ problems: [], tests: [{ args: { q: '<b>x</b>' }, ok: c.ok, ms: 1.5, ...(c.ok ? { value: '<i>fine</i>' } : { error: { code: 'EXPECTED', message: 'wanted <u>more</u>' } }) }] }),
    activate: async (t, c) => void live.set(t, c.code),
    deactivate: async (t) => void live.delete(t),
    present: (c) => ({ code: c.code, language: 'text' }),
  };
  changes.registerKind(kind);
  const el = new ChangesWidget();
  el.context = { bus, moduleId: 'Changes', api: changes, report: report('Changes', { category: 'agent' }) };
  return { bus, changes, el, live, store };
}

const propose = (changes: Awaited<ReturnType<typeof createChanges>>, code: string, opts: { ok?: boolean; reason?: string; action?: 'create' | 'update' } = {}) =>
  changes.propose({ kind: 'tool', action: opts.action ?? 'create', content: { name: 'made.echo', code, ok: opts.ok ?? true }, caller: 'agent', reason: opts.reason ?? 'because' });

describe('changes-widget', () => {
  it('shows a pending change with its reason, code and tests; Approve brings it into force, updated from events', async () => {
    const { changes, el, live } = await setup('ask');
    await mount(el);
    expect(stateOf(el)).to.equal('idle');
    expect(text(el)).to.contain('No changes yet.');
    const r = await propose(changes, 'line one\nline two\n', { reason: 'it <script>alert(1)</script> helps' });
    await settle(el);
    expect(stateOf(el)).to.equal('warning');
    expect(text(el)).to.contain('1 change waiting for your approval.');
    const item = $(el, `li[data-change="${r.id}"]`)!;
    expect(item.dataset.status).to.equal('pending');
    expect(item.querySelector('.target')!.textContent).to.equal('made.echo');
    // Untrusted text stays text.
    expect(item.querySelector('.reason')!.textContent).to.equal('it <script>alert(1)</script> helps');
    expect(el.shadowRoot!.querySelector('script, b, i, u')).to.equal(null);
    expect(item.querySelector('details.code pre')!.textContent).to.equal('line one\nline two\n');
    expect(item.querySelector('details.diff summary')!.textContent).to.contain('the first version');
    expect(item.querySelector('details.tests summary')!.textContent).to.contain('1 of 1 passed');
    expect(item.querySelector('table[aria-label="test report"] tbody')!.textContent).to.contain('"<i>fine</i>"');

    (item.querySelector('button[data-action=approve]') as HTMLButtonElement).click();
    await new Promise((res) => setTimeout(res, 50));
    await settle(el);
    expect(changes.get(r.id)!.status).to.equal('active');
    expect(changes.get(r.id)!.approver).to.equal('ui');
    expect(live.get('made.echo')).to.equal('line one\nline two\n');
    expect($(el, `li[data-change="${r.id}"]`)!.dataset.status).to.equal('active');
    expect($$(el, `li[data-change="${r.id}"] button`).map((b) => b.dataset.action)).to.deep.equal(['retire'], 'in force: only Retire');
    expect(stateOf(el)).to.equal('idle');

    // Retire takes the version in force out: the undo of a first version, which has none to roll back to.
    ($(el, `li[data-change="${r.id}"] button[data-action=retire]`) as HTMLButtonElement).click();
    await new Promise((res) => setTimeout(res, 50));
    await settle(el);
    expect(live.has('made.echo')).to.equal(false);
    expect(changes.active('tool', 'made.echo')!.action).to.equal('retire');
    expect(changes.get(r.id)!.status).to.equal('superseded');
  });

  it('Reject keeps the version in force; a rejected gate shows why; the diff shows what changed', async () => {
    const { changes, el, live } = await setup('ask');
    await mount(el);
    const first = await propose(changes, 'a\nb\n');
    await changes.approve(first.id, { caller: 'ui' });
    const second = await propose(changes, 'a\nB\n', { action: 'update' });
    const failing = await propose(changes, 'broken', { ok: false, action: 'update' });
    await settle(el);
    expect($(el, `li[data-change="${failing.id}"]`)!.dataset.status).to.equal('rejected');
    expect($(el, `li[data-change="${failing.id}"] .outcome`)!.textContent).to.contain('1 of 1 test failed');
    const diff = $$(el, `li[data-change="${second.id}"] pre.diff span`).map((s) => [s.className, s.textContent]);
    expect(diff).to.deep.equal([['same', '  a'], ['del', '− b'], ['add', '+ B']]);
    expect($(el, `li[data-change="${second.id}"] details.diff summary`)!.textContent).to.contain('Diff against v1: +1 −1');

    ($(el, `li[data-change="${second.id}"] button[data-action=reject]`) as HTMLButtonElement).click();
    await new Promise((res) => setTimeout(res, 50));
    await settle(el);
    expect(changes.get(second.id)!.status).to.equal('rejected');
    expect(live.get('made.echo')).to.equal('a\nb\n');
  });

  it('Roll back brings an earlier version back, and the version it replaced shows as rolled back', async () => {
    const { changes, el, live } = await setup('auto');
    const v1 = await propose(changes, 'one');
    const v2 = await propose(changes, 'two', { action: 'update' });
    await mount(el);
    expect($$(el, `li[data-change="${v2.id}"] button[data-action=rollback]`).length).to.equal(0, 'the version in force has no Roll back');
    const button = $(el, `li[data-change="${v1.id}"] button[data-action=rollback]`) as HTMLButtonElement;
    expect(button.textContent).to.equal('Roll back to v1');
    button.click();
    await new Promise((res) => setTimeout(res, 50));
    await settle(el);
    expect(live.get('made.echo')).to.equal('one');
    expect(changes.get(v2.id)!.status).to.equal('rolled-back');
    expect($(el, `li[data-change="${v2.id}"] .outcome`)!.textContent).to.contain('rolled back to version 1 by ui');
    expect($$(el, 'li.change').length).to.equal(3);

    el.remove();
  });

  it('an action that fails says why on the widget, and the change stays as it was', async () => {
    const { changes, el, store } = await setup('ask');
    const r = await propose(changes, 'gone');
    store.blobs.delete(`${r.hash}.json`);
    await mount(el);
    ($(el, `li[data-change="${r.id}"] button[data-action=approve]`) as HTMLButtonElement).click();
    await new Promise((res) => setTimeout(res, 50));
    await settle(el);
    expect($(el, 'p.message[role=alert]')!.textContent).to.contain('is not in the store');
    expect(changes.get(r.id)!.status).to.equal('pending');
    el.remove();
  });

  it('a check without a value shows none (never "undefined"); a first version the canary took back reads as out of service', async () => {
    const bus = createEventBus({ historySize: 1000 });
    const changes = await createChanges({ store: memoryShared().open(), bus, persona: persona('auto') });
    changes.registerKind({
      kind: 'persona',
      targetOf: () => 'p',
      // An overlay's gate: checks that pass or fail, with no value.
      gate: async () => ({ problems: [], tests: [{ name: 'upgrades', args: { add_upgrades: [] }, ok: true, ms: 0 }, { name: 'tools', args: { add_tools: ['made.*'] }, ok: true, ms: 0 }] }),
      activate: async () => undefined,
      deactivate: async () => undefined,
      present: (c) => ({ code: JSON.stringify(c), language: 'json' }),
    } as ChangeKindHandler<unknown>);
    const el = new ChangesWidget();
    el.context = { bus, moduleId: 'Changes', api: changes, report: report('Changes', { category: 'agent' }) };
    await mount(el);
    const r = await changes.propose({ kind: 'persona', action: 'create', content: { persona: 'p' }, caller: 'cli' });
    await settle(el);
    const rows = $$(el, `li[data-change="${r.id}"] table[aria-label="test report"] tbody tr`).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim()));
    expect(rows.map((cells) => cells[3])).to.deep.equal(['—', '—']);
    expect(text(el)).to.not.contain('undefined');

    const back = (await changes.revert('persona', 'p', 'canary: 6 of its first 6 calls failed'))!;
    await settle(el);
    const item = $(el, `li[data-change="${back.id}"]`)!;
    expect(item.dataset.status).to.equal('active');
    expect(item.querySelector('.badge')!.textContent, 'nothing is in force: its target is out of service').to.equal('out of service');
    expect(item.querySelector('.line')!.textContent!.replace(/\s+/g, ' ')).to.match(/out of service p no version persona rolled back by the system/);
    el.remove();
  });
});

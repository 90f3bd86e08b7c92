// The changes widget in Chromium, over the real change path booted with the ToolRunner and a
// workspace (in IndexedDB), with a small kind of its own whose "code" is text: the tool kind
// drives the same widget for real in the dashboard's end-to-end suite.
import { expect } from 'chai';
import type { ChangeKindHandler, ChangesApi } from '../../src/contracts/change-contract.ts';
import { memoryShared } from '../../src/platform/memory-shared-store.ts';
import { bootTest } from '../../test/helpers/test-system.ts';
import { until } from '../../test/helpers/until.ts';
import { $, $$, mount, report, stateOf, text } from '../../test/helpers/widget-fixture.ts';
import { ChangesWidget, PAGE } from './widget.ts';

interface Note {
  name: string;
  code: string;
  ok: boolean;
}

async function setup(policy: 'auto' | 'ask' = 'ask') {
  // The change store in memory, held by the test (to damage it); the rest of the system real.
  const store = memoryShared();
  const { sys, view } = await bootTest({ upgrades: ['ToolRunner', 'Workspace', 'Changes'], selfModification: { tools: policy } }, { shared: { changes: store.open() } });
  const changes = await sys.resolve<ChangesApi>('Changes');
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
  el.context = { view, moduleId: 'Changes', report: report('Changes', { category: 'agent' }) };
  return { sys, changes, el, live, store };
}

/** The widget's item of change `id` once it shows `status` (the list is read again after each change event). */
const shows = async (el: ChangesWidget, id: string, status: string) => {
  await until(`${id} ${status} on the widget`, () => $(el, `li[data-change="${id}"]`)?.dataset.status === status);
  return $(el, `li[data-change="${id}"]`)!;
};

const propose = (changes: ChangesApi, code: string, opts: { ok?: boolean; reason?: string; action?: 'create' | 'update' } = {}) =>
  changes.propose({ kind: 'tool', action: opts.action ?? 'create', content: { name: 'made.echo', code, ok: opts.ok ?? true }, caller: 'agent', reason: opts.reason ?? 'because' });

describe('changes-widget', () => {
  it('shows a pending change with its reason, code and tests; Approve brings it into force, updated from events', async () => {
    const { changes, el, live, sys } = await setup('ask');
    await mount(el);
    expect(stateOf(el)).to.equal('idle');
    expect(text(el)).to.contain('No changes yet.');
    const r = await propose(changes, 'line one\nline two\n', { reason: 'it <script>alert(1)</script> helps' });
    const item = await shows(el, r.id, 'pending');
    await until('the warning', () => stateOf(el) === 'warning');
    expect(text(el)).to.contain('1 change waiting for your approval.');
    expect(item.querySelector('.target')!.textContent).to.equal('made.echo');
    // Untrusted text stays text.
    expect(item.querySelector('.reason')!.textContent).to.equal('it <script>alert(1)</script> helps');
    expect(el.shadowRoot!.querySelector('script, b, i, u')).to.equal(null);
    expect(item.querySelector('details.code pre')!.textContent).to.equal('line one\nline two\n');
    expect(item.querySelector('details.diff summary')!.textContent).to.contain('the first version');
    expect(item.querySelector('details.tests summary')!.textContent).to.contain('1 of 1 passed');
    expect(item.querySelector('table[aria-label="test report"] tbody')!.textContent).to.contain('"<i>fine</i>"');

    (item.querySelector('button[data-action=approve]') as HTMLButtonElement).click();
    await shows(el, r.id, 'active');
    expect(changes.get(r.id)!.status).to.equal('active');
    expect(changes.get(r.id)!.approver).to.equal('ui');
    expect(live.get('made.echo')).to.equal('line one\nline two\n');
    expect(sys.bus.history(['tool:finished']).filter((e) => e.payload.name === 'approve_change' && e.payload.caller === 'ui' && e.payload.ok), 'approved through the person\'s tool').to.have.length(1);
    expect($$(el, `li[data-change="${r.id}"] button`).map((b) => b.dataset.action)).to.deep.equal(['retire'], 'in force: only Retire');
    await until('idle', () => stateOf(el) === 'idle');

    // Retire takes the version in force out: the undo of a first version, which has none to roll back to.
    ($(el, `li[data-change="${r.id}"] button[data-action=retire]`) as HTMLButtonElement).click();
    await shows(el, r.id, 'superseded');
    expect(live.has('made.echo')).to.equal(false);
    expect(changes.active('tool', 'made.echo')!.action).to.equal('retire');
    expect(changes.get(r.id)!.status).to.equal('superseded');
    el.remove();
    await sys.dispose();
  });

  it('Reject keeps the version in force; a rejected gate shows why; the diff shows what changed', async () => {
    const { changes, el, live, sys } = await setup('ask');
    await mount(el);
    const first = await propose(changes, 'a\nb\n');
    await changes.approve(first.id, { caller: 'ui' });
    const second = await propose(changes, 'a\nB\n', { action: 'update' });
    const failing = await propose(changes, 'broken', { ok: false, action: 'update' });
    await shows(el, failing.id, 'rejected');
    expect($(el, `li[data-change="${failing.id}"] .outcome`)!.textContent).to.contain('1 of 1 test failed');
    const diff = $$(el, `li[data-change="${second.id}"] pre.diff span`).map((s) => [s.className, s.textContent]);
    expect(diff).to.deep.equal([['same', '  a'], ['del', '− b'], ['add', '+ B']]);
    expect($(el, `li[data-change="${second.id}"] details.diff summary`)!.textContent).to.contain('Diff against v1: +1 −1');

    ($(el, `li[data-change="${second.id}"] button[data-action=reject]`) as HTMLButtonElement).click();
    await shows(el, second.id, 'rejected');
    expect(changes.get(second.id)!.status).to.equal('rejected');
    expect(changes.get(second.id)!.outcome).to.equal('rejected by ui: rejected on the dashboard');
    expect(live.get('made.echo')).to.equal('a\nb\n');
    el.remove();
    await sys.dispose();
  });

  it('Roll back brings an earlier version back, and the version it replaced shows as rolled back', async () => {
    const { changes, el, live, sys } = await setup('auto');
    const v1 = await propose(changes, 'one');
    const v2 = await propose(changes, 'two', { action: 'update' });
    await mount(el);
    await shows(el, v1.id, 'superseded');
    expect($$(el, `li[data-change="${v2.id}"] button[data-action=rollback]`).length).to.equal(0, 'the version in force has no Roll back');
    const button = $(el, `li[data-change="${v1.id}"] button[data-action=rollback]`) as HTMLButtonElement;
    expect(button.textContent).to.equal('Roll back to v1');
    button.click();
    await shows(el, v2.id, 'rolled-back');
    expect(live.get('made.echo')).to.equal('one');
    expect(changes.get(v2.id)!.status).to.equal('rolled-back');
    expect($(el, `li[data-change="${v2.id}"] .outcome`)!.textContent).to.contain('rolled back to version 1 by ui');
    await until('three changes', () => $$(el, 'li.change').length === 3);
    el.remove();
    await sys.dispose();
  });

  it('an action that fails says why on the widget, and the change stays as it was', async () => {
    const { changes, el, store, sys } = await setup('ask');
    const r = await propose(changes, 'gone');
    store.blobs.delete(`${r.hash}.json`);
    await mount(el);
    ((await shows(el, r.id, 'pending')).querySelector('button[data-action=approve]') as HTMLButtonElement).click();
    await until('the refusal', () => !!$(el, 'p.message[role=alert]'));
    expect($(el, 'p.message[role=alert]')!.textContent).to.contain('is not in the store');
    expect(changes.get(r.id)!.status).to.equal('pending');
    el.remove();
    await sys.dispose();
  });

  it('pages a long history: the first page, then "Show more", newest first, inside a card that scrolls', async () => {
    const { changes, el, sys } = await setup('auto');
    for (let i = 0; i < PAGE + 5; i++) await propose(changes, `v${i}`, { action: i ? 'update' : 'create' });
    await mount(el);
    await until('the first page', () => $$(el, 'li.change').length === PAGE);
    const newest = changes.list()[0]!;
    expect($$(el, 'li.change')[0]!.dataset.change).to.equal(newest.id);
    expect(text(el)).to.contain('5 older changes not shown yet.');
    ($(el, '[data-control=more-changes]') as HTMLButtonElement).click();
    await until('every change', () => $$(el, 'li.change').length === PAGE + 5);
    expect($(el, '[data-control=more-changes]')).to.equal(null);
    expect(getComputedStyle($(el, '.scroll')!).overflowY).to.equal('auto');
    // A new change arrives at the top; the pages already shown stay.
    const late = await propose(changes, 'latest', { action: 'update' });
    await until('the new change on top', () => $$(el, 'li.change')[0]?.dataset.change === late.id);
    expect($$(el, 'li.change').length).to.equal(PAGE + 6);
    el.remove();
    await sys.dispose();
  });

  it('a check without a value shows none (never "undefined"); a first version the canary took back reads as out of service', async () => {
    const { sys, view } = await bootTest({ upgrades: ['ToolRunner', 'Workspace', 'Changes'], selfModification: { tools: 'auto' } });
    const changes = await sys.resolve<ChangesApi>('Changes');
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
    el.context = { view, moduleId: 'Changes', report: report('Changes', { category: 'agent' }) };
    await mount(el);
    const r = await changes.propose({ kind: 'persona', action: 'create', content: { persona: 'p' }, caller: 'cli' });
    await until('its test report', () => $$(el, `li[data-change="${r.id}"] table[aria-label="test report"] tbody tr`).length === 2);
    const rows = $$(el, `li[data-change="${r.id}"] table[aria-label="test report"] tbody tr`).map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim()));
    expect(rows.map((cells) => cells[3])).to.deep.equal(['—', '—']);
    expect(text(el)).to.not.contain('undefined');

    const back = (await changes.revert('persona', 'p', 'canary: 6 of its first 6 calls failed'))!;
    const item = await shows(el, back.id, 'active');
    expect(item.dataset.status).to.equal('active');
    expect(item.querySelector('.badge')!.textContent, 'nothing is in force: its target is out of service').to.equal('out of service');
    expect(item.querySelector('.line')!.textContent!.replace(/\s+/g, ' ')).to.match(/out of service p no version persona rolled back by the system/);
    el.remove();
    await sys.dispose();
  });
});

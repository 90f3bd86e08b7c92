// The card of one agent-made upgrade, rendering the part's snapshot as a view delivers it;
// MadeUpgrades itself drives the same card in the end-to-end suites.
import { expect } from 'chai';
import { recordedView } from '../../test/helpers/recorded-view.ts';
import { until } from '../../test/helpers/until.ts';
import { $, $$, mount, report, settle, stateOf, text } from '../../test/helpers/widget-fixture.ts';
import { upgradeCardSnapshot } from './snapshot.ts';
import { applyStatus, initialStatus } from './status.ts';
import { MadeUpgradeWidget } from './upgrade-widget.ts';

describe('made-upgrade-widget', () => {
  it('renders what the upgrade reports as text only, follows its snapshots, and its buttons call its tools as the person', async () => {
    const view = recordedView();
    const hostile = '<img src=x onerror="window.__owned=1"><script>window.__owned=1</script>';
    let status = applyStatus(initialStatus(), { state: 'active', primary: '4 files', secondary: hostile, table: { columns: ['folder', 'files'], rows: [[hostile, 4]] }, log: [hostile, 'indexed'], buttons: [{ label: 'Summary', tool: 'notes_summary' }] }, ['notes_summary']);
    view.setStatus('upgrade:notes-index', upgradeCardSnapshot('notes-index', status));
    view.answer('notes_index.notes_summary', () => ({ total: 7 }));
    const el = new MadeUpgradeWidget();
    el.context = { view, moduleId: 'upgrade:notes-index', report: report('upgrade:notes-index', { parent: 'MadeUpgrades', widget: 'made-upgrade-widget', title: 'Notes index', version: 'v1', category: 'knowledge' }) };
    await mount(el);
    expect(stateOf(el)).to.equal('active');
    expect($(el, 'h3')!.textContent).to.equal('Notes index');
    expect(text(el)).to.contain('4 files');
    expect(text(el)).to.contain(hostile);
    expect(el.shadowRoot!.querySelector('img, script')).to.equal(null);
    expect((window as { __owned?: number }).__owned).to.equal(undefined);
    expect($$(el, 'table td').map((td) => td.textContent)).to.deep.equal([hostile, '4']);
    expect($$(el, 'ol.log li').map((li) => li.textContent)).to.deep.equal([hostile, 'indexed']);

    status = applyStatus(status, { primary: '5 files', log: '+ notes/new.md' }, ['notes_summary']);
    view.setStatus('upgrade:notes-index', upgradeCardSnapshot('notes-index', status));
    await settle(el);
    expect(text(el)).to.contain('5 files');
    expect($$(el, 'ol.log li').at(-1)!.textContent).to.equal('+ notes/new.md');

    $(el, 'button[data-control="button-0"]')!.click();
    await until('the answer', () => !!$(el, 'p.result'));
    expect(view.calls.map((c) => [c.name, c.args])).to.deep.equal([['notes_index.notes_summary', {}]]);
    expect($(el, 'p.result')!.textContent).to.contain('Summary: {"total":7}');
    el.remove();
  });

  it('shows a stopped upgrade as an error with the reason, and one not running as disabled', async () => {
    const el = new MadeUpgradeWidget();
    const view = recordedView();
    el.context = { view, moduleId: 'upgrade:notes-report', report: report('upgrade:notes-report', { state: 'failed', parent: 'MadeUpgrades', error: { code: 'UPGRADE_STOPPED', message: 'notes-report v1 stopped: it depends on notes-index, which stopped' } }) };
    await mount(el);
    expect(stateOf(el)).to.equal('error');
    expect(text(el)).to.contain('it depends on notes-index, which stopped');
    el.context = { ...el.context!, report: report('upgrade:notes-report', { parent: 'MadeUpgrades' }) };
    await settle(el);
    expect(stateOf(el)).to.equal('disabled');
    expect(text(el)).to.contain('not running');
    el.remove();
  });
});

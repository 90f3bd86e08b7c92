import { expect } from 'chai';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { ToolResult } from '../../src/kernel/tool-contract.ts';
import { $, $$, mount, report, settle, stateOf, text } from '../../test/helpers/widget-fixture.ts';
import type { MadeUpgradesApi } from './index.ts';
import { applyStatus, initialStatus, type UpgradeStatus } from './status.ts';
import { MadeUpgradeWidget } from './upgrade-widget.ts';

/** The widget's contract with MadeUpgrades, played by a stand-in (MadeUpgrades itself runs in the end-to-end suites). */
function fakeApi(status: { current: UpgradeStatus | undefined }, pressed: number[]): MadeUpgradesApi {
  return {
    live: () => [],
    status: () => status.current,
    press: async (_id, i): Promise<ToolResult> => (pressed.push(i), { ok: true, value: { total: 7 }, durationMs: 1 }),
    resources: () => ({ workers: 0, subscriptions: 0, scope: 0 }),
  };
}

describe('made-upgrade-widget', () => {
  it('renders what the upgrade reports as text only, follows its status events, and its buttons call its tools', async () => {
    const bus = createEventBus();
    const hostile = '<img src=x onerror="window.__owned=1"><script>window.__owned=1</script>';
    const status = { current: applyStatus(initialStatus(), { state: 'active', primary: '4 files', secondary: hostile, table: { columns: ['folder', 'files'], rows: [[hostile, 4]] }, log: [hostile, 'indexed'], buttons: [{ label: 'Summary', tool: 'notes_summary' }] }, ['notes_summary']) };
    const pressed: number[] = [];
    const el = new MadeUpgradeWidget();
    el.context = { bus, moduleId: 'upgrade:notes-index', api: fakeApi(status, pressed), report: report('upgrade:notes-index', { parent: 'MadeUpgrades', widget: 'made-upgrade-widget', title: 'Notes index', version: 'v1', category: 'knowledge' }) };
    await mount(el);
    expect(stateOf(el)).to.equal('active');
    expect($(el, 'h3')!.textContent).to.equal('Notes index');
    expect(text(el)).to.contain('4 files');
    expect(text(el)).to.contain(hostile);
    expect(el.shadowRoot!.querySelector('img, script')).to.equal(null);
    expect((window as { __owned?: number }).__owned).to.equal(undefined);
    expect($$(el, 'table td').map((td) => td.textContent)).to.deep.equal([hostile, '4']);
    expect($$(el, 'ol.log li').map((li) => li.textContent)).to.deep.equal([hostile, 'indexed']);

    status.current = applyStatus(status.current, { primary: '5 files', log: '+ notes/new.md' }, ['notes_summary']);
    bus.emit('made-upgrades:status', { id: 'notes-index', status: status.current });
    await settle(el);
    expect(text(el)).to.contain('5 files');
    expect($$(el, 'ol.log li').at(-1)!.textContent).to.equal('+ notes/new.md');

    $(el, 'button[data-control="button-0"]')!.click();
    await settle(el);
    await settle(el);
    expect(pressed).to.deep.equal([0]);
    expect($(el, 'p.result')!.textContent).to.contain('Summary: {"total":7}');
    el.remove();
  });

  it('shows a stopped upgrade as an error with the reason, and one not running as disabled', async () => {
    const el = new MadeUpgradeWidget();
    el.context = { bus: createEventBus(), moduleId: 'upgrade:notes-report', api: fakeApi({ current: undefined }, []), report: report('upgrade:notes-report', { state: 'failed', parent: 'MadeUpgrades', error: { code: 'UPGRADE_STOPPED', message: 'notes-report v1 stopped: it depends on notes-index, which stopped' } }) };
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

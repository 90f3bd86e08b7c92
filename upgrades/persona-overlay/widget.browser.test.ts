// The persona overlay's card in Chromium, over a stand-in API whose overlay the test sets and the
// bus the change path announces on: the real overlay drives it on the dashboard's end-to-end suite.
import { expect } from 'chai';
import type { ChangeRecord } from '../../src/contracts/change-contract.ts';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { $, mount, report, settle, stateOf } from '../../test/helpers/widget-fixture.ts';
import type { PersonaOverlayApi } from './index.ts';
import { PersonaOverlayWidget } from './widget.ts';

const activity = (el: Element) => $(el, '.activity')!.textContent!.replace(/\s+/g, ' ').trim();

describe('persona-overlay-widget', () => {
  it('says when the overlay came into force: now, or (brought back at boot) when its record says', async () => {
    const bus = createEventBus();
    let overlay: ReturnType<PersonaOverlayApi['overlay']>;
    const api = { overlay: () => overlay, upgrades: () => [], onChange: () => ({ dispose() {} }) } as unknown as PersonaOverlayApi;
    const el = new PersonaOverlayWidget();
    el.context = { bus, moduleId: 'PersonaOverlay', api, report: report('PersonaOverlay', { category: 'agent' }) };
    await mount(el);
    expect(stateOf(el)).to.equal('idle');
    expect(activity(el)).to.equal('Last activity: never');

    overlay = { persona: 'default', add_upgrades: ['notes-index'], add_tools: ['notes_index.*'], remove_tools: [], version: 1, change: 'c00000001', activatedAt: Date.now() };
    bus.emit('change:activated', { change: { id: 'c00000001', kind: 'persona', target: 'default', status: 'active' } as ChangeRecord });
    await settle(el);
    expect(stateOf(el)).to.equal('active');
    expect(activity(el)).to.equal('Last activity: just now');

    // A new page: the overlay came back at boot, an hour ago by its record, with no event since.
    const later = new PersonaOverlayWidget();
    overlay = { ...overlay, activatedAt: Date.now() - 3_600_000 };
    later.context = { bus: createEventBus(), moduleId: 'PersonaOverlay', api, report: report('PersonaOverlay', { category: 'agent' }) };
    await mount(later);
    expect(activity(later)).to.equal('Last activity: 1h ago');
    el.remove();
    later.remove();
  });
});

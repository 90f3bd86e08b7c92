import { expect } from 'chai';
import { boot, type ArmatureSystem } from '../../src/index.ts';
import { importUpgrade } from '../../src/kernel/boot/loader.ts';
import { createBrowserPlatform } from '../../src/platform/browser/browser.ts';
import { type ArmatureDashboard, COLLAPSED_KEY } from '../../src/widgets/dashboard.ts';
import { until } from '../helpers/until.ts';


async function mountDashboard(sys: ArmatureSystem): Promise<ArmatureDashboard> {
  const el = document.createElement('armature-dashboard') as ArmatureDashboard;
  el.system = sys;
  document.body.append(el);
  await until('the dashboard\'s categories', () => !!el.shadowRoot?.querySelector('section.category'));
  await el.updateComplete;
  return el;
}

describe('armature-dashboard', () => {
  let sys: ArmatureSystem;
  before(async () => {
    localStorage.removeItem(COLLAPSED_KEY);
    // Blueprints fails to import: the dashboard must show its error in its place.
    sys = await boot({
      platform: createBrowserPlatform({ dbPrefix: `dash-${Date.now()}` }),
      config: { PyodideRuntime: { autoStart: false } },
      importer: (entry) => (entry.includes('blueprints') ? Promise.reject(new Error('blueprints bundle is corrupt')) : importUpgrade(entry)),
    });
  });
  after(() => sys.dispose());

  it('lays out each loaded module widget by category and a failed module as its error', async () => {
    const el = await mountDashboard(sys);
    const sections = [...el.shadowRoot!.querySelectorAll('section.category')].map((s) => s.querySelector('h2')!.textContent);
    expect(sections).to.deep.equal(['agent', 'core', 'runtime', 'tools', 'storage', 'knowledge']);
    expect(el.shadowRoot!.querySelector('[data-module=PyodideRuntime] pyodide-runtime-widget')).to.not.equal(null);
    expect(el.shadowRoot!.querySelector('[data-module=PythonTool] python-tool-widget')).to.not.equal(null);
    expect(el.shadowRoot!.querySelector('[data-module=ToolRunner] tool-runner-widget')).to.not.equal(null);
    expect(el.shadowRoot!.querySelector('[data-module=Workspace] workspace-widget')).to.not.equal(null);
    const card = el.shadowRoot!.querySelector('[data-module=Blueprints] module-error-card')!;
    await (card as unknown as { updateComplete: Promise<void> }).updateComplete;
    expect(card.shadowRoot!.querySelector('[role=alert]')!.textContent).to.contain('blueprints bundle is corrupt');
    expect(card.shadowRoot!.querySelector('[role=status]')!.textContent).to.contain('error');
    el.remove();
  });

  it('collapses a card with a keyboard-operable button and remembers it across reloads', async () => {
    const el = await mountDashboard(sys);
    const toggle = el.shadowRoot!.querySelector<HTMLButtonElement>('[data-module=Workspace] button.toggle')!;
    expect(toggle.getAttribute('aria-expanded')).to.equal('true');
    toggle.focus();
    expect(el.shadowRoot!.activeElement).to.equal(toggle);
    toggle.click();
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[data-module=Workspace] workspace-widget')).to.equal(null);
    expect(JSON.parse(localStorage.getItem(COLLAPSED_KEY)!)).to.deep.equal(['Workspace']);
    el.remove();
    // A new dashboard (as after a reload) starts with the stored state.
    const again = await mountDashboard(sys);
    expect(again.shadowRoot!.querySelector('[data-module=Workspace] button.toggle')!.getAttribute('aria-expanded')).to.equal('false');
    again.shadowRoot!.querySelector<HTMLButtonElement>('[data-module=Workspace] button.toggle')!.click();
    await again.updateComplete;
    expect(JSON.parse(localStorage.getItem(COLLAPSED_KEY)!)).to.deep.equal([]);
    again.remove();
  });

  it('widgets follow live events and leave no listener behind when the dashboard goes', async () => {
    const before = sys.bus.listenerCount();
    const el = await mountDashboard(sys);
    expect(sys.bus.listenerCount()).to.be.greaterThan(before);
    await sys.tools.executeTool('write_file', { path: 'live.txt', content: 'x' });
    const ws = el.shadowRoot!.querySelector('workspace-widget')!;
    await until('live.txt in the workspace widget', () => (ws.shadowRoot!.textContent ?? '').includes('live.txt'));
    el.remove();
    expect(sys.bus.listenerCount()).to.equal(before);
  });
});

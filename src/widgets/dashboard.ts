import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import type { ModuleReport } from '../kernel/boot/loader.ts';
import type { SystemView } from '../view/system-view.ts';
import { ROOT_MODULES_PATH } from '../platform/browser/browser.ts';
import type { WidgetContext } from './module-widget.ts';
import { BusController } from './bus-controller.ts';
import { StatusController } from './status-controller.ts';
import './module-error-card.ts';
import './processes-card.ts';

/** Dashboard categories, in display order. */
const CATEGORIES = ['agent', 'core', 'runtime', 'tools', 'storage', 'knowledge'] as const;

/**
 * The cards people work in — the agent panel, the Python console — come first in their category
 * and take its full width; the category's other cards sit side by side below, so a long list on
 * one of them (the changes) never pushes the panel below the fold.
 */
const LEAD_WIDGETS = new Set(['agent-widget', 'python-tool-widget']);

/** localStorage key of the collapsed module ids. */
export const COLLAPSED_KEY = 'armature:dashboard:collapsed';

/** Imports the widget module of an upgrade folder; esbuild bundles every `upgrades/<folder>/widget.ts`. */
export async function importWidget(folder: string): Promise<void> {
  await import(`../../upgrades/${folder}/widget.ts`);
}

const TAG = /^[a-z][a-z0-9]*-[a-z0-9-]+$/;

/** The agent-made versions in force safe mode left out, as the Changes snapshot lists them. */
interface InForce {
  inForce?: { id: string; kind: string; target: string; version: number | null }[];
}

/**
 * `<armature-dashboard .view=${view}>`: lays out the modules' widgets of a system — booted in this
 * page or attached in another process, as a `SystemView` — in a responsive grid by category.
 * Each module's widget comes from its report (`widget` tag, `upgrades/<folder>/widget.ts`); a
 * module that failed shows its error in its place. Collapsed cards persist across reloads.
 */
export class ArmatureDashboard extends LitElement {
  static override properties = { view: { attribute: false }, collapsed: { state: true }, ready: { state: true } };
  static override styles = css`
    :host { display: block; font: 14px/1.4 system-ui, sans-serif; color: #1d2433; }
    .categories { display: grid; gap: 18px; grid-template-columns: repeat(auto-fill, minmax(min(100%, 400px), 1fr)); align-items: start; }
    section.category { min-width: 0; }
    h2 { font-size: 13px; text-transform: uppercase; letter-spacing: 0.06em; color: #4a5366; margin: 0 0 8px; }
    .grid { display: grid; gap: 12px; }
    section.category[data-wide] > .grid { grid-template-columns: repeat(auto-fill, minmax(min(100%, 420px), 1fr)); align-items: start; }
    .slot[data-lead] { grid-column: 1 / -1; }
    .slot { min-width: 0; }
    .categories > section.category[data-wide] { grid-column: 1 / -1; }
    .toggle { font: inherit; font-size: 12px; border: 1px solid #cdd3de; background: #f4f6fa; border-radius: 4px; padding: 2px 8px; cursor: pointer; margin-bottom: 4px; }
    .toggle:focus-visible { outline: 2px solid #1f4fa8; outline-offset: 2px; }
    .collapsed-note { font-size: 12px; color: #4a5366; }
    .processes { margin-bottom: 18px; }
    .safe { border: 1px solid #8a5a00; background: #fffaf0; border-radius: 8px; padding: 8px 12px; margin-bottom: 14px; }
    .safe ul { margin: 4px 0 0; padding-left: 18px; font-family: ui-monospace, monospace; font-size: 12px; }
  `;

  declare view: SystemView | undefined;
  declare collapsed: Set<string>;
  declare ready: boolean;
  private readonly elements = new Map<string, HTMLElement>();
  // Parts an upgrade runs (an MCP server, an agent-made upgrade) come, fail and go after boot:
  // re-render when they do, giving a part that has a widget of its own its card.
  private readonly parts = new BusController(this, () => this.view?.events, ['module:loaded', 'module:failed', 'module:disposed'], (r) => {
    const p = r.payload as { id: string; parent?: string };
    if (!p.parent || !this.view || !this.ready) return;
    if (r.type === 'module:disposed') this.elements.delete(p.id);
    else void this.ensurePartWidget(this.view, p.id);
    this.requestUpdate();
  });
  // Safe mode's review list is the Changes snapshot's: it follows it.
  private readonly changes = new StatusController<InForce>(this, () => (this.view?.persona.safe ? { view: this.view, moduleId: 'Changes' } : undefined));

  constructor() {
    super();
    this.collapsed = readCollapsed();
    this.ready = false;
  }

  protected override async willUpdate(changed: Map<PropertyKey, unknown>): Promise<void> {
    if (changed.has('view') && this.view) {
      this.parts.connect();
      this.changes.connect();
      await this.loadWidgets(this.view);
    }
  }

  private async loadWidgets(view: SystemView): Promise<void> {
    await Promise.all(view.modules().filter((m) => m.state === 'loaded' && m.widget).map((m) => this.loadWidget(view, m)));
    this.ready = true;
  }

  /**
   * The widget of module `m`: its upgrade's `widget.ts` (in the report's `folder`) defines the tag.
   * A part with a widget of its own (an agent-made upgrade's card) is defined by its upgrade's
   * `widget.ts` and renders the part's own snapshot.
   */
  private async loadWidget(view: SystemView, m: ModuleReport): Promise<void> {
    const owner = m.parent === undefined ? m : view.modules().find((x) => x.id === m.parent);
    const folder = m.folder ?? owner?.folder;
    // A root's upgrade (boot({ root })) brings its widget as a JavaScript module beside its entry.
    const widgetModule = m.widgetModule ?? owner?.widgetModule;
    const widgetFile = widgetModule ?? `upgrades/${folder}/widget.ts`;
    try {
      if (!TAG.test(m.widget!)) throw new Error(`widget tag ${JSON.stringify(m.widget)} is not a valid custom element name`);
      if (widgetModule !== undefined) {
        await import(/* @vite-ignore */ pageUrlOf(widgetModule));
      } else {
        if (!folder || !/^[a-z0-9-]+$/.test(folder)) throw new Error(`the report of ${m.id} names no upgrade folder (got ${JSON.stringify(folder)})`);
        await importWidget(folder);
      }
      if (!customElements.get(m.widget!)) throw new Error(`${widgetFile} did not define <${m.widget}>`);
      const el = document.createElement(m.widget!);
      (el as HTMLElement & { context: WidgetContext }).context = { view, moduleId: m.id, report: m };
      this.elements.set(m.id, el);
    } catch (e) {
      const card = document.createElement('module-error-card') as HTMLElement & { report: ModuleReport };
      card.report = { ...m, state: 'failed', error: { code: 'WIDGET_FAILED', message: `widget failed to load: ${(e as Error).message}` } };
      this.elements.set(m.id, card);
    }
  }

  /** Gives a part that came after boot, with a widget of its own, its element (once). */
  private async ensurePartWidget(view: SystemView, id: string): Promise<void> {
    const m = view.modules().find((x) => x.id === id);
    if (!m || m.state !== 'loaded' || !m.widget) return;
    const existing = this.elements.get(id);
    if (existing?.localName === m.widget) return;
    await this.loadWidget(view, m);
    this.requestUpdate();
  }

  private toggle(id: string): void {
    const next = new Set(this.collapsed);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    this.collapsed = next;
    try {
      localStorage.setItem(COLLAPSED_KEY, JSON.stringify([...next]));
    } catch {
      // Private mode or storage full: collapsing still works for this page.
    }
  }

  private renderModule(m: ModuleReport): TemplateResult {
    const collapsed = this.collapsed.has(m.id);
    const body =
      m.state === 'failed'
        ? html`<module-error-card .report=${m}></module-error-card>`
        : (this.elements.get(m.id) ?? html`<p class="collapsed-note">${m.id} has no widget.</p>`);
    return html`<div class="slot" data-module=${m.id} ?data-lead=${LEAD_WIDGETS.has(m.widget ?? '')}>
      <button type="button" class="toggle" aria-expanded=${collapsed ? 'false' : 'true'} aria-label="${collapsed ? 'Expand' : 'Collapse'} ${m.id}" @click=${() => this.toggle(m.id)}>
        ${collapsed ? '▸' : '▾'} ${m.id}
      </button>
      ${collapsed ? html`<div class="collapsed-note">${m.id}: ${m.state} (collapsed)</div>` : body}
    </div>`;
  }

  private renderSafeMode(): TemplateResult {
    const url = new URL(location.href);
    url.searchParams.delete('safe');
    const review = (this.changes.value?.inForce ?? []).map((r) => `${r.kind} ${r.target} v${r.version} (${r.id})`);
    return html`<section class="safe" role="note" aria-label="safe mode">
      <strong>Safe mode:</strong> only what the persona file in modules/ names is running; nothing an agent made was loaded.
      ${review.length
        ? html`Agent-made changes in force, for review (roll back or retire them on the Changes widget):<ul>${review.map((l) => html`<li>${l}</li>`)}</ul>`
        : html`No agent-made change is in force.`}
      <a href=${url.href}>Boot normally</a>
    </section>`;
  }

  override render(): TemplateResult | typeof nothing {
    const view = this.view;
    if (!view || !this.ready) return html`<p role="status">Loading widgets…</p>`;
    const modules = view.modules();
    // A system attached from Node shows the other processes on its data folder first.
    const processes = view.mode === 'attached' || view.processes().length > 0;
    return html`${view.persona.safe ? this.renderSafeMode() : nothing}${processes ? html`<div class="processes"><processes-card .view=${view}></processes-card></div>` : nothing}<div class="categories">${CATEGORIES.map((cat) => {
      // A part that runs shows in its upgrade's widget unless it has a widget of its own (an
      // agent-made upgrade); a failed one takes a card of its own.
      const mods = [...modules].sort((a, b) => Number(LEAD_WIDGETS.has(b.widget ?? '')) - Number(LEAD_WIDGETS.has(a.widget ?? ''))).filter((m) => m.category === cat && (!m.parent || m.state === 'failed' || (m.widget && this.elements.has(m.id))));
      if (!mods.length) return nothing;
      // The agent panel and the Python console (tools) are worked in: give them the full width.
      return html`<section class="category" ?data-wide=${cat === 'tools' || cat === 'agent'} aria-label="${cat} modules"><h2>${cat}</h2><div class="grid">${mods.map((m) => this.renderModule(m))}</div></section>`;
    })}</div>`;
  }
}

function readCollapsed(): Set<string> {
  try {
    const raw = JSON.parse(localStorage.getItem(COLLAPSED_KEY) ?? '[]');
    return new Set(Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}

if (!customElements.get('armature-dashboard')) customElements.define('armature-dashboard', ArmatureDashboard);

/**
 * Where the page imports a root's widget from: its URL as the system knows it, or — for a Node
 * system's (a `file:` URL of its root folder, when the page is attached) — the same file under
 * the root's upgrades the server serves (`armature start --root DIR`).
 */
function pageUrlOf(widgetModule: string): string {
  const url = new URL(widgetModule, location.href);
  if (url.protocol !== 'file:') return url.href;
  const at = url.pathname.lastIndexOf('/upgrades/');
  if (at < 0) throw new Error(`${widgetModule} is not under the root's upgrades/ folder`);
  return new URL(`${ROOT_MODULES_PATH}${url.pathname.slice(at + 1)}`, location.href).href;
}

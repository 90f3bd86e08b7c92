import { LitElement, css, html, nothing, type TemplateResult } from 'lit';
import type { ArmatureSystem } from '../kernel/boot/boot.ts';
import type { ModuleReport } from '../kernel/boot/loader.ts';
import type { WidgetContext } from './module-widget.ts';
import { BusController } from './bus-controller.ts';
import './module-error-card.ts';

/** Dashboard categories, in display order. */
const CATEGORIES = ['agent', 'core', 'runtime', 'tools', 'storage', 'knowledge'] as const;

/** localStorage key of the collapsed module ids. */
export const COLLAPSED_KEY = 'armature:dashboard:collapsed';

/** Imports the widget module of an upgrade folder; esbuild bundles every `upgrades/<folder>/widget.ts`. */
export async function importWidget(folder: string): Promise<void> {
  await import(`../../upgrades/${folder}/widget.ts`);
}

const TAG = /^[a-z][a-z0-9]*-[a-z0-9-]+$/;

/**
 * `<armature-dashboard>`: lays out the loaded modules' widgets in a responsive grid by category.
 * Each module's widget comes from its metadata (`widget` tag, `upgrades/<folder>/widget.ts`);
 * a module that failed shows its error in its place. Collapsed cards persist across reloads.
 */
export class ArmatureDashboard extends LitElement {
  static override properties = { system: { attribute: false }, collapsed: { state: true }, ready: { state: true } };
  static override styles = css`
    :host { display: block; font: 14px/1.4 system-ui, sans-serif; color: #1d2433; }
    .categories { display: grid; gap: 18px; grid-template-columns: repeat(auto-fill, minmax(min(100%, 400px), 1fr)); align-items: start; }
    section.category { min-width: 0; }
    h2 { font-size: 13px; text-transform: uppercase; letter-spacing: 0.06em; color: #4a5366; margin: 0 0 8px; }
    .grid { display: grid; gap: 12px; }
    .slot { min-width: 0; }
    .categories > section.category[data-wide] { grid-column: 1 / -1; }
    .toggle { font: inherit; font-size: 12px; border: 1px solid #cdd3de; background: #f4f6fa; border-radius: 4px; padding: 2px 8px; cursor: pointer; margin-bottom: 4px; }
    .toggle:focus-visible { outline: 2px solid #1f4fa8; outline-offset: 2px; }
    .collapsed-note { font-size: 12px; color: #4a5366; }
    .safe { border: 1px solid #8a5a00; background: #fffaf0; border-radius: 8px; padding: 8px 12px; margin-bottom: 14px; }
    .safe ul { margin: 4px 0 0; padding-left: 18px; font-family: ui-monospace, monospace; font-size: 12px; }
  `;

  declare system: ArmatureSystem | undefined;
  declare collapsed: Set<string>;
  declare ready: boolean;
  /** In safe mode: the agent-made changes in force that were not loaded, for a person to review. */
  private reviewList: string[] = [];
  private readonly elements = new Map<string, HTMLElement>();
  // Parts an upgrade runs (an MCP server, an agent-made upgrade) come, fail and go after boot:
  // re-render when they do, giving a part that has a widget of its own its card.
  private readonly parts = new BusController(this, () => this.system?.bus, ['module:loaded', 'module:failed', 'module:disposed'], (r) => {
    const p = r.payload as { id: string; parent?: string };
    if (!p.parent || !this.system || !this.ready) return;
    if (r.type === 'module:disposed') this.elements.delete(p.id);
    else void this.ensurePartWidget(this.system, p.id);
    this.requestUpdate();
  });

  constructor() {
    super();
    this.collapsed = readCollapsed();
    this.ready = false;
  }

  protected override async willUpdate(changed: Map<PropertyKey, unknown>): Promise<void> {
    if (changed.has('system') && this.system) {
      this.parts.connect();
      await this.loadWidgets(this.system);
    }
  }

  private async loadWidgets(sys: ArmatureSystem): Promise<void> {
    await Promise.all(sys.modules.filter((m) => m.state === 'loaded' && m.widget).map((m) => this.loadWidget(sys, m)));
    if (sys.safe) this.reviewList = await safeModeReview(sys);
    this.ready = true;
  }

  /**
   * The widget of module `m`: its upgrade's `widget.ts` defines the tag. A part with a widget of
   * its own (an agent-made upgrade's card) is defined by its upgrade's `widget.ts` and handed that
   * upgrade's API.
   */
  private async loadWidget(sys: ArmatureSystem, m: ModuleReport): Promise<void> {
    const owner = m.parent ?? m.id;
    const entry = sys.manifests.upgrades.get(owner)!;
    const folder = /^upgrades\/([a-z0-9-]+)\//.exec(entry.entry)![1]!;
    // A root's upgrade (armature start --root DIR) brings its widget as a JavaScript module beside its entry.
    const widgetFile = entry.base === undefined ? `upgrades/${folder}/widget.ts` : entry.entry.replace(/index(\.m?js|\.ts)$/, 'widget$1').replace(/\.ts$/, '.js');
    try {
      if (!TAG.test(m.widget!)) throw new Error(`widget tag ${JSON.stringify(m.widget)} is not a valid custom element name`);
      if (entry.base === undefined) await importWidget(folder);
      else await import(/* @vite-ignore */ new URL(widgetFile, entry.base).href);
      if (!customElements.get(m.widget!)) throw new Error(`${widgetFile} did not define <${m.widget}>`);
      const el = document.createElement(m.widget!);
      (el as HTMLElement & { context: WidgetContext }).context = { bus: sys.bus, moduleId: m.id, api: await sys.resolve(owner), report: m };
      this.elements.set(m.id, el);
    } catch (e) {
      const card = document.createElement('module-error-card') as HTMLElement & { report: ModuleReport };
      card.report = { ...m, state: 'failed', error: { code: 'WIDGET_FAILED', message: `widget failed to load: ${(e as Error).message}` } };
      this.elements.set(m.id, card);
    }
  }

  /** Gives a part that came after boot, with a widget of its own, its element (once). */
  private async ensurePartWidget(sys: ArmatureSystem, id: string): Promise<void> {
    const m = sys.modules.find((x) => x.id === id);
    if (!m || m.state !== 'loaded' || !m.widget) return;
    const existing = this.elements.get(id);
    if (existing?.localName === m.widget) return;
    await this.loadWidget(sys, m);
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
    return html`<div class="slot" data-module=${m.id}>
      <button type="button" class="toggle" aria-expanded=${collapsed ? 'false' : 'true'} aria-label="${collapsed ? 'Expand' : 'Collapse'} ${m.id}" @click=${() => this.toggle(m.id)}>
        ${collapsed ? '▸' : '▾'} ${m.id}
      </button>
      ${collapsed ? html`<div class="collapsed-note">${m.id}: ${m.state} (collapsed)</div>` : body}
    </div>`;
  }

  private renderSafeMode(): TemplateResult {
    const url = new URL(location.href);
    url.searchParams.delete('safe');
    return html`<section class="safe" role="note" aria-label="safe mode">
      <strong>Safe mode:</strong> only what the persona file in modules/ names is running; nothing an agent made was loaded.
      ${this.reviewList.length
        ? html`Agent-made changes in force, for review (roll back or retire them on the Changes widget):<ul>${this.reviewList.map((l) => html`<li>${l}</li>`)}</ul>`
        : html`No agent-made change is in force.`}
      <a href=${url.href}>Boot normally</a>
    </section>`;
  }

  override render(): TemplateResult | typeof nothing {
    const sys = this.system;
    if (!sys || !this.ready) return html`<p role="status">Loading widgets…</p>`;
    return html`${sys.safe ? this.renderSafeMode() : nothing}<div class="categories">${CATEGORIES.map((cat) => {
      // A part that runs shows in its upgrade's widget unless it has a widget of its own (an
      // agent-made upgrade); a failed one takes a card of its own.
      const mods = sys.modules.filter((m) => m.category === cat && (!m.parent || m.state === 'failed' || (m.widget && this.elements.has(m.id))));
      if (!mods.length) return nothing;
      // The agent panel and the Python console (tools) are worked in: give them the full width.
      return html`<section class="category" ?data-wide=${cat === 'tools' || cat === 'agent'} aria-label="${cat} modules"><h2>${cat}</h2><div class="grid">${mods.map((m) => this.renderModule(m))}</div></section>`;
    })}</div>`;
  }
}

/** The agent-made changes in force that safe mode did not load, one line each. */
async function safeModeReview(sys: ArmatureSystem): Promise<string[]> {
  if (!sys.modules.some((m) => m.id === 'Changes' && m.state === 'loaded')) return [];
  const changes = await sys.resolve<{ list(f: { status: 'active' }): { id: string; kind: string; target: string; version: number | null }[] }>('Changes');
  return changes.list({ status: 'active' }).filter((r) => r.version !== null).map((r) => `${r.kind} ${r.target} v${r.version} (${r.id})`);
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

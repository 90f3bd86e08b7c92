import { LitElement, html, nothing, type TemplateResult } from 'lit';
import type { ModuleReport } from '../kernel/boot/loader.ts';
import { widgetStyles } from './module-widget.ts';

/** Shown in place of a module's widget when the module (or its widget) failed to load. */
export class ModuleErrorCard extends LitElement {
  static override styles = widgetStyles;
  static override properties = { report: { attribute: false } };
  declare report: ModuleReport | undefined;

  override render(): TemplateResult | typeof nothing {
    const r = this.report;
    if (!r) return nothing;
    return html`<section class="card" aria-label="${r.id} failed">
      <header><h3>${r.id}</h3><span class="state state-error" role="status" aria-label="state: error">✖ error</span></header>
      <p class="message" role="alert">${r.error?.message ?? 'failed to load'}</p>
      ${r.rootCause ? html`<p class="secondary">Root cause: ${r.rootCause} failed to load.</p>` : nothing}
      <p class="secondary">Error code ${r.error?.code ?? 'unknown'} · after ${r.durationMs.toFixed(0)} ms</p>
    </section>`;
  }
}

if (!customElements.get('module-error-card')) customElements.define('module-error-card', ModuleErrorCard);

import { LitElement, css, html, nothing, type CSSResultGroup, type TemplateResult } from 'lit';
import type { EventBus } from '../kernel/event-bus.ts';
import type { ModuleReport } from '../kernel/boot/loader.ts';
import { RelativeTimeController, formatRelative } from './relative-time.ts';

/** States a widget can show; each has an icon and a word, never colour alone. */
export type WidgetState = 'loading' | 'idle' | 'active' | 'warning' | 'error' | 'disabled';

/** `count` and `noun`, plural unless the count is 1: `1 call`, `0 calls`, `2 calls`. */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}

/** What every module widget reports about its module. */
export interface WidgetStatus {
  state: WidgetState;
  primaryMetric: string;
  secondaryMetric: string;
  /** ms since the epoch of the last thing that happened, if anything did. */
  lastActivity?: number;
  message?: string;
}

/** A button a widget offers. */
export interface WidgetControl {
  id: string;
  label: string;
  action(): void | Promise<void>;
  /** Default: false. */
  disabled?: boolean;
}

/** What the dashboard hands each widget. */
export interface WidgetContext<Api = unknown> {
  bus: EventBus;
  moduleId: string;
  /** The module's API (undefined when it failed to load). */
  api: Api | undefined;
  report: ModuleReport;
  /** The name on the card. Default: `report.title`, else `moduleId`. */
  title?: string;
}

const STATE_ICONS: Record<WidgetState, string> = {
  loading: '◌',
  idle: '○',
  active: '●',
  warning: '▲',
  error: '✖',
  disabled: '–',
};

/** Styles shared by every widget's shadow root. */
export const widgetStyles = css`
  :host { display: block; font: 14px/1.4 system-ui, sans-serif; color: #1d2433; }
  .card { border: 1px solid #cdd3de; border-radius: 8px; padding: 12px 14px; background: #fff; }
  header { display: flex; justify-content: space-between; align-items: baseline; gap: 8px; }
  h3 { margin: 0; font-size: 15px; }
  .state { font-size: 12px; font-weight: 600; padding: 1px 8px; border-radius: 10px; border: 1px solid currentColor; white-space: nowrap; }
  .state-idle { color: #445; } .state-active { color: #0a6b2f; } .state-loading { color: #1f4fa8; }
  .state-warning { color: #8a5a00; } .state-error { color: #a61b1b; } .state-disabled { color: #666; }
  .metrics { display: flex; gap: 12px; margin: 8px 0 2px; }
  .primary { font-size: 18px; font-weight: 600; }
  .secondary, .activity { color: #4a5366; font-size: 12px; align-self: end; }
  .message { margin: 6px 0; padding: 6px 8px; border-radius: 4px; background: #fdf1f1; color: #7d1111; white-space: pre-wrap; word-break: break-word; }
  .controls { display: flex; gap: 6px; margin-top: 8px; flex-wrap: wrap; }
  button { font: inherit; font-size: 13px; padding: 3px 10px; border-radius: 4px; border: 1px solid #8a93a6; background: #f4f6fa; cursor: pointer; }
  button:focus-visible, [tabindex]:focus-visible, summary:focus-visible { outline: 2px solid #1f4fa8; outline-offset: 2px; }
  button:disabled { opacity: 0.5; cursor: default; }
  table { border-collapse: collapse; width: 100%; font-size: 12px; margin-top: 8px; }
  th, td { text-align: left; padding: 2px 6px 2px 0; border-bottom: 1px solid #eceff4; vertical-align: top; }
  th { color: #4a5366; font-weight: 600; }
  .num { text-align: right; font-variant-numeric: tabular-nums; }
  .ok { color: #0a6b2f; } .fail { color: #a61b1b; }
  .body { margin-top: 6px; }
  .empty { color: #6b7385; font-size: 12px; margin: 6px 0; }
  pre { background: #f6f8fb; padding: 8px; border-radius: 4px; overflow: auto; max-height: 320px; white-space: pre-wrap; font-size: 12px; }
`;

/**
 * Base class of every module widget. Subclasses implement `getStatus()`, optionally
 * `getControls()` and `renderBody()`, and take their data from bus events through a
 * `BusController`. Widgets render state; they hold no business logic.
 */
export abstract class ModuleWidget<Api = unknown> extends LitElement {
  static override styles: CSSResultGroup = widgetStyles;
  static override properties = { context: { attribute: false } };

  /** Set by the dashboard (or a test) before or after connecting. */
  declare context: WidgetContext<Api> | undefined;

  protected readonly clock = new RelativeTimeController(this);

  /** The widget's status contract. */
  abstract getStatus(): WidgetStatus;

  /** Buttons this widget offers. Default: none. */
  getControls(): WidgetControl[] {
    return [];
  }

  /** Widget-specific content under the status line. Default: nothing. */
  protected renderBody(): TemplateResult | typeof nothing {
    return nothing;
  }

  /** The bus, once the context is set. */
  protected get bus(): EventBus | undefined {
    return this.context?.bus;
  }

  /** The context `widget:mounted` was emitted for, until `widget:unmounted`. */
  private announced: WidgetContext<Api> | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    this.announce();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.unannounce();
  }

  protected override willUpdate(changed: Map<PropertyKey, unknown>): void {
    // Controllers subscribe on connect; a context that arrives later connects them now.
    if (changed.has('context')) {
      this.onContext();
      this.announce();
    }
  }

  /** `widget:mounted` once the widget is both attached and given a context, in either order. */
  private announce(): void {
    if (!this.isConnected || !this.context || this.announced === this.context) return;
    this.unannounce();
    this.announced = this.context;
    this.context.bus.emit('widget:mounted', { module: this.context.moduleId, tag: this.localName });
  }

  private unannounce(): void {
    const was = this.announced;
    this.announced = undefined;
    if (was) was.bus.emit('widget:unmounted', { module: was.moduleId, tag: this.localName });
  }

  /** Called when the context is set or replaced. */
  protected onContext(): void {}

  private async runControl(c: WidgetControl): Promise<void> {
    if (this.context) this.context.bus.emit('widget:action', { module: this.context.moduleId, action: c.id });
    await c.action();
    this.requestUpdate();
  }

  override render(): TemplateResult {
    const s = this.getStatus();
    const id = this.context?.moduleId ?? this.localName;
    const title = this.context?.title ?? this.context?.report.title ?? id;
    return html`<section class="card" aria-label="${id} widget">
      <header>
        <h3 title=${title === id ? nothing : id}>${title}</h3>
        <span class="state state-${s.state}" role="status" aria-label="state: ${s.state}">${STATE_ICONS[s.state]} ${s.state}</span>
      </header>
      <div class="metrics"><span class="primary">${s.primaryMetric}</span><span class="secondary">${s.secondaryMetric}</span></div>
      <div class="activity">Last activity: <time datetime=${s.lastActivity ? new Date(s.lastActivity).toISOString() : nothing}>${formatRelative(s.lastActivity)}</time></div>
      ${s.message ? html`<p class="message" role=${s.state === 'error' ? 'alert' : nothing}>${s.message}</p>` : nothing}
      ${this.renderControls()}
      <div class="body">${this.renderBody()}</div>
    </section>`;
  }

  private renderControls(): TemplateResult | typeof nothing {
    const controls = this.getControls();
    if (!controls.length) return nothing;
    return html`<div class="controls">
      ${controls.map((c) => html`<button type="button" data-control=${c.id} ?disabled=${c.disabled ?? false} @click=${() => this.runControl(c)}>${c.label}</button>`)}
    </div>`;
  }
}

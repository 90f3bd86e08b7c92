import { html, nothing } from 'lit';
import type { EventRecord } from '../../src/kernel/event-bus.ts';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { counted, ModuleWidget, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import { metadata } from './index.ts';
import type { ToolRunnerSnapshot } from './snapshot.ts';

interface Call {
  callId: string;
  name: string;
  caller: string;
  ok?: boolean;
  durationMs?: number;
  error?: string;
  at: number;
}

/** How many recent calls the widget lists. */
const RECENT = 15;

/**
 * ToolRunner widget: recent calls (tool, duration, ok or error, from Python or not) from the tool
 * events, and the totals and per-tool statistics of the ToolRunner's snapshot.
 */
export class ToolRunnerWidget extends ModuleWidget<ToolRunnerSnapshot> {
  private calls: Call[] = [];
  private readonly events = new BusController(this, () => this.feed, ['tool:started', 'tool:finished'], (r) => this.onEvent(r));

  protected override onContext(): void {
    this.events.connect();
  }

  private onEvent(r: EventRecord<'tool:started' | 'tool:finished'>): void {
    if (r.type === 'tool:started') {
      const p = r.payload as EventRecord<'tool:started'>['payload'];
      this.calls = [{ callId: p.callId, name: p.name, caller: p.caller, at: r.at }, ...this.calls].slice(0, RECENT);
    } else {
      const p = r.payload as EventRecord<'tool:finished'>['payload'];
      const done = { ok: p.ok, durationMs: p.durationMs, error: p.error?.message, at: r.at };
      const i = this.calls.findIndex((c) => c.callId === p.callId);
      if (i >= 0) this.calls[i] = { ...this.calls[i]!, ...done };
      else this.calls = [{ callId: p.callId, name: p.name, caller: p.caller, ...done }, ...this.calls].slice(0, RECENT);
    }
  }

  getStatus(): WidgetStatus {
    const calls = this.snapshot?.calls ?? 0;
    const errors = this.snapshot?.errors ?? 0;
    const tools = this.snapshot?.tools ?? 0;
    const running = this.calls.filter((c) => c.ok === undefined).length;
    const last = this.calls[0];
    const state = running ? 'active' : last && last.ok === false ? 'warning' : 'idle';
    return {
      state,
      primaryMetric: counted(calls, 'call'),
      secondaryMetric: `${counted(errors, 'error')} · ${counted(tools, 'tool')}${running ? ` · ${running} running` : ''}`,
      lastActivity: last?.at,
      message: last && last.ok === false ? `${last.name} failed: ${last.error}` : undefined,
    };
  }

  protected override renderBody() {
    const stats = this.snapshot?.stats ?? [];
    const more = this.snapshot?.moreStats ?? 0;
    return html`
      ${this.calls.length
        ? html`<table aria-label="recent tool calls">
            <thead><tr><th>tool</th><th>from</th><th class="num">ms</th><th>result</th></tr></thead>
            <tbody>${this.calls.map(
              (c) => html`<tr>
                <td>${c.name}</td>
                <td>${c.caller === 'python' ? 'Python' : c.caller}</td>
                <td class="num">${c.durationMs === undefined ? '…' : c.durationMs.toFixed(1)}</td>
                <td class=${c.ok === undefined ? '' : c.ok ? 'ok' : 'fail'}>${c.ok === undefined ? 'running' : c.ok ? '✓ ok' : html`✖ ${c.error}`}</td>
              </tr>`,
            )}</tbody>
          </table>`
        : html`<p class="empty">No tool calls yet.</p>`}
      ${stats.length
        ? html`<table aria-label="per-tool statistics">
            <thead><tr><th>tool</th><th class="num">calls</th><th class="num">errors</th><th class="num">mean ms</th><th class="num">p95 ms</th></tr></thead>
            <tbody>${stats.map(
              (s) => html`<tr><td>${s.name}</td><td class="num">${s.calls}</td><td class="num">${s.errors}</td><td class="num">${s.meanMs.toFixed(1)}</td><td class="num">${s.p95Ms.toFixed(1)}</td></tr>`,
            )}</tbody>
          </table>${more ? html`<p class="empty">${counted(more, 'less called tool')} not shown.</p>` : nothing}`
        : nothing}
    `;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, ToolRunnerWidget);

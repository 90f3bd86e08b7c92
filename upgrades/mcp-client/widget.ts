import { html, nothing } from 'lit';
import { BusController } from '../../src/widgets/bus-controller.ts';
import { counted, ModuleWidget, widgetStyles, type WidgetStatus } from '../../src/widgets/module-widget.ts';
import type { ElicitationAnswer, ElicitationRequest } from '../../src/contracts/mcp-client-contract.ts';
import { elicitationForm, elicitationStyles, readAnswer } from './elicitation-form.ts';
import { metadata } from './index.ts';
import type { McpServerStatus } from './server-connection.ts';
import type { McpClientSnapshot } from './snapshot.ts';

const STATE_ICONS: Record<McpServerStatus['state'], string> = { starting: '◌', ready: '●', failed: '✖', stopped: '–' };

/**
 * McpClient widget: each MCP server with its state (icon and word), namespace, tools, calls and
 * command or URL, from the McpClient snapshot; a failed server shows its error and what to do,
 * and every server a Restart (`restart_mcp_server`). It is also the person's side of elicitation,
 * on the page's own system and attached alike: the requests waiting (the snapshot's
 * `elicitations`) show as forms (`elicitation-form.ts`) to send, decline or cancel, answered with
 * the person-only tool `answer_elicitation`; one that is answered, times out or is withdrawn leaves
 * the snapshot, and its form goes.
 */
export class McpClientWidget extends ModuleWidget<McpClientSnapshot> {
  static override styles = [widgetStyles, elicitationStyles];
  static override properties = { ...ModuleWidget.properties, restarting: { state: true }, errors: { state: true } };
  declare restarting: string | undefined;
  /** What is wrong with a form's answer (a field, or the system's refusal), by request id. */
  declare errors: Record<string, string>;
  /** Requests answered from this page, hidden until the snapshot drops them. */
  private readonly answered = new Set<string>();
  private lastChange: number | undefined;
  // Server states arrive as module events of the McpClient's parts; calls as tool events.
  private readonly events = new BusController(this, () => this.feed, ['module:loading', 'module:loaded', 'module:failed', 'tool:finished', 'tool:registered', 'tool:unregistered'], (r) => {
    const p = r.payload as { parent?: string; module?: string; name?: string };
    if (p.parent === 'McpClient' || p.module === 'McpClient' || p.name?.includes('.')) this.lastChange = r.at;
  });

  constructor() {
    super();
    this.errors = {};
  }

  protected override onContext(): void {
    this.events.connect();
  }

  /** The requests waiting for the person, but those answered here already. */
  private asking(): ElicitationRequest[] {
    return (this.snapshot?.elicitations ?? []).filter((r) => !this.answered.has(r.id));
  }

  private async answer(request: ElicitationRequest, action: 'accept' | 'decline' | 'cancel', form: HTMLFormElement): Promise<void> {
    let answer: ElicitationAnswer = { action } as ElicitationAnswer;
    if (action === 'accept') {
      const read = readAnswer(request, form);
      if ('error' in read) {
        this.errors = { ...this.errors, [request.id]: read.error };
        return;
      }
      answer = read.answer;
    }
    this.answered.add(request.id);
    const { [request.id]: _gone, ...rest } = this.errors;
    this.errors = rest;
    const r = await this.call('answer_elicitation', { id: request.id, ...answer });
    if (!r.ok) {
      // Not taken (it timed out meanwhile): say so while the snapshot still lists it.
      this.answered.delete(request.id);
      this.errors = { ...this.errors, [request.id]: r.error.message };
    }
  }

  private servers(): McpServerStatus[] {
    return this.snapshot?.servers ?? [];
  }

  getStatus(): WidgetStatus {
    const servers = this.servers();
    const ready = servers.filter((s) => s.state === 'ready').length;
    const failed = servers.filter((s) => s.state === 'failed');
    const tools = servers.reduce((n, s) => n + s.tools.length, 0);
    const calls = servers.reduce((n, s) => n + s.calls, 0);
    const state = !servers.length ? 'idle' : servers.some((s) => s.state === 'starting') ? 'loading' : failed.length === servers.length ? 'error' : failed.length ? 'warning' : 'active';
    return {
      state,
      primaryMetric: servers.length ? `${ready} of ${counted(servers.length, 'server')} ready` : 'No MCP servers',
      secondaryMetric: `${counted(tools, 'tool')} · ${counted(calls, 'call')}`,
      lastActivity: this.lastChange,
      message: failed.length ? `${failed[0]!.name}: ${failed[0]!.error?.message ?? 'failed'}` : undefined,
    };
  }

  private async restart(name: string): Promise<void> {
    if (!this.context || this.restarting) return;
    this.context.view.emitLocal('widget:action', { module: this.context.moduleId, action: `restart:${name}` });
    this.restarting = name;
    try {
      await this.call('restart_mcp_server', { name });
    } finally {
      this.restarting = undefined;
    }
  }

  protected override renderBody() {
    const asked = this.asking().map((r) => elicitationForm(r, this.errors[r.id], (action, form) => void this.answer(r, action, form)));
    return html`${asked}${this.renderServers()}`;
  }

  private renderServers() {
    const servers = this.servers();
    if (!servers.length) {
      return html`<p class="empty">No MCP servers. Add <code>mcpServers</code> to the persona, or pass <code>--mcp-config FILE</code> on the command line.</p>`;
    }
    return html`<table aria-label="MCP servers">
      <thead><tr><th>server</th><th>state</th><th class="num">tools</th><th class="num">calls</th><th></th></tr></thead>
      <tbody>${servers.map(
        (s) => html`<tr data-server=${s.name}>
            <td><strong>${s.name}</strong>${s.instance ? html` <span title="instance of ${s.namespace}">(${s.namespace} instance)</span>` : s.namespace !== s.name ? html` <span>(${s.namespace})</span>` : nothing}
              <div class="secondary">${s.transport}: ${s.target}${s.server ? ` · ${s.server.name} ${s.server.version}` : ''}</div></td>
            <td class=${s.state === 'ready' ? 'ok' : s.state === 'failed' ? 'fail' : ''} aria-label="state: ${s.state}">${STATE_ICONS[s.state]} ${s.state}</td>
            <td class="num">${s.tools.length ? html`<details><summary>${s.tools.length}</summary>${s.tools.map((t) => html`<div>${t}</div>`)}</details>` : '0'}</td>
            <td class="num">${s.calls}${s.errors ? ` (${s.errors} failed)` : ''}</td>
            <td><button type="button" data-control="restart" ?disabled=${this.restarting !== undefined} @click=${() => this.restart(s.name)}>${this.restarting === s.name ? 'Restarting…' : 'Restart'}</button></td>
          </tr>
          ${s.state === 'failed' && s.error
            ? html`<tr><td colspan="5"><p class="message" role="alert">${s.error.message}${s.hint ? html`<br />${s.hint}` : nothing}</p></td></tr>`
            : nothing}
          ${s.skipped.length ? html`<tr><td colspan="5" class="secondary">Not registered: ${s.skipped.map((k) => `${k.name} (${k.reason})`).join('; ')}</td></tr>` : nothing}`,
      )}</tbody>
    </table>`;
  }
}

if (metadata.widget && !customElements.get(metadata.widget)) customElements.define(metadata.widget, McpClientWidget);

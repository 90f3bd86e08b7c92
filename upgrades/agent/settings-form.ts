import { LitElement, css, html, nothing } from 'lit';
import { widgetStyles } from '../../src/widgets/module-widget.ts';
import { PROVIDERS, type AgentApi, type AgentSettings, type ProviderName } from '../../src/contracts/agent-contract.ts';

/** Example base URLs offered for a local OpenAI-compatible server. */
export const LOCAL_SERVERS = [
  { name: 'Ollama', url: 'http://127.0.0.1:11434/v1', model: 'qwen2.5' },
  { name: 'llama.cpp', url: 'http://127.0.0.1:8080/v1', model: 'local' },
  { name: 'LM Studio', url: 'http://127.0.0.1:1234/v1', model: 'local' },
];

const MODEL_HINTS: Record<ProviderName, string> = {
  'openai-compatible': 'qwen2.5',
  openai: 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-5',
  google: 'gemini-2.5-flash',
  replay: 'examples/sum-files',
};

/**
 * `<agent-settings>`: provider, model, base URL and key. The key goes to the agent's key source
 * (this browser's localStorage), never into the workspace; the form says so.
 */
export class AgentSettingsForm extends LitElement {
  static override properties = { agent: { attribute: false }, settings: { state: true }, provider: { state: true }, message: { state: true } };
  static override styles = [
    widgetStyles,
    css`
      :host { display: block; }
      form { display: grid; grid-template-columns: max-content 1fr; gap: 4px 8px; align-items: center; font-size: 13px; }
      label { color: #4a5366; }
      input, select { font: inherit; padding: 3px 6px; border: 1px solid #8a93a6; border-radius: 4px; min-width: 0; }
      input:focus-visible, select:focus-visible { outline: 2px solid #1f4fa8; outline-offset: 1px; }
      .row { grid-column: 1 / -1; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
      .note { grid-column: 1 / -1; font-size: 12px; color: #4a5366; margin: 0; }
      .help { font-size: 12px; color: #1d2433; background: #f4f6fa; border-radius: 4px; padding: 6px 8px; margin: 0 0 6px; }
      .help code { font-size: 11px; }
      .saved { color: #0a6b2f; font-size: 12px; }
      .problem { color: #a61b1b; font-size: 12px; }
    `,
  ];

  declare agent: AgentApi | undefined;
  declare settings: AgentSettings | undefined;
  declare provider: ProviderName;
  declare message: { ok: boolean; text: string } | undefined;

  constructor() {
    super();
    this.provider = 'openai-compatible';
  }

  protected override willUpdate(changed: Map<PropertyKey, unknown>): void {
    if (changed.has('agent') && this.agent) {
      this.settings = this.agent.getSettings();
      this.provider = this.settings.model?.provider ?? 'openai-compatible';
    }
  }

  private field(name: string): HTMLInputElement | null {
    return this.renderRoot.querySelector(`[name=${name}]`);
  }

  private save(e: Event): void {
    e.preventDefault();
    if (!this.agent) return;
    const model = this.field('model')?.value.trim() ?? '';
    const baseURL = this.field('baseURL')?.value.trim() ?? '';
    const key = this.field('apiKey')?.value ?? '';
    try {
      this.agent.saveSettings({ model: { provider: this.provider, model, ...(baseURL ? { baseURL } : {}) }, ...(key ? { apiKey: key } : {}) });
      const keyInput = this.field('apiKey');
      if (keyInput) keyInput.value = '';
      this.settings = this.agent.getSettings();
      this.message = { ok: true, text: 'Saved.' };
    } catch (err) {
      const hint = (err as { hint?: string }).hint;
      this.message = { ok: false, text: `${(err as Error).message}${hint ? ` ${hint}` : ''}` };
    }
  }

  private forgetKey(): void {
    if (!this.agent) return;
    this.agent.saveSettings({ apiKey: '', ...(this.settings?.model ? {} : { model: { provider: this.provider, model: this.field('model')?.value.trim() || MODEL_HINTS[this.provider] } }) });
    this.settings = this.agent.getSettings();
    this.message = { ok: true, text: 'Key forgotten.' };
  }

  private useLocal(url: string, model: string): void {
    this.provider = 'openai-compatible';
    void this.updateComplete.then(() => {
      const base = this.field('baseURL');
      const m = this.field('model');
      if (base) base.value = url;
      if (m && !m.value) m.value = model;
    });
  }

  override render() {
    const s = this.settings;
    const m = s?.model?.provider === this.provider ? s.model : undefined;
    const local = this.provider === 'openai-compatible';
    return html`
      ${s && s.source === 'none'
        ? html`<p class="help" data-help="first-run">
            No model yet. <strong>A local server</strong> (no key): start Ollama (<code>ollama serve</code>, then
            <code>ollama pull qwen2.5</code>) or llama.cpp (<code>llama-server -m model.gguf</code>), then choose
            ${LOCAL_SERVERS.map((l, i) => html`${i ? ', ' : ''}<button type="button" data-local=${l.name} @click=${() => this.useLocal(l.url, l.model)}>${l.name}</button>`)}
            and Save. <strong>A hosted model</strong>: choose OpenAI, Anthropic or Google and paste your key.
          </p>`
        : nothing}
      <form @submit=${this.save} aria-label="model settings">
        <label for="provider">Provider</label>
        <select id="provider" name="provider" .value=${this.provider} @change=${(e: Event) => (this.provider = (e.target as HTMLSelectElement).value as ProviderName)}>
          ${PROVIDERS.map((p) => html`<option value=${p} ?selected=${p === this.provider}>${p}</option>`)}
        </select>
        <label for="model">Model</label>
        <input id="model" name="model" required .value=${m?.model ?? ''} placeholder=${MODEL_HINTS[this.provider]} autocomplete="off" />
        <label for="baseURL">Base URL</label>
        <input id="baseURL" name="baseURL" ?required=${local} .value=${m?.baseURL ?? ''} placeholder=${local ? 'http://127.0.0.1:11434/v1' : 'default (the provider\'s API)'} autocomplete="off" />
        <label for="apiKey">API key</label>
        <input id="apiKey" name="apiKey" type="password" autocomplete="off" placeholder=${s?.hasKey && m ? '•••••• (a key is saved)' : local ? 'none needed for a local server' : this.provider === 'replay' ? 'none needed: a replay plays a recording back' : 'paste your key'} />
        <p class="note">The key is stored in this browser only (localStorage) and sent only to the provider; it never goes into the workspace, a transcript or an event.</p>
        <div class="row">
          <button type="submit" data-control="save-settings">Save</button>
          ${s?.hasKey && m ? html`<button type="button" data-control="forget-key" @click=${() => this.forgetKey()}>Forget key</button>` : nothing}
          ${this.message ? html`<span class=${this.message.ok ? 'saved' : 'problem'} role="status">${this.message.text}</span>` : nothing}
        </div>
      </form>
    `;
  }
}

if (!customElements.get('agent-settings')) customElements.define('agent-settings', AgentSettingsForm);

/**
 * The dashboard's side of MCP elicitation: a form for a request a server made of the person (the
 * McpClient widget answers them while it is on the page). Everything the server sent — its
 * message, the fields' titles and descriptions, a `url` request's address — is shown as text
 * (Lit escapes it), never as markup or a link.
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import type { ElicitationAnswer, ElicitationRequest } from '../../src/contracts/mcp-client-contract.ts';

/** One field of a request's schema (a flat JSON Schema property). */
type Field = Record<string, unknown>;
type Value = string | number | boolean | string[];

/** One value a field allows, and what to call it. */
interface Choice {
  value: string;
  title: string;
}

/** The values a field allows, when it lists them: `enum` (titled by a legacy `enumNames`), or `oneOf` / `anyOf` of titled `const`s. */
function choicesOf(f: Field): Choice[] | undefined {
  if (Array.isArray(f.enum)) {
    const names = Array.isArray(f.enumNames) ? f.enumNames : [];
    return f.enum.map((v, i) => ({ value: String(v), title: String(names[i] ?? v) }));
  }
  const consts = Array.isArray(f.oneOf) ? f.oneOf : Array.isArray(f.anyOf) ? f.anyOf : undefined;
  return consts?.map((o: { const?: unknown; title?: unknown }) => ({ value: String(o.const), title: String(o.title ?? o.const) }));
}

const itemsOf = (f: Field): Field => (f.items && typeof f.items === 'object' ? (f.items as Field) : {});

/** One field's input: a checkbox, a list to choose from, a number or a line of text. */
function input(key: string, f: Field, required: boolean): TemplateResult {
  const fallback = f.default;
  if (f.type === 'boolean') return html`<input type="checkbox" name=${key} ?checked=${fallback === true} />`;
  const many = f.type === 'array' ? choicesOf(itemsOf(f)) : undefined;
  if (many) {
    const chosen = Array.isArray(fallback) ? fallback.map(String) : [];
    return html`<select name=${key} multiple>${many.map((c) => html`<option value=${c.value} ?selected=${chosen.includes(c.value)}>${c.title}</option>`)}</select>`;
  }
  const choices = choicesOf(f);
  if (choices) {
    return html`<select name=${key}>
      ${required ? nothing : html`<option value=""></option>`}${choices.map((c) => html`<option value=${c.value} ?selected=${String(fallback) === c.value}>${c.title}</option>`)}
    </select>`;
  }
  const value = fallback === undefined ? '' : String(fallback);
  if (f.type === 'number' || f.type === 'integer') return html`<input type="number" name=${key} step=${f.type === 'integer' ? '1' : 'any'} .value=${value} />`;
  return html`<input type="text" name=${key} .value=${value} />`;
}

/** The form for `request`; `answer` gets the person's choice (Send reads the fields through {@link readAnswer}). */
export function elicitationForm(request: ElicitationRequest, error: string | undefined, answer: (action: 'accept' | 'decline' | 'cancel', form: HTMLFormElement) => void): TemplateResult {
  const fields = Object.entries(request.schema?.properties ?? {});
  const required = new Set(request.schema?.required ?? []);
  const act = (action: 'accept' | 'decline' | 'cancel') => (e: Event) => {
    e.preventDefault();
    answer(action, (e.target as HTMLElement).closest('form')!);
  };
  return html`<form class="elicitation" data-elicitation=${request.id} aria-label="${request.server} asks" novalidate @submit=${act('accept')}>
    <p><strong>${request.server}</strong> asks: <span class="asked">${request.message}</span></p>
    ${request.mode === 'url' ? html`<p class="secondary">It asks you to open this address yourself: <code>${request.url ?? ''}</code></p>` : nothing}
    ${fields.map(
      ([key, f]) => html`<label data-field=${key}><span>${typeof f.title === 'string' ? f.title : key}${required.has(key) ? ' *' : ''}</span>
        ${input(key, f, required.has(key))}${typeof f.description === 'string' ? html`<span class="secondary">${f.description}</span>` : nothing}</label>`,
    )}
    ${error ? html`<p class="message" role="alert">${error}</p>` : nothing}
    <div class="buttons"><button type="submit" data-control="send">${request.mode === 'url' ? 'Done' : 'Send'}</button>
    <button type="button" data-control="decline" @click=${act('decline')}>Decline</button>
    <button type="button" data-control="cancel" @click=${act('cancel')}>Cancel</button></div>
  </form>`;
}

/** The form's layout: one field a row, its name, input and description side by side. */
export const elicitationStyles = css`
  form.elicitation {
    border: 1px solid currentColor;
    border-radius: 6px;
    padding: 0.5rem 0.75rem;
    margin-bottom: 0.75rem;
  }
  form.elicitation label {
    display: grid;
    grid-template-columns: minmax(8rem, 14rem) minmax(10rem, 20rem) 1fr;
    gap: 0.5rem;
    align-items: center;
    margin: 0.25rem 0;
  }
  form.elicitation .buttons {
    display: flex;
    gap: 0.5rem;
    margin-top: 0.5rem;
  }
`;

/** What the person filled in, checked against the request's schema; or what is wrong, naming the field. */
export function readAnswer(request: ElicitationRequest, form: HTMLFormElement): { answer: ElicitationAnswer } | { error: string } {
  const content: Record<string, Value> = {};
  const required = new Set(request.schema?.required ?? []);
  for (const [key, f] of Object.entries(request.schema?.properties ?? {})) {
    const el = form.elements.namedItem(key);
    const name = typeof f.title === 'string' ? f.title : key;
    if (el instanceof HTMLInputElement && el.type === 'checkbox') {
      content[key] = el.checked;
      continue;
    }
    if (el instanceof HTMLSelectElement && el.multiple) {
      content[key] = [...el.selectedOptions].map((o) => o.value);
      continue;
    }
    const text = el instanceof HTMLInputElement || el instanceof HTMLSelectElement ? el.value : '';
    if (!text.trim()) {
      if (required.has(key)) return { error: `${name} is required` };
      continue;
    }
    if (f.type === 'number' || f.type === 'integer') {
      const n = Number(text);
      if (!Number.isFinite(n) || (f.type === 'integer' && !Number.isInteger(n))) return { error: `${name} takes a${f.type === 'integer' ? ' whole' : ''} number` };
      if (typeof f.minimum === 'number' && n < f.minimum) return { error: `${name} is at least ${f.minimum}` };
      if (typeof f.maximum === 'number' && n > f.maximum) return { error: `${name} is at most ${f.maximum}` };
      content[key] = n;
      continue;
    }
    if (typeof f.minLength === 'number' && text.length < f.minLength) return { error: `${name} takes at least ${f.minLength} characters` };
    if (typeof f.maxLength === 'number' && text.length > f.maxLength) return { error: `${name} takes at most ${f.maxLength} characters` };
    content[key] = text;
  }
  return { answer: { action: 'accept', content } };
}

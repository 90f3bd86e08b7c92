import { html, nothing, type TemplateResult } from 'lit';
import { Lexer, type Token, type Tokens } from 'marked';

/**
 * Renders markdown as Lit templates: marked tokenizes, Lit renders every piece of text as text.
 * No HTML string is ever parsed, so a document cannot inject markup; raw HTML in the source is
 * shown as text.
 */
export function renderMarkdown(source: string): TemplateResult {
  return html`${blocks(Lexer.lex(source, { gfm: true }))}`;
}

function blocks(tokens: readonly Token[]): (TemplateResult | typeof nothing)[] {
  return tokens.map(block);
}

function block(t: Token): TemplateResult | typeof nothing {
  switch (t.type) {
    case 'heading': {
      const h = t as Tokens.Heading;
      const inner = inline(h.tokens);
      switch (h.depth) {
        case 1: return html`<h1>${inner}</h1>`;
        case 2: return html`<h2>${inner}</h2>`;
        case 3: return html`<h3>${inner}</h3>`;
        default: return html`<h4>${inner}</h4>`;
      }
    }
    case 'paragraph':
      return html`<p>${inline((t as Tokens.Paragraph).tokens)}</p>`;
    case 'code':
      return html`<pre><code>${(t as Tokens.Code).text}</code></pre>`;
    case 'blockquote':
      return html`<blockquote>${blocks((t as Tokens.Blockquote).tokens)}</blockquote>`;
    case 'list': {
      const l = t as Tokens.List;
      const items = l.items.map((i) => html`<li>${blocks(i.tokens)}</li>`);
      return l.ordered ? html`<ol>${items}</ol>` : html`<ul>${items}</ul>`;
    }
    case 'table': {
      const tb = t as Tokens.Table;
      return html`<table>
        <thead><tr>${tb.header.map((c) => html`<th>${inline(c.tokens)}</th>`)}</tr></thead>
        <tbody>${tb.rows.map((r) => html`<tr>${r.map((c) => html`<td>${inline(c.tokens)}</td>`)}</tr>`)}</tbody>
      </table>`;
    }
    case 'checkbox': {
      // A task list item's box (`- [ ]`, `- [x]`): shown as a mark a reader and a screen reader understand.
      const done = (t as Tokens.Checkbox).checked;
      return html`<span class="task" data-checked=${done ? 'true' : 'false'} role="img" aria-label=${done ? 'done' : 'not done'}>${done ? '☑' : '☐'} </span>`;
    }
    case 'hr':
      return html`<hr />`;
    case 'text': {
      const tx = t as Tokens.Text;
      return tx.tokens ? html`${inline(tx.tokens)}` : html`${tx.text}`;
    }
    case 'space':
      return nothing;
    default:
      return html`<p>${(t as { raw: string }).raw}</p>`;
  }
}

function inline(tokens: readonly Token[] | undefined): (TemplateResult | string)[] {
  return (tokens ?? []).map((t): TemplateResult | string => {
    switch (t.type) {
      case 'strong':
        return html`<strong>${inline((t as Tokens.Strong).tokens)}</strong>`;
      case 'em':
        return html`<em>${inline((t as Tokens.Em).tokens)}</em>`;
      case 'codespan':
        return html`<code>${(t as Tokens.Codespan).text}</code>`;
      case 'link':
        return html`<span class="link">${inline((t as Tokens.Link).tokens)}</span>`;
      case 'br':
        return html`<br />`;
      case 'text': {
        const tx = t as Tokens.Text;
        return tx.tokens ? html`${inline(tx.tokens)}` : decode(tx.text);
      }
      default:
        return decode((t as { raw: string }).raw);
    }
  });
}

/** marked escapes entities in text tokens; Lit escapes again, so undo marked's escaping. */
function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);
}

import { expect } from 'chai';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { parseBlueprint } from './front-matter.ts';
import { createBlueprintRegistry } from './registry.ts';
import { BlueprintsWidget } from './widget.ts';
import { $, $$, mount, report, settle, stateOf, text } from '../../test/helpers/widget-fixture.ts';

const doc = (id: string, body: string) => parseBlueprint(`blueprints/${id}.md`, `---\nid: ${id}\ntitle: Doc ${id}\ntarget: Workspace\n---\n${body}`);

describe('blueprints-widget', () => {
  it('lists blueprints and renders one as formatted text when clicked', async () => {
    const bus = createEventBus();
    const api = { ...createBlueprintRegistry([
      doc('0x000001', '# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n\n```ts\nconst x = 1;\n```\n\n<script>alert(1)</script>'),
      doc('0x000002', 'Plain.'),
    ]), candidate: () => undefined };
    const el = new BlueprintsWidget();
    el.context = { bus, moduleId: 'Blueprints', api, report: report('Blueprints', { category: 'knowledge' }) };
    await mount(el);
    expect(stateOf(el)).to.equal('idle');
    expect(text(el)).to.contain('2 blueprints');
    const buttons = $$(el, 'ul.list button');
    expect(buttons.map((b) => b.textContent!.replace(/\s+/g, ' ').trim())).to.deep.equal(['0x000001Doc 0x000001', '0x000002Doc 0x000002']);
    buttons[0]!.click();
    await settle(el);
    const article = $(el, 'article.doc')!;
    expect(article.querySelector('h1')!.textContent).to.equal('Title');
    expect(article.querySelector('strong')!.textContent).to.equal('bold');
    expect(article.querySelector('p code')!.textContent).to.equal('code');
    expect([...article.querySelectorAll('li')].map((l) => l.textContent!.trim())).to.deep.equal(['one', 'two']);
    expect(article.querySelector('pre code')!.textContent).to.equal('const x = 1;');
    // Raw HTML in a document is shown as text, never executed or parsed.
    expect(article.querySelector('script')).to.equal(null);
    expect(article.textContent).to.contain('<script>alert(1)</script>');
    el.remove();
  });

  it('shows a checklist\'s boxes as done or not done', async () => {
    const api = { ...createBlueprintRegistry([doc('0x000003', '## Verification\n- [x] proved (test: a)\n- [ ] not yet (test: b)')]), candidate: () => undefined };
    const el = new BlueprintsWidget();
    el.context = { bus: createEventBus(), moduleId: 'Blueprints', api, report: report('Blueprints', { category: 'knowledge' }) };
    await mount(el);
    $$(el, 'ul.list button')[0]!.click();
    await settle(el);
    const items = [...$(el, 'article.doc')!.querySelectorAll('li')];
    expect(items.map((l) => l.textContent!.replace(/\s+/g, ' ').trim())).to.deep.equal(['☑ proved (test: a)', '☐ not yet (test: b)']);
    expect(items.map((l) => l.querySelector('.task')!.getAttribute('aria-label'))).to.deep.equal(['done', 'not done']);
    el.remove();
  });

  it('shows the error state when its module failed', async () => {
    const el = new BlueprintsWidget();
    el.context = { bus: createEventBus(), moduleId: 'Blueprints', api: undefined, report: report('Blueprints', { state: 'failed' }) };
    await mount(el);
    expect(stateOf(el)).to.equal('error');
    el.remove();
  });
});

import { expect } from 'chai';
import { BlueprintsWidget } from './widget.ts';
import { bootTest } from '../../test/helpers/test-system.ts';
import { recordedView } from '../../test/helpers/recorded-view.ts';
import { until } from '../../test/helpers/until.ts';
import { $, $$, mount, report, stateOf, text } from '../../test/helpers/widget-fixture.ts';

const line = (id: string) => ({ id, title: `Doc ${id}`, target: 'Workspace', origin: 'project' as const });

describe('blueprints-widget', () => {
  it('lists the blueprints of its snapshot and renders one it reads with read_blueprint as formatted text', async () => {
    const view = recordedView();
    view.setStatus('Blueprints', { blueprints: [line('0x000001'), line('0x000002')], total: 2 });
    const bodies: Record<string, string> = {
      '0x000001': '# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n\n```ts\nconst x = 1;\n```\n\n<script>alert(1)</script>',
      '0x000002': 'Plain.',
    };
    view.answer('read_blueprint', ({ args }) => ({ ...line(String(args.id)), body: bodies[String(args.id)] }));
    const el = new BlueprintsWidget();
    el.context = { view, moduleId: 'Blueprints', report: report('Blueprints', { category: 'knowledge' }) };
    await mount(el);
    expect(stateOf(el)).to.equal('idle');
    expect(text(el)).to.contain('2 blueprints');
    const buttons = $$(el, 'ul.list button');
    expect(buttons.map((b) => b.textContent!.replace(/\s+/g, ' ').trim())).to.deep.equal(['0x000001Doc 0x000001', '0x000002Doc 0x000002']);
    buttons[0]!.click();
    await until('the document', () => !!$(el, 'article.doc'));
    expect(view.calls.map((c) => [c.name, c.args])).to.deep.equal([['read_blueprint', { id: '0x000001' }]]);
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
    const view = recordedView();
    view.setStatus('Blueprints', { blueprints: [line('0x000003')], total: 1 });
    view.answer('read_blueprint', ({ args }) => ({ ...line(String(args.id)), body: '## Verification\n- [x] proved (test: a)\n- [ ] not yet (test: b)' }));
    const el = new BlueprintsWidget();
    el.context = { view, moduleId: 'Blueprints', report: report('Blueprints', { category: 'knowledge' }) };
    await mount(el);
    $$(el, 'ul.list button')[0]!.click();
    await until('the document', () => !!$(el, 'article.doc li'));
    const items = [...$(el, 'article.doc')!.querySelectorAll('li')];
    expect(items.map((l) => l.textContent!.replace(/\s+/g, ' ').trim())).to.deep.equal(['☑ proved (test: a)', '☐ not yet (test: b)']);
    expect(items.map((l) => l.querySelector('.task')!.getAttribute('aria-label'))).to.deep.equal(['done', 'not done']);
    el.remove();
  });

  it('lists the project\'s blueprints from the real registry and opens one', async () => {
    const { sys, view } = await bootTest({ upgrades: ['ToolRunner', 'Blueprints'] });
    const el = new BlueprintsWidget();
    el.context = { view, moduleId: 'Blueprints', report: report('Blueprints', { category: 'knowledge' }) };
    await mount(el);
    expect(text(el)).to.match(/\d+ blueprints/);
    const button = $$(el, 'ul.list button').find((b) => b.textContent!.includes('0x000040'))!;
    button.click();
    await until('the widget protocol', () => !!$(el, 'article.doc h1'));
    expect($(el, 'article.doc h1')!.textContent).to.equal('Module Widget Protocol');
    el.remove();
    await sys.dispose();
  });

  it('shows the error state when its module failed', async () => {
    const el = new BlueprintsWidget();
    el.context = { view: recordedView(), moduleId: 'Blueprints', report: report('Blueprints', { state: 'failed' }) };
    await mount(el);
    expect(stateOf(el)).to.equal('error');
    el.remove();
  });
});

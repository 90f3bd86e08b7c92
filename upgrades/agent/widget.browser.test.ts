// <agent-widget> in Chromium over a real agent (ToolRunner, workspace area) and the library's mock
// model, held mid-answer so the panel can be watched while the text streams and stopped.
import { expect } from 'chai';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';
import { scriptedMockModel, type MockTurn } from '../../test/helpers/mock-model.ts';
import { $, mount, report } from '../../test/helpers/widget-fixture.ts';
import { createToolRunner } from '../tool-runner/tool-runner.ts';
import { createWorkspace } from '../workspace/workspace.ts';
import { createAgent } from './agent.ts';
import { browserKeyName, browserKeys } from './keys.ts';
import { browserSettings } from './settings.ts';
import { TranscriptStore } from './transcript.ts';
import type { AgentWidget } from './widget.ts';
import './widget.ts';
import { until } from '../../test/helpers/until.ts';


function memoryStorage() {
  const map = new Map<string, string>();
  return { map, getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => void map.set(k, v), removeItem: (k: string) => void map.delete(k) };
}

/** Tools the fixture registers: names, and what each answers. */
type FakeTools = Record<string, () => unknown>;

async function fixture(turns: MockTurn[], hold?: Promise<void>, tools: FakeTools = {}) {
  const bus = createEventBus({ historySize: 2000 });
  const persona: Persona = { id: 'p', name: 'P', description: 'p', upgrades: ['ToolRunner'], tools: ['*'], skills: [], toolMode: 'direct' };
  const runner = createToolRunner({ bus, persona });
  if (Object.keys(tools).length) {
    runner.registerTools(
      Object.keys(tools).map((name) => ({ name, description: name, inputSchema: { type: 'object' as const }, module: 'Test', pythonCallable: true })),
      async (name) => tools[name]!(),
    );
  }
  const workspace = await createWorkspace({ store: memoryStore(), bus });
  const storage = memoryStorage();
  const agent = createAgent({
    runner,
    bus,
    persona,
    transcripts: new TranscriptStore(workspace.area('runs')),
    keys: browserKeys(storage),
    settings: browserSettings(storage),
    modelFactory: async () => scriptedMockModel(turns, { hold: () => hold }),
  });
  const el = document.createElement('agent-widget') as AgentWidget;
  el.context = { bus, moduleId: 'Agent', api: agent, report: report('Agent', { category: 'agent' as never }) };
  await mount(el);
  return { el, agent, storage };
}

const transcriptText = (el: AgentWidget) => ($(el, 'agent-transcript')?.shadowRoot?.textContent ?? '').replace(/\s+/g, ' ');
const button = (el: AgentWidget, id: string) => $(el, `[data-control=${id}]`) as HTMLButtonElement;

describe('<agent-widget>', () => {
  it('streams the text as it comes, and Stop ends the run', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const f = await fixture([{ text: ['Thinking ', 'about ', 'it'] }], hold);
    f.agent.saveSettings({ model: { provider: 'openai-compatible', model: 'm', baseURL: 'http://127.0.0.1:9/v1' } });
    const sent = f.el.send('ponder');
    await until('the streamed text before the answer is complete', () => transcriptText(f.el).includes('Thinking about it'));
    expect(button(f.el, 'send').disabled).to.equal(true);
    expect(button(f.el, 'stop').disabled).to.equal(false);
    button(f.el, 'stop').click();
    release();
    await sent;
    await until('the stopped run', () => transcriptText(f.el).includes('■ stopped'));
    expect(button(f.el, 'send').disabled).to.equal(false);
    f.el.remove();
  });

  it('renders what the model says as text, never as HTML', async () => {
    const f = await fixture([{ text: '<img src=x onerror="window.__pwned = 1"><b>bold</b>' }]);
    f.agent.saveSettings({ model: { provider: 'openai-compatible', model: 'm', baseURL: 'http://127.0.0.1:9/v1' } });
    await f.el.send('say html');
    await until('the answer', () => transcriptText(f.el).includes('answered'));
    const root = $(f.el, 'agent-transcript')!.shadowRoot!;
    expect(root.querySelector('img, b')).to.equal(null);
    expect(root.textContent).to.contain('<img src=x');
    expect((window as { __pwned?: number }).__pwned).to.equal(undefined);
    f.el.remove();
  });

  it('shows a past run\'s goal in full on a narrow card', async () => {
    const f = await fixture([{ text: 'The sum is 6.' }]);
    f.el.style.width = '360px';
    f.agent.saveSettings({ model: { provider: 'openai-compatible', model: 'm', baseURL: 'http://127.0.0.1:9/v1' } });
    await f.el.send('Add up the numbers in data/numbers.txt');
    await until('the past run', () => !!$(f.el, '.runs .goal'));
    const goal = $(f.el, '.runs .goal')!;
    expect(goal.textContent).to.equal('Add up the numbers in data/numbers.txt');
    expect(goal.scrollWidth, 'the goal is not cut off').to.be.at.most(goal.clientWidth);
    f.el.remove();
  });

  it('saves the settings; the key goes to browser storage and is never shown back', async () => {
    const f = await fixture([]);
    const form = $(f.el, 'agent-settings')!;
    await (form as unknown as { updateComplete: Promise<void> }).updateComplete;
    const q = (s: string) => form.shadowRoot!.querySelector(s) as HTMLInputElement;
    const select = q('select') as unknown as HTMLSelectElement;
    select.value = 'anthropic';
    select.dispatchEvent(new Event('change'));
    await (form as unknown as { updateComplete: Promise<void> }).updateComplete;
    q('[name=model]').value = 'claude-test';
    q('[name=apiKey]').value = 'sk-ant-widget-secret-123';
    (q('[data-control=save-settings]') as unknown as HTMLButtonElement).click();
    await (form as unknown as { updateComplete: Promise<void> }).updateComplete;
    expect(f.storage.map.get(browserKeyName('anthropic'))).to.equal('sk-ant-widget-secret-123');
    expect(f.agent.getSettings()).to.include({ source: 'settings', hasKey: true, keyStorage: 'browser' });
    expect(q('[name=apiKey]').value).to.equal('');
    expect(form.shadowRoot!.innerHTML).to.not.contain('sk-ant-widget-secret-123');
    expect(f.el.shadowRoot!.innerHTML).to.not.contain('sk-ant-widget-secret-123');
    f.el.remove();
  });

  it('shows a call whose change was rejected as rejected, a pending one as pending, and an empty Python output as none', async () => {
    const change = (status: string, id: string) => ({ name: 'made.x', version: 1, change: id, status, report: status === 'rejected' ? 'rejected: 1 of 2 tests failed' : '2 of 2 tests passed', tests: [] });
    const f = await fixture(
      [
        { toolCalls: [{ id: 'bad', name: 'create_tool', args: {} }, { id: 'wait', name: 'update_tool', args: {} }, { id: 'quiet', name: 'execute_python', args: { code: 'x = 1' } }] },
        { text: 'Done.' },
      ],
      undefined,
      {
        create_tool: () => change('rejected', 'c0000000a'),
        update_tool: () => change('pending', 'c0000000b'),
        execute_python: () => ({ value: null, stdout: '', stderr: '', executionTime: 1 }),
      },
    );
    f.agent.saveSettings({ model: { provider: 'openai-compatible', model: 'm', baseURL: 'http://127.0.0.1:9/v1' } });
    await f.el.send('make tools');
    await until('the answer', () => transcriptText(f.el).includes('answered'));
    const root = $(f.el, 'agent-transcript')!.shadowRoot!;
    const summary = (tool: string) => root.querySelector(`details.call[data-tool="${tool}"] summary`)!.textContent!.replace(/\s+/g, ' ');
    expect(summary('create_tool')).to.contain('✖ rejected (change c0000000a)');
    expect(summary('create_tool')).to.not.contain('✓');
    expect(summary('update_tool')).to.contain('◌ pending approval (change c0000000b)');
    const output = root.querySelector('details.call[data-tool="execute_python"] .output')!;
    expect(output.textContent, 'a finished run that printed nothing').to.equal('(none)');
    f.el.remove();
  });

  it('says when it was last active while a run goes on (never "never")', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const f = await fixture([{ text: ['Still ', 'working'] }], hold);
    f.agent.saveSettings({ model: { provider: 'openai-compatible', model: 'm', baseURL: 'http://127.0.0.1:9/v1' } });
    const sent = f.el.send('work');
    await until('the streamed text', () => transcriptText(f.el).includes('Still working'));
    await f.el.updateComplete;
    expect($(f.el, '.metrics .primary')!.textContent).to.equal('running');
    expect($(f.el, '.activity')!.textContent!.replace(/\s+/g, ' ')).to.equal('Last activity: just now');
    release();
    await sent;
    f.el.remove();
  });
});

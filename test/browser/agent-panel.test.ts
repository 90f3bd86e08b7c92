// The agent panel on the dashboard in Chromium, as a person uses it: settings pointed at a
// scripted OpenAI-compatible server (served by the test runner), a goal typed and sent, the
// transcript streaming with Python output under its call, the result file in the workspace widget.
import { expect } from 'chai';
import { boot, type ArmatureSystem } from '../../src/index.ts';
import { createBrowserPlatform } from '../../src/platform/browser/browser.ts';
import '../../src/widgets/dashboard.ts';
import type { ArmatureDashboard } from '../../src/widgets/dashboard.ts';
import { browserKeyName } from '../../upgrades/agent/keys.ts';
import { SETTINGS_KEY } from '../../upgrades/agent/settings.ts';
import { NUMBERS_FILE, RESULT_FILE, SUM_ANSWER, SUM_GOAL, SUM_STDOUT, sumScript } from '../helpers/agent-task.ts';
import { browserScriptedModel, unusedPortFromServer } from '../helpers/scripted-model-browser.ts';
import { until } from '../helpers/until.ts';


const shadow = (el: Element | null | undefined) => el?.shadowRoot ?? null;

/** Everything the IndexedDB databases named `prefix…` hold, as text (byte arrays decoded). */
async function indexedDbText(prefix: string): Promise<string> {
  const request = <T>(r: IDBRequest<T>) => new Promise<T>((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
  const text = (v: unknown) => JSON.stringify(v, (_k, x) => (x instanceof Uint8Array ? new TextDecoder().decode(x) : x instanceof ArrayBuffer ? new TextDecoder().decode(new Uint8Array(x)) : x));
  let out = '';
  for (const info of await indexedDB.databases()) {
    if (!info.name?.startsWith(prefix)) continue;
    const db = await request(indexedDB.open(info.name));
    for (const store of [...db.objectStoreNames]) out += text(await request(db.transaction(store).objectStore(store).getAll()));
    db.close();
  }
  return out;
}
const textOf = (el: Element | null | undefined) => (shadow(el)?.textContent ?? '').replace(/\s+/g, ' ');

describe('the agent panel', () => {
  const prefix = `agent-panel-${Date.now()}`;
  let sys: ArmatureSystem;
  let dash: ArmatureDashboard;
  const panel = () => dash.shadowRoot!.querySelector('[data-module=Agent] agent-widget')!;
  const form = () => shadow(panel())!.querySelector('agent-settings')!;
  const transcript = () => shadow(panel())!.querySelector('agent-transcript')!;
  const field = (name: string) => shadow(form())!.querySelector<HTMLInputElement>(`[name=${name}]`)!;

  async function mount(): Promise<void> {
    dash = document.createElement('armature-dashboard') as ArmatureDashboard;
    dash.system = sys;
    document.body.append(dash);
    await until(() => `the panel (failed modules: ${JSON.stringify(sys.modules.filter((m) => m.state === 'failed'))})`, () => !!dash.shadowRoot?.querySelector('[data-module=Agent] agent-widget'), 60_000);
    await (panel() as unknown as { updateComplete: Promise<void> }).updateComplete;
  }

  async function configure(baseURL: string, key = ''): Promise<void> {
    field('model').value = 'scripted';
    field('baseURL').value = baseURL;
    field('apiKey').value = key;
    shadow(form())!.querySelector<HTMLButtonElement>('[data-control=save-settings]')!.click();
    await until('settings saved', () => textOf(form()).includes('Saved.'), 60_000);
  }

  async function send(goal: string): Promise<void> {
    const box = shadow(panel())!.querySelector('textarea')!;
    box.value = goal;
    shadow(panel())!.querySelector<HTMLButtonElement>('[data-control=send]')!.click();
    await until('the goal in the transcript', () => textOf(transcript()).includes(goal), 60_000);
  }

  const lastFinished = () => [...(shadow(transcript())?.querySelectorAll('.turn') ?? [])].at(-1)?.querySelector('.finished, [role=alert]');

  before(async () => {
    for (const p of ['openai-compatible', 'openai', 'anthropic', 'google']) localStorage.removeItem(browserKeyName(p as 'openai'));
    localStorage.removeItem(SETTINGS_KEY);
    sys = await boot({ platform: createBrowserPlatform({ dbPrefix: prefix }), historySize: 5000 });
    await sys.tools.executeTool('write_file', NUMBERS_FILE);
    await mount();
  });
  after(async () => {
    dash?.remove();
    await sys?.dispose();
    localStorage.removeItem(SETTINGS_KEY);
    localStorage.removeItem(browserKeyName('openai-compatible'));
  });

  it('on the first screen tells a newcomer how to point it at a local server or paste a key', async () => {
    const details = shadow(panel())!.querySelector<HTMLDetailsElement>('details.settings')!;
    expect(details.open).to.equal(true);
    const help = textOf(form());
    expect(help).to.contain('No model yet');
    expect(help).to.contain('ollama serve');
    expect(help).to.contain('llama-server');
    expect(help).to.contain('paste your key');
    expect(help).to.contain('stored in this browser only (localStorage)');
    shadow(form())!.querySelector<HTMLButtonElement>('[data-local=Ollama]')!.click();
    await (form() as unknown as { updateComplete: Promise<void> }).updateComplete;
    await new Promise((r) => setTimeout(r, 0));
    expect(field('baseURL').value).to.equal('http://127.0.0.1:11434/v1');
  });

  it('runs a typed goal: the transcript streams, Python output sits under its call, the file shows in the workspace widget', async () => {
    const model = await browserScriptedModel(sumScript());
    await configure(model.baseURL);
    await send(SUM_GOAL);
    await until('the run to finish', () => textOf(transcript()).includes('answered · 2 steps'), 60_000);
    const t = textOf(transcript());
    expect(t).to.contain('I will compute it in Python.');
    expect(t).to.contain(SUM_ANSWER);
    expect(t).to.contain('1,900 in / 75 out tokens');
    const call = shadow(transcript())!.querySelector('details.call[data-tool=execute_python]')!;
    expect(call.textContent).to.contain('✓ ok');
    expect(call.querySelector('.output')!.textContent).to.equal(SUM_STDOUT);
    expect(call.querySelector('.args.code')!.textContent).to.contain('call_tool("read_file", {"path": "data/numbers.txt"})');
    // No HTML from the model: text bindings only.
    expect(shadow(transcript())!.querySelector('script, img, iframe')).to.equal(null);

    const requests = await model.requests();
    expect(requests).to.have.length(2);
    expect(String(requests[0]!.body.messages[0]!.content)).to.contain('Work in Python: call `execute_python`');
    // execute_python, the skill tools, and the tools Python cannot call (create_tool and the like).
    const native = sys.tools.getToolDeclarations().filter((d) => !d.pythonCallable).map((d) => d.name);
    expect(requests[0]!.body.tools!.map((x) => x.function.name).sort()).to.deep.equal([...new Set(['execute_python', 'list_skills', 'read_skill', ...native])].sort());
    const toolMsg = requests[1]!.body.messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(String(toolMsg.content))).to.deep.equal({ ok: true, value: { value: 50, stdout: SUM_STDOUT, stderr: '', executionTime: (JSON.parse(String(toolMsg.content)) as { value: { executionTime: number } }).value.executionTime } });

    // The run's Python ran in a session runtime of the pool: the runtime's card counts it.
    const runtimeCard = dash.shadowRoot!.querySelector('pyodide-runtime-widget')!;
    const runs = () => shadow(runtimeCard)?.querySelector('.secondary')?.textContent ?? '';
    await until(() => `the session run on the runtime card, which says ${runs()}`, () => runs().startsWith('1 run (1 in sessions)'), 60_000);

    const ws = dash.shadowRoot!.querySelector('workspace-widget')!;
    await until('the result file in the workspace widget', () => textOf(ws).includes(RESULT_FILE.path), 60_000);
    const file = await sys.tools.executeTool<{ content: string }>('read_file', { path: RESULT_FILE.path });
    expect(file.ok && file.value.content).to.equal(RESULT_FILE.content);
    expect(textOf(panel())).to.contain('Past runs');
  });

  it('replays a recorded example with no model and no key: the sum-files run, live in the panel', async () => {
    shadow(panel())!.querySelector<HTMLButtonElement>('[data-control=new-run]')?.click();
    const examples = shadow(panel())!.querySelector<HTMLDetailsElement>('details.examples')!;
    expect(examples.textContent).to.contain('Replay an example (no model, no key)');
    const item = () => shadow(panel())!.querySelector('[data-example="examples/sum-files"]')!;
    expect(item().textContent).to.contain('Python sums files through call_tool');
    expect(item().textContent).to.contain("Recorded with Armature's scripted model");
    item().querySelector<HTMLButtonElement>('[data-control=replay-example]')!.click();
    await until(() => `the replay to finish: ${textOf(panel())}`, () => !!shadow(panel())!.querySelector('[data-replay=done]'), 90_000);
    const t = textOf(transcript());
    expect(t).to.contain('Add up the amounts in every CSV file under data/');
    expect(t).to.contain('The three files add up to 610.60');
    expect(shadow(transcript())!.querySelector('details.call[data-tool=execute_python] .output')!.textContent).to.contain('total: 610.60');
    expect(textOf(panel())).to.contain('every tool result matched the recording');
    const total = await sys.tools.executeTool<{ content: string }>('read_file', { path: 'results/total.txt' });
    expect(total.ok && total.value.content).to.equal('610.60\n');

    // The replay provider in the settings: a goal typed in the box is answered from the recording.
    shadow(panel())!.querySelector<HTMLButtonElement>('[data-control=new-run]')!.click();
    const select = shadow(form())!.querySelector<HTMLSelectElement>('select')!;
    select.value = 'replay';
    select.dispatchEvent(new Event('change'));
    await (form() as unknown as { updateComplete: Promise<void> }).updateComplete;
    field('model').value = 'examples/sum-files';
    field('baseURL').value = '';
    shadow(form())!.querySelector<HTMLButtonElement>('[data-control=save-settings]')!.click();
    await until('settings saved', () => textOf(form()).includes('Saved.'), 60_000);
    await send('Add up the amounts in every CSV file under data/ and write the total to results/total.txt.');
    await until(() => `the replayed answer: ${textOf(transcript())}`, () => textOf(transcript()).includes('answered · 2 steps'), 60_000);
    expect(textOf(transcript())).to.contain('The three files add up to 610.60');
    select.value = 'openai-compatible';
    select.dispatchEvent(new Event('change'));
    await (form() as unknown as { updateComplete: Promise<void> }).updateComplete;
  });

  it('a refused key (401) shows a readable error; the key stays in localStorage only', async () => {
    const KEY = 'sk-browser-secret-0123456789';
    const model = await browserScriptedModel([{ status: 401, body: { error: { message: `Invalid key ${KEY}` } } }]);
    shadow(panel())!.querySelector<HTMLButtonElement>('[data-control=new-run]')!.click();
    await configure(model.baseURL, KEY);
    expect(localStorage.getItem(browserKeyName('openai-compatible'))).to.equal(KEY);
    await send('hello');
    await until('the error', () => !!lastFinished()?.matches('[role=alert]'), 60_000);
    const alert = lastFinished()!.textContent!;
    expect(alert).to.contain('the provider refused the key (HTTP 401');
    expect(alert).to.contain("Paste a valid openai-compatible key in the agent panel's settings");
    expect((await model.requests())[0]!.headers.authorization).to.equal(`Bearer ${KEY}`);
    const runId = (await sys.resolve<{ listRuns(): { runId: string }[] }>('Agent')).listRuns()[0]!.runId;
    const everything = JSON.stringify(sys.bus.history()) + textOf(panel()) + textOf(transcript()) + JSON.stringify(await sys.tools.executeTool('read_run', { runId }));
    expect(everything).to.not.contain(KEY);
    expect(everything).to.contain('[redacted key]');
    // Forget the key again.
    shadow(form())!.querySelector<HTMLButtonElement>('[data-control=forget-key]')!.click();
    expect(localStorage.getItem(browserKeyName('openai-compatible'))).to.equal(null);
  });

  it('a key the provider echoes — split across streamed pieces, and in a tool call\'s arguments — shows masked everywhere: panel, events, transcript, IndexedDB', async () => {
    const KEY = 'sk-MARKER-abc123XYZ';
    const model = await browserScriptedModel([
      { text: ['Your key is sk-MAR', 'KER-abc1', '23XYZ', '.'], toolCalls: [{ name: 'execute_python', args: { code: `from tools.workspace import write_file\nwrite_file(path="echo/key.txt", content="${KEY}")\nprint("${KEY}")` } }] },
      { text: ['Saved sk-', 'MARKER-abc', '123XYZ.'] },
    ]);
    shadow(panel())!.querySelector<HTMLButtonElement>('[data-control=new-run]')!.click();
    await configure(model.baseURL, KEY);
    await send('keep my key');
    await until('the run to finish', () => textOf(transcript()).includes('answered · 2 steps'), 60_000);
    expect(textOf(transcript())).to.contain('Your key is [redacted key].');
    expect(textOf(transcript())).to.contain('Saved [redacted key].');
    const file = await sys.tools.executeTool<{ content: string }>('read_file', { path: 'echo/key.txt' });
    expect(file.ok && file.value.content).to.equal('[redacted key]', 'the tool ran with the masked value');
    const runId = (await sys.resolve<{ listRuns(): { runId: string }[] }>('Agent')).listRuns()[0]!.runId;
    const stored = await indexedDbText(prefix);
    expect(stored).to.contain('[redacted key]', 'the dump holds the run and the file');
    const everything = JSON.stringify(sys.bus.history()) + textOf(panel()) + JSON.stringify(await sys.tools.executeTool('read_run', { runId })) + stored;
    for (const part of [KEY, 'MARKER-abc', 'abc123XYZ', 'KER-abc1']) expect(everything).to.not.contain(part);
    shadow(form())!.querySelector<HTMLButtonElement>('[data-control=forget-key]')!.click();
  });

  it('an unreachable base URL is named in the error; the dashboard keeps working', async () => {
    const url = `http://127.0.0.1:${await unusedPortFromServer()}/v1`;
    shadow(panel())!.querySelector<HTMLButtonElement>('[data-control=new-run]')!.click();
    await configure(url);
    await send('hello');
    await until('the error', () => !!lastFinished()?.matches('[role=alert]'), 60_000);
    expect(lastFinished()!.textContent).to.contain(`cannot reach the model at ${url}/chat/completions`);
    const py = await sys.tools.executeTool<{ value: number }>('execute_python', { code: '6 * 7' });
    expect(py.ok && py.value.value).to.equal(42);
  });

  it('after a reload, a past run reopens and a follow-up continues it', async () => {
    const first = (await sys.resolve<{ listRuns(n: number): { runId: string; goal: string }[] }>('Agent')).listRuns(10).find((r) => r.goal === SUM_GOAL)!;
    dash.remove();
    await sys.dispose();
    // A new system over the same IndexedDB: what a reload gives.
    sys = await boot({ platform: createBrowserPlatform({ dbPrefix: prefix }), historySize: 5000, config: { PyodideRuntime: { autoStart: false } } });
    await mount();
    const model = await browserScriptedModel([{ text: 'It was 50.' }]);
    await configure(model.baseURL);
    const row = shadow(panel())!.querySelector(`[data-run="${first.runId}"]`)!;
    expect(row.textContent).to.contain(SUM_GOAL);
    row.querySelector<HTMLButtonElement>('[data-control=open-run]')!.click();
    await until('the reopened transcript', () => textOf(transcript()).includes(SUM_ANSWER), 60_000);
    expect(shadow(transcript())!.querySelector('details.call[data-tool=execute_python] .output')!.textContent).to.equal(SUM_STDOUT);
    await send('What was the sum again?');
    await until('the follow-up answer', () => textOf(transcript()).includes('It was 50.') && textOf(transcript()).includes('Run total'), 60_000);
    const sent = (await model.requests())[0]!.body.messages;
    expect(sent.filter((m) => m.role === 'user').map((m) => m.content)).to.deep.equal([SUM_GOAL, 'What was the sum again?']);
    expect(sent.some((m) => m.role === 'tool' && String(m.content).includes('sum of 5 numbers'))).to.equal(true);
  });
});

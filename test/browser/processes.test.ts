// A dashboard attached to a data folder, fed the records a server forwards: the Processes card,
// and another process's agent run shown live in the agent panel — its text, its execute_python
// call and that call's stdout — with its process named, and Stop asking that process to stop it.
// The view is the test's (test/helpers/recorded-view.ts): the records are what the server's
// event stream delivers, tagged with the process they came from.
import { expect } from 'chai';
import type { ModuleReport } from '../../src/kernel/boot/loader.ts';
import type { ProcessInfo } from '../../src/view/system-view.ts';
import '../../src/widgets/dashboard.ts';
import type { ArmatureDashboard } from '../../src/widgets/dashboard.ts';
import type { AgentSnapshot } from '../../upgrades/agent/snapshot.ts';
import { recordedView, type RecordedView } from '../helpers/recorded-view.ts';
import { until } from '../helpers/until.ts';

const shadow = (el: Element | null | undefined) => el?.shadowRoot ?? null;
const textOf = (el: Element | null | undefined) => (shadow(el)?.textContent ?? '').replace(/\s+/g, ' ');

const report = (id: string, folder: string, widget: string, category: ModuleReport['category']): ModuleReport => ({ id, state: 'loaded', durationMs: 3, category, widget, blueprint: '0x000050', version: '1.0.0', folder });
const proc = (id: string, command: string, pid: number): ProcessInfo => ({ id, pid, command, persona: 'default', startedAt: Date.now() - 60_000 });
const RUN = 'run-20260301-101500-abc123';
const CALL = `${RUN}/1/call_1`;

const agentSnapshot = (active: string[] = []): AgentSnapshot => ({
  settings: { source: 'persona', model: { provider: 'openai-compatible', model: 'scripted', baseURL: 'http://127.0.0.1:9/v1' }, hasKey: false, keyStorage: 'environment', keyVariable: 'ARMATURE_API_KEY' },
  active,
  runs: [],
  moreRuns: false,
  examples: [],
});

async function attachedDashboard(): Promise<{ view: RecordedView; dash: ArmatureDashboard }> {
  const view = recordedView({ mode: 'attached', modules: [report('Agent', 'agent', 'agent-widget', 'agent')] });
  view.setStatus('Agent', agentSnapshot());
  view.startProcess(proc('p-1', 'start', 4100));
  view.startProcess(proc('p-2', 'agent', 4242));
  const dash = document.createElement('armature-dashboard') as ArmatureDashboard;
  dash.view = view;
  document.body.append(dash);
  await until('the agent panel', () => !!dash.shadowRoot?.querySelector('agent-widget'));
  return { view, dash };
}

describe('a dashboard attached to a data folder', () => {
  it('lists the processes live; one that ends is greyed with how it ended', async () => {
    const { view, dash } = await attachedDashboard();
    const card = dash.shadowRoot!.querySelector('processes-card')!;
    await until('both processes', () => shadow(card)!.querySelectorAll('tr[data-process]').length === 2);
    expect(textOf(card)).to.contain('2 processes running');
    view.emit('module:loaded', { id: 'Agent', version: '1.0.0', durationMs: 5 }, 'p-2');
    view.emit('module:failed', { id: 'McpClient', error: { code: 'X', message: 'no' }, durationMs: 1 }, 'p-2');
    view.endProcess('p-2', 'crashed');
    await until('p-2 ended', () => shadow(card)!.querySelector('tr[data-process="p-2"]')!.hasAttribute('data-ended'));
    const row = shadow(card)!.querySelector('tr[data-process="p-2"]')!;
    expect(row.textContent).to.contain('crashed');
    expect(row.textContent).to.contain('1 module, failed: McpClient');
    expect(getComputedStyle(row).color, 'greyed').to.equal('rgb(107, 115, 133)');
    expect(textOf(card)).to.contain('1 process running');
    expect(shadow(card)!.querySelector('tr[data-process]')!.getAttribute('data-process'), 'running ones first').to.equal('p-1');
    dash.remove();
  });

  it('shows another process\'s run live — text, the execute_python call and its stdout — names the process, and Stop goes to it', async () => {
    const { view, dash } = await attachedDashboard();
    view.answer('stop_run', () => ({ runId: RUN, stopped: true }));
    const panel = dash.shadowRoot!.querySelector('agent-widget')!;
    const transcript = () => shadow(panel)!.querySelector('agent-transcript');
    view.setStatus('Agent', agentSnapshot([RUN]));
    view.emit('agent:run-started', { runId: RUN, goal: 'Sum the numbers', persona: 'default', toolMode: 'code', maxSteps: 8, continued: false }, 'p-2');
    view.emit('agent:text-delta', { runId: RUN, step: 1, delta: 'I will add them ' }, 'p-2');
    view.emit('agent:text-delta', { runId: RUN, step: 1, delta: 'in Python.' }, 'p-2');
    view.emit('agent:tool-called', { runId: RUN, step: 1, toolCallId: 'call_1', name: 'execute_python', args: { code: 'print(1 + 2)' }, pythonRunId: CALL }, 'p-2');
    view.emit('python:stdout', { runId: 'someone-else', chunk: 'not this run\n' }, 'p-2');
    view.emit('python:stdout', { runId: CALL, chunk: '3\n' }, 'p-2');
    await until('the live text and stdout', () => textOf(transcript()).includes('I will add them in Python.') && (shadow(transcript())?.querySelector('.output')?.textContent ?? '') === '3\n');
    expect(textOf(transcript())).to.contain('Sum the numbers');
    expect(textOf(transcript())).not.to.contain('not this run');
    // One turn: the record that started the run is applied once (it is in the history the panel reads too).
    expect(shadow(transcript())!.querySelectorAll('.turn').length).to.equal(1);
    expect(textOf(transcript())).not.to.contain('interrupted');
    expect(shadow(panel)!.querySelector('.where')!.textContent).to.contain(`Run ${RUN} in process p-2 (agent, pid 4242)`);
    const stop = shadow(panel)!.querySelector<HTMLButtonElement>('[data-control=stop]')!;
    expect(stop.disabled).to.equal(false);
    stop.click();
    await until('the stop call', () => view.calls.some((c) => c.name === 'stop_run'));
    expect(view.calls.find((c) => c.name === 'stop_run')!.args).to.deep.equal({ runId: RUN, process: 'p-2' });
    view.emit('agent:tool-finished', { runId: RUN, step: 1, toolCallId: 'call_1', name: 'execute_python', ok: true, durationMs: 12, result: { ok: true, value: { value: null, stdout: '3\n', stderr: '', executionTime: 9 } } }, 'p-2');
    view.emit('agent:run-finished', { runId: RUN, reason: 'aborted', steps: 1, usage: { inputTokens: 10, outputTokens: 5 } }, 'p-2');
    await until('the stopped run', () => textOf(transcript()).includes('■ stopped'));
    // A run of another process is watched here, not continued: the goal box starts a run of this system.
    expect(shadow(panel)!.querySelector('label.goal-label')!.textContent).to.equal('Goal');
    dash.remove();
  });

  it('a card renders its own system\'s snapshot, not one another process reports for a module of the same id', async () => {
    const { view, dash } = await attachedDashboard();
    const panel = dash.shadowRoot!.querySelector('agent-widget')!;
    const primary = () => shadow(panel)!.querySelector('.metrics .primary')?.textContent;
    await until('the card', () => primary() === '0 runs');
    view.emit('module:status', { id: 'Agent', status: agentSnapshot([RUN]) as never }, 'p-2');
    view.setStatus('Workspace', { files: [] });
    await (panel as unknown as { updateComplete: Promise<void> }).updateComplete;
    expect(primary(), 'p-2 runs a run; this system does not').to.equal('0 runs');
    view.setStatus('Agent', agentSnapshot([RUN]));
    await until('its own snapshot', () => primary() === 'running');
    dash.remove();
  });

  it('pages and filters the past runs by process with list_runs', async () => {
    const { view, dash } = await attachedDashboard();
    const mine = { runId: 'run-20260301-090000-aaaaaa', goal: 'from the dashboard', persona: 'default', startedAt: 1, updatedAt: Date.now(), turns: 1, steps: 1, usage: { inputTokens: 1, outputTokens: 1 }, reason: 'answered' as const, process: 'p-1' };
    const theirs = { ...mine, runId: 'run-20260301-080000-bbbbbb', goal: 'from the agent process', process: 'p-2' };
    view.setStatus('Agent', { ...agentSnapshot(), runs: [mine, theirs], moreRuns: false, examples: [] });
    view.answer('list_runs', ({ args }) => ({ runs: [mine, theirs].filter((r) => !args.process || r.process === args.process) }));
    const panel = dash.shadowRoot!.querySelector('agent-widget')!;
    await until('the past runs', () => shadow(panel)!.querySelectorAll('.runs li').length === 2);
    expect(shadow(panel)!.querySelector(`[data-run="${theirs.runId}"]`)!.textContent).to.contain('p-2 (agent, pid 4242)');
    const select = shadow(panel)!.querySelector<HTMLSelectElement>('select[data-filter=process]')!;
    select.value = 'p-2';
    select.dispatchEvent(new Event('change'));
    await until('the filtered list', () => shadow(panel)!.querySelectorAll('.runs li').length === 1);
    expect(view.calls.find((c) => c.name === 'list_runs')!.args).to.include({ process: 'p-2' });
    expect(shadow(panel)!.querySelector('.runs li')!.getAttribute('data-run')).to.equal(theirs.runId);
    dash.remove();
  });
});

// The Agent's tools as the dashboard uses them: start_run answers once the run started, stop_run
// stops it, save_agent_settings never answers a key, list_runs pages with filters. Real ToolRunner
// with the project's declarations, the library's mock model, transcripts in a workspace in memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { readManifests } from '../../src/kernel/manifests.ts';
import { nodeProjectFiles, projectRoot } from '../../src/platform/node.ts';
import type { RunSummary, TranscriptEntry } from '../../src/contracts/agent-contract.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';
import { scriptedMockModel, type MockTurn } from '../../test/helpers/mock-model.ts';
import { until } from '../../test/helpers/until.ts';
import { createToolRunner } from '../tool-runner/tool-runner.ts';
import { createWorkspace } from '../workspace/workspace.ts';
import { createAgent } from './agent.ts';
import { environmentKeys } from './keys.ts';
import { agentTools } from './run-tools.ts';
import { memorySettings } from './settings.ts';
import { agentSnapshot } from './snapshot.ts';
import { RUNS_AREA, TranscriptStore } from './transcript.ts';

async function setup(turns: MockTurn[], hold?: Promise<void>) {
  const bus = createEventBus({ historySize: 5000 });
  const persona: Persona = { id: 'tester', name: 'T', description: 't', upgrades: [], tools: ['*'], skills: [], toolMode: 'direct', model: { provider: 'openai-compatible', model: 'm', baseURL: 'http://127.0.0.1:9/v1' } };
  const runner = createToolRunner({ bus, persona });
  const workspace = await createWorkspace({ store: memoryStore(), bus });
  const area = workspace.area(RUNS_AREA);
  const transcripts = new TranscriptStore(area);
  const agent = createAgent({ runner, bus, persona, transcripts, keys: environmentKeys({}), settings: memorySettings(), process: 'p-7', modelFactory: async () => scriptedMockModel(turns, { hold: () => hold }) });
  const manifests = await readManifests(nodeProjectFiles(projectRoot));
  const tools = agentTools(agent, transcripts);
  runner.registerTools([...manifests.tools.values()].filter((d) => d.module === 'Agent'), (name, args, call) => tools[name]!(args, call));
  const call = <T>(name: string, args: Record<string, unknown>, caller = 'ui') => runner.executeTool<T>(name, args, { caller });
  return { bus, agent, area, transcripts, call, runner };
}

test('start_run answers with the run id once it started; the run streams on; stop_run stops it', async () => {
  let release!: () => void;
  const f = await setup([{ text: ['Thinking ', 'slowly'] }], new Promise<void>((r) => (release = r)));
  const started = await f.call<{ runId: string; continued: boolean }>('start_run', { goal: 'ponder' });
  assert.ok(started.ok, JSON.stringify(started));
  const { runId } = started.value;
  assert.equal(started.value.continued, false);
  assert.deepEqual(f.agent.activeRuns(), [runId], 'the tool answered while the run goes on');
  assert.deepEqual(agentSnapshot(f.agent).active, [runId]);
  const refused = await f.call('stop_run', { runId }, 'agent');
  assert.equal(!refused.ok && refused.error.code, 'PERSON_ONLY');
  const stopped = await f.call<{ stopped: boolean }>('stop_run', { runId, process: 'p-7' });
  assert.ok(stopped.ok && stopped.value.stopped);
  release();
  await until('the run to end', () => f.bus.history(['agent:run-finished']).length === 1);
  assert.equal(f.bus.history(['agent:run-finished'])[0]!.payload.reason, 'aborted');
  const again = await f.call('stop_run', { runId });
  assert.equal(!again.ok && again.error.code, 'RUN_NOT_RUNNING');
  assert.match(!again.ok ? again.hint! : '', /list_runs \{ "status": "running" \}/);
  const transcript = f.agent.readRun(runId)!;
  assert.equal((transcript[0] as Extract<TranscriptEntry, { type: 'started' }>).process, 'p-7', 'the process is recorded in the transcript');
});

test('a run refused before it starts answers its error; a follow-up continues a finished run', async () => {
  const f = await setup([{ text: 'one' }, { text: 'two' }]);
  const missing = await f.call('start_run', { goal: 'go on', runId: 'run-20990101-000000-abcdef' });
  assert.equal(!missing.ok && missing.error.code, 'RUN_NOT_FOUND');
  assert.match(!missing.ok ? missing.hint! : '', /list_runs/);
  const first = await f.call<{ runId: string }>('start_run', { goal: 'hello' });
  assert.ok(first.ok);
  await until('the first turn', () => f.bus.history(['agent:run-finished']).length === 1);
  const next = await f.call<{ runId: string; continued: boolean }>('start_run', { goal: 'and then?', runId: first.value.runId });
  assert.ok(next.ok);
  assert.deepEqual(next.value, { runId: first.value.runId, continued: true });
  const bad = await f.call('start_run', { goal: 'x', runId: 'not a run' });
  assert.equal(!bad.ok && bad.error.code, 'INVALID_RUN_ID');
});

test('save_agent_settings saves the model, answers the settings without a key, and refuses a key in Node', async () => {
  const f = await setup([]);
  const saved = await f.call<Record<string, unknown>>('save_agent_settings', { model: { provider: 'openai', model: 'gpt-x' } });
  assert.ok(saved.ok);
  assert.deepEqual(saved.value.model, { provider: 'openai', model: 'gpt-x' });
  assert.equal(saved.value.source, 'settings');
  const key = await f.call('save_agent_settings', { apiKey: 'sk-node-secret-0123456789' });
  assert.equal(!key.ok && key.error.code, 'KEYS_FROM_ENVIRONMENT');
  assert.doesNotMatch(JSON.stringify(key) + JSON.stringify(f.bus.history()), /sk-node-secret/);
  const forgot = await f.call<Record<string, unknown>>('save_agent_settings', { model: null });
  assert.ok(forgot.ok && forgot.value.source === 'persona');
  assert.equal((await f.call('save_agent_settings', { model: { provider: 'nope', model: 'x' } })).ok, false);
});

test('list_runs pages newest first with filters by status, persona and process; 1,000 runs are each read once', async () => {
  const f = await setup([]);
  const day = (i: number) => `run-20260101-${String(100000 + i).slice(1)}-aaaaaa`;
  for (let i = 0; i < 1000; i++) {
    const started: TranscriptEntry = { type: 'started', at: i, runId: day(i), goal: `goal ${i}`, persona: i % 2 ? 'odd' : 'even', ...(i % 10 === 0 ? { process: 'p-1' } : {}), toolMode: 'direct', maxSteps: 8, continued: false };
    const finished: TranscriptEntry = { type: 'finished', at: i + 1, reason: i % 3 ? 'answered' : 'error', steps: 1, usage: { inputTokens: 1, outputTokens: 1 } };
    await f.area.append(`${day(i)}.jsonl`, `${JSON.stringify(started)}\n${JSON.stringify(finished)}\n`);
  }
  type Page = { runs: RunSummary[]; next_cursor?: string };
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const r = await f.call<Page>('list_runs', { limit: 100, ...(cursor ? { cursor } : {}) }, 'agent');
    assert.ok(r.ok, JSON.stringify(r));
    seen.push(...r.value.runs.map((x) => x.runId));
    cursor = r.value.next_cursor;
    pages++;
  } while (cursor);
  assert.equal(pages, 10);
  assert.equal(seen.length, 1000);
  assert.equal(seen[0], day(999), 'newest first');
  assert.equal(new Set(seen).size, 1000, 'no run twice');

  let reads = 0;
  const read = f.transcripts.read.bind(f.transcripts);
  f.transcripts.read = (id) => (reads++, read(id));
  const filtered = await f.call<Page>('list_runs', { persona: 'odd', status: 'error', process: 'p-1', limit: 5 });
  assert.ok(filtered.ok);
  assert.equal(reads, 0, 'every summary came from the cache');
  for (const r of filtered.value.runs) assert.ok(r.persona === 'odd' && r.reason === 'error' && r.process === 'p-1');
  const expected = [...Array(1000).keys()].reverse().filter((i) => i % 2 === 1 && i % 3 === 0 && i % 10 === 0).slice(0, 5).map(day);
  assert.deepEqual(filtered.value.runs.map((r) => r.runId), expected);
  const bad = await f.call('list_runs', { cursor: 'garbage' });
  assert.equal(!bad.ok && bad.error.code, 'INVALID_CURSOR');
  const old = await f.call<Page>('list_runs', {});
  assert.ok(old.ok && old.value.runs.length === 20, 'without arguments: the 20 newest, as before');
});

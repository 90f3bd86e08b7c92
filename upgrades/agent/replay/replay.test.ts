// Record and replay through the agent, with the provider library's mock model as the recorded
// model: a real ToolRunner whose tool answers what the test says, a real workspace in memory. A
// replay makes no model at all (its factory throws); the CLI and the shipped examples are covered
// in test/e2e/replay-cli.test.ts and test/e2e/examples.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus } from '../../../src/kernel/event-bus.ts';
import type { Persona } from '../../../src/kernel/manifest-schemas.ts';
import { memoryStore } from '../../../test/helpers/memory-platform.ts';
import { scriptedMockModel, type MockTurn } from '../../../test/helpers/mock-model.ts';
import { createToolRunner } from '../../tool-runner/tool-runner.ts';
import { createWorkspace } from '../../workspace/workspace.ts';
import type { RunResult } from '../../../src/contracts/agent-contract.ts';
import { createAgent } from '../agent.ts';
import { environmentKeys } from '../keys.ts';
import { memorySettings } from '../settings.ts';
import { TranscriptStore } from '../transcript.ts';
import { parseRecording, RECORDING_VERSION } from '../../../src/contracts/recording-format.ts';

const KEY = 'sk-recorded-secret-0123456789';

/** An agent whose tool `count_words` answers `answer()`; recordings are kept in `files`. */
async function setup(answer: () => unknown, turns: MockTurn[] = [], seed: Record<string, string> = {}) {
  const bus = createEventBus({ historySize: 5000 });
  const persona: Persona = { id: 'tester', name: 'T', description: 't', upgrades: ['ToolRunner'], tools: ['*'], skills: [], toolMode: 'direct' };
  const runner = createToolRunner({ bus, persona });
  runner.registerTools(
    [{ name: 'count_words', module: 'Text', description: 'Count the words of a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, pythonCallable: true }],
    async () => answer(),
  );
  const workspace = await createWorkspace({ store: memoryStore(), bus });
  for (const [path, content] of Object.entries(seed)) await workspace.write(path, content);
  const files = new Map<string, string>();
  let made = 0;
  // One model for the whole run: its script goes on across turns.
  const model = scriptedMockModel(turns);
  const agent = createAgent({
    runner,
    bus,
    persona,
    transcripts: new TranscriptStore(workspace.area('runs')),
    keys: environmentKeys({ OPENAI_API_KEY: KEY }),
    settings: memorySettings(),
    modelFactory: async () => {
      made++;
      return model;
    },
    loadRecording: async (name) => parseRecording(files.get(name) ?? '', name),
    workspace,
    maxRetries: 0,
  });
  const sink = (name: string, header = {}) => ({ header, write: (line: string) => void files.set(name, (files.get(name) ?? '') + line) });
  return { agent, files, sink, workspace, bus, made: () => made };
}

const SCRIPT: MockTurn[] = [
  { text: 'Counting.', toolCalls: [{ id: 'call_1', name: 'count_words', args: { path: 'notes.txt' } }], usage: { input: 50, output: 5 } },
  // A model that echoes the key: the recording must not keep it.
  { text: `There are 3 words (key ${KEY}).`, usage: { input: 60, output: 6 } },
];
const REPLAY = { provider: 'replay' as const, model: 'run.jsonl' };

test('--record keeps the model\'s side: a header, the goal, each request\'s digests and new messages, the streamed answer; no key', async () => {
  const s = await setup(() => ({ words: 3, at: Date.now() }), SCRIPT);
  const run = await s.agent.run({ goal: 'Count the words of notes.txt', model: { provider: 'openai', model: 'gpt-test' }, record: s.sink('run.jsonl', { title: 'Count words', label: 'recorded with the mock model' }) });
  assert.equal(run.reason, 'answered', JSON.stringify(run.error));
  const text = s.files.get('run.jsonl')!;
  assert.ok(!text.includes(KEY), 'the key is masked');
  const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(lines.map((l) => l.type), ['recording', 'turn', 'step', 'step']);
  assert.deepEqual([lines[0]!.version, lines[0]!.run, lines[0]!.persona, lines[0]!.title, lines[0]!.label, lines[0]!.model], [RECORDING_VERSION, run.runId, 'tester', 'Count words', 'recorded with the mock model', { provider: 'openai', model: 'gpt-test' }]);
  const [, , first, second] = lines as { request: { digest: string; system: string; messages: { role: string; content: { type: string; output?: { value: unknown } }[] }[] }; response: { type: string; delta?: string; toolName?: string }[]; step: number }[];
  assert.match(first!.request.digest, /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual(first!.request.messages, [{ role: 'user', content: [{ type: 'text', text: 'Count the words of notes.txt' }] }]);
  assert.deepEqual(first!.response.filter((p) => p.type === 'text-delta').map((p) => p.delta).join(''), 'Counting.');
  assert.deepEqual(first!.response.filter((p) => p.type === 'tool-call').map((p) => p.toolName), ['count_words']);
  // The second request: the tool result the model read, as it read it.
  assert.equal(second!.step, 2);
  assert.deepEqual(second!.request.messages.map((m) => m.role), ['tool']);
  assert.equal((second!.request.messages[0]!.content[0]!.output!.value as { value: { words: number } }).value.words, 3);
  assert.ok(second!.response.some((p) => p.type === 'finish'));
});

test('--record masks a key the model echoes split across streamed pieces: the file holds no key, the replay says the same', async () => {
  const split = [`Echo: ${KEY.slice(0, 6)}`, KEY.slice(6, 15), `${KEY.slice(15)} and `, KEY.slice(0, 5), `${KEY.slice(5)}.`];
  const s = await setup(() => ({}), [{ text: split }]);
  const run = await s.agent.run({ goal: 'Echo', model: { provider: 'openai', model: 'gpt-test' }, record: s.sink('run.jsonl') });
  assert.equal(run.reason, 'answered', JSON.stringify(run.error));
  assert.equal(run.answer, 'Echo: [redacted key] and [redacted key].');
  const text = s.files.get('run.jsonl')!;
  const step = text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; response?: { type: string; delta?: string }[] }).find((l) => l.type === 'step')!;
  const deltas = step.response!.filter((p) => p.type === 'text-delta').map((p) => p.delta).join('');
  assert.equal(deltas, 'Echo: [redacted key] and [redacted key].');
  const replayed = await setup(() => ({}));
  replayed.files.set('run.jsonl', text);
  assert.equal((await replayed.agent.run({ goal: 'Echo', model: REPLAY })).answer, 'Echo: [redacted key] and [redacted key].');
});

test('--replay plays it back with no model and no key: the same answer, the same tool calls; volatile values do not count', async () => {
  const recorder = await setup(() => ({ words: 3, at: 1 }), SCRIPT);
  await recorder.agent.run({ goal: 'Count the words of notes.txt', model: { provider: 'openai', model: 'gpt-test' }, record: recorder.sink('run.jsonl') });
  const s = await setup(() => ({ words: 3, at: 999 }));
  s.files.set('run.jsonl', recorder.files.get('run.jsonl')!);
  const run = await s.agent.run({ goal: 'Count the words of notes.txt', model: REPLAY });
  assert.equal(run.reason, 'answered', JSON.stringify(run.error));
  assert.equal(run.answer, 'There are 3 words (key [redacted key]).');
  assert.deepEqual(run.toolCalls.map((c) => [c.name, c.args]), [['count_words', { path: 'notes.txt' }]]);
  assert.deepEqual(run.usage, { inputTokens: 110, outputTokens: 11 });
  assert.deepEqual(run.replay, { recording: 'run.jsonl', turn: 1, turns: 1, notes: [] });
  assert.equal(s.made(), 0, 'no model was made');
  const started = s.agent.readRun(run.runId)![0] as { model?: unknown };
  assert.deepEqual(started.model, REPLAY);
});

test('a tool that answers differently: the replay stops at that step, naming the call and both values', async () => {
  const recorder = await setup(() => ({ words: 3 }), SCRIPT);
  await recorder.agent.run({ goal: 'Count the words of notes.txt', model: { provider: 'openai', model: 'gpt-test' }, record: recorder.sink('run.jsonl') });
  const s = await setup(() => ({ words: 4 }));
  s.files.set('run.jsonl', recorder.files.get('run.jsonl')!);
  const run: RunResult = await s.agent.run({ goal: 'Count the words of notes.txt', model: REPLAY });
  assert.equal(run.reason, 'error');
  assert.equal(run.error!.code, 'REPLAY_DIVERGED');
  assert.equal(run.error!.message, '[agent] the replay of run.jsonl diverged at step 2: the result of count_words (call call_1) differs at $.value.words: recorded 3, now 4');
  assert.deepEqual(run.error!.details, { turn: 1, step: 2, path: '$[0].content[0].output.value.value.words', recorded: 3, actual: 4 });
  assert.match(run.error!.hint!, /replay it into a fresh workspace/);
  // Another goal diverges at once, at the first step.
  const other = await s.agent.run({ goal: 'Count the words of other.txt', model: REPLAY });
  assert.match(other.error!.message, /diverged at step 1: the goal differs: recorded "Count the words of notes\.txt", now "Count the words of other\.txt"/);
});

test('a follow-up is recorded as a second turn of the same file; replaying goes turn by turn and says when the recording is over', async () => {
  const turns: MockTurn[] = [...SCRIPT, { text: 'Still 3.' }];
  const recorder = await setup(() => ({ words: 3 }), turns);
  const first = await recorder.agent.run({ goal: 'Count the words of notes.txt', model: { provider: 'openai', model: 'gpt-test' }, record: recorder.sink('run.jsonl') });
  await recorder.agent.run({ goal: 'And now?', runId: first.runId, model: { provider: 'openai', model: 'gpt-test' }, record: recorder.sink('run.jsonl') });
  const recording = parseRecording(recorder.files.get('run.jsonl')!, 'run.jsonl');
  assert.deepEqual(recording.turns.map((t) => [t.goal, t.steps.map((x) => x.step)]), [['Count the words of notes.txt', [1, 2]], ['And now?', [3]]]);

  const s = await setup(() => ({ words: 3 }));
  s.files.set('run.jsonl', recorder.files.get('run.jsonl')!);
  const one = await s.agent.run({ goal: 'Count the words of notes.txt', model: REPLAY });
  const two = await s.agent.run({ goal: 'And now?', runId: one.runId, model: REPLAY });
  assert.deepEqual([two.reason, two.answer, two.replay?.turn, two.replay?.turns], ['answered', 'Still 3.', 2, 2]);
  const three = await s.agent.run({ goal: 'More?', runId: one.runId, model: REPLAY });
  assert.equal(three.error!.code, 'REPLAY_OVER');
});

test('a replay writes the files its recording starts from, and refuses a workspace where one differs', async () => {
  const recorder = await setup(() => ({ words: 3 }), SCRIPT);
  await recorder.agent.run({ goal: 'Count the words of notes.txt', model: { provider: 'openai', model: 'gpt-test' }, record: recorder.sink('run.jsonl', { workspace: { files: [{ path: 'notes.txt', content: 'a b c' }] } }) });
  const fresh = await setup(() => ({ words: 3 }));
  fresh.files.set('run.jsonl', recorder.files.get('run.jsonl')!);
  assert.equal((await fresh.agent.run({ goal: 'Count the words of notes.txt', model: REPLAY })).reason, 'answered');
  assert.equal(fresh.workspace.readText('notes.txt'), 'a b c');
  const mine = await setup(() => ({ words: 3 }), [], { 'notes.txt': 'my own notes' });
  mine.files.set('run.jsonl', recorder.files.get('run.jsonl')!);
  const refused = await mine.agent.run({ goal: 'Count the words of notes.txt', model: REPLAY });
  assert.equal(refused.error!.code, 'REPLAY_WORKSPACE_DIFFERS');
  assert.equal(mine.workspace.readText('notes.txt'), 'my own notes', 'nothing of yours is overwritten');
});

test('a recording that is not one is refused naming the line', () => {
  assert.throws(() => parseRecording('{"type":"recording","format":"armature-recording","version":2}', 'x.jsonl'), /x\.jsonl is armature-recording version 2; this Armature reads version 1/);
  assert.throws(() => parseRecording('{"type":"recording","format":"armature-recording","version":1,"run":"r","recordedAt":"t","persona":"p","toolMode":"code"}\nnot json', 'x.jsonl'), /x\.jsonl:2: not JSON/);
  assert.throws(() => parseRecording('{"hello":1}', 'x.jsonl'), /x\.jsonl:1: the first line is not a armature-recording header/);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createEventBus } from '../event-bus.ts';
import { tempDir } from '../../../test/helpers/temp-dir.ts';
import { openJournal } from './journal-writer.ts';
import { ProcessTail } from './process-tail.ts';
import { segmentName } from './journal-layout.ts';
import { relayControl } from './attach.ts';
import { sendControl } from './control.ts';

test('the journal holds the bus events in order, the history first, and its presence says who and when it ended', () => {
  const dataDir = tempDir('journal');
  const bus = createEventBus();
  bus.emit('workspace:written', { path: 'before.txt', size: 1, mtime: 1 });
  const journal = openJournal({ dataDir, persona: 'default', command: 'agent', bus, env: {} });
  bus.emit('tool:started', { callId: 'c1', name: 'read_file', caller: 'agent' });
  bus.emit('tool:finished', { callId: 'c1', name: 'read_file', caller: 'agent', ok: true, durationMs: 2 });
  journal.flush();
  const tail = new ProcessTail(journal.folder, 1 << 20);
  assert.deepEqual(tail.read().map((r) => r.type), ['workspace:written', 'tool:started', 'tool:finished']);
  const presence = JSON.parse(readFileSync(join(journal.folder, 'process.json'), 'utf8'));
  assert.deepEqual([presence.pid, presence.command, presence.persona, presence.endedAt], [process.pid, 'agent', 'default', undefined]);
  assert.equal(journal.info.id, presence.id);
  journal.dispose();
  bus.emit('tool:started', { callId: 'c2', name: 'late', caller: 'agent' });
  assert.equal(typeof JSON.parse(readFileSync(join(journal.folder, 'process.json'), 'utf8')).endedAt, 'number');
  assert.deepEqual(tail.read().map((r) => r.type), [], 'nothing after the end');
});

test('a lone event is on disk at the next turn; a burst is written whole and in bus order', async () => {
  const dataDir = tempDir('journal-timing');
  const bus = createEventBus({ historySize: 0 });
  const journal = openJournal({ dataDir, persona: 'default', bus, env: {} });
  const tail = new ProcessTail(journal.folder, 1 << 20);
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  // Nothing was written before it: the dashboard sees it without waiting for a batch.
  bus.emit('python:stdout', { runId: 'r', chunk: 'lone\n' });
  await turn();
  assert.deepEqual(tail.read().map((r) => (r.payload as { chunk: string }).chunk), ['lone\n']);
  const seen: string[] = [];
  for (let i = 0; i < 1000; i++) bus.emit('python:stdout', { runId: 'r', chunk: `${i}\n` });
  const until = Date.now() + 10_000;
  while (seen.length < 1000 && Date.now() < until) {
    seen.push(...tail.read().map((r) => (r.payload as { chunk: string }).chunk));
    await turn();
  }
  assert.deepEqual(seen, Array.from({ length: 1000 }, (_, i) => `${i}\n`));
  journal.dispose();
});

test('a burst written at once still ends each segment at its bound', () => {
  const dataDir = tempDir('journal-burst-rotate');
  const bus = createEventBus({ historySize: 0 });
  const journal = openJournal({ dataDir, persona: 'default', bus, segmentBytes: 2000, segments: 100, env: {} });
  const tail = new ProcessTail(journal.folder, 1 << 20);
  for (let i = 0; i < 200; i++) bus.emit('python:stdout', { runId: 'r', chunk: `line ${i}\n` });
  journal.flush();
  const files = readdirSync(journal.folder).filter((n) => n.startsWith('journal-')).sort();
  assert.ok(files.length > 5, files.join(' '));
  for (const f of files) assert.ok(readFileSync(join(journal.folder, f)).byteLength <= 2000, `${f} passes the bound`);
  assert.deepEqual(tail.read().map((r) => (r.payload as { chunk: string }).chunk), Array.from({ length: 200 }, (_, i) => `line ${i}\n`));
  journal.dispose();
});

test('segments rotate at their size bound and the oldest go; a reader behind follows to what is left', () => {
  const dataDir = tempDir('journal-rotate');
  const bus = createEventBus({ historySize: 0 });
  const journal = openJournal({ dataDir, persona: 'default', bus, segmentBytes: 2000, segments: 3, env: {} });
  const tail = new ProcessTail(journal.folder, 1 << 20);
  const seen: number[] = [];
  for (let i = 0; i < 200; i++) {
    bus.emit('python:stdout', { runId: 'r', chunk: `line ${i}\n` });
    journal.flush();
    if (i < 20) seen.push(...tail.read().map((r) => Number((r.payload as { chunk: string }).chunk.split(' ')[1])));
  }
  const files = readdirSync(journal.folder).filter((n) => n.startsWith('journal-'));
  assert.equal(files.length, 3, files.join(' '));
  seen.push(...tail.read().map((r) => Number((r.payload as { chunk: string }).chunk.split(' ')[1])));
  // The reader saw the first 20 at once, then lost what was deleted before it looked again, and resumed in order.
  assert.deepEqual(seen.slice(0, 20), [...Array(20).keys()]);
  assert.equal(seen.at(-1), 199);
  assert.ok(seen.every((n, i) => i === 0 || n > seen[i - 1]!), 'in order, no repeats');
  journal.dispose();
});

test('a torn last line waits for its end; torn by a crash before the next segment, it is dropped; a garbled line is skipped', () => {
  const dataDir = tempDir('journal-torn');
  const bus = createEventBus({ historySize: 0 });
  const journal = openJournal({ dataDir, persona: 'default', bus, env: {} });
  journal.dispose();
  const folder = journal.folder;
  const line = (seq: number) => JSON.stringify({ type: 'tool:started', payload: { callId: `c${seq}`, name: 't', caller: 'ui' }, at: seq, seq });
  const tail = new ProcessTail(folder, 1 << 20);
  tail.read();
  const first = join(folder, segmentName(1));
  appendFileSync(first, `${line(1)}\n${line(2).slice(0, 20)}`);
  assert.deepEqual(tail.read().map((r) => r.seq), [1]);
  appendFileSync(first, `${line(2).slice(20)}\nnot json at all\n{"half": true}\n${line(3).slice(0, 30)}`);
  assert.deepEqual(tail.read().map((r) => r.seq), [2]);
  assert.equal(tail.skipped, 2);
  appendFileSync(join(folder, segmentName(2)), `${line(4)}\n`);
  assert.deepEqual(tail.read().map((r) => r.seq), [4], 'the torn line 3 is gone');
});

test('secret values of the environment never reach the journal, raw or JSON-escaped', () => {
  const dataDir = tempDir('journal-secret');
  const bus = createEventBus({ historySize: 0 });
  const key = 'sk-JOURNAL-secret-"quoted"-12345';
  const journal = openJournal({ dataDir, persona: 'default', bus, env: { OPENAI_API_KEY: key, HOME: '/home/someone-long' } });
  bus.emit('python:stdout', { runId: 'r', chunk: `the key is ${key}\n` });
  bus.emit('python:stdout', { runId: 'r', chunk: 'home is /home/someone-long\n' });
  journal.flush();
  const text = readFileSync(join(journal.folder, segmentName(1)), 'utf8');
  assert.ok(!text.includes('JOURNAL-secret'), text);
  assert.match(text, /the key is \[masked\]/);
  assert.match(text, /home is \/home\/someone-long/, 'ordinary variables stay');
  journal.dispose();
});

test('a control request is answered by the process it was left for: stop_run through the Agent, other tools refused', async () => {
  const dataDir = tempDir('journal-control');
  const bus = createEventBus({ historySize: 0 });
  const aborted: string[] = [];
  const host = { tools: () => undefined, resolve: async () => ({ abort: (id?: string) => aborted.push(String(id)), activeRuns: () => ['run-1'] }) };
  const journal = openJournal({ dataDir, persona: 'default', bus, env: {}, control: relayControl(host) });
  const stopped = await sendControl(journal.folder, 'stop_run', { runId: 'run-1' }, 3000);
  assert.deepEqual(stopped.ok && stopped.value, { runId: 'run-1', stopped: true });
  assert.deepEqual(aborted, ['run-1']);
  const refused = await sendControl(journal.folder, 'approve_change', { id: 'c1' }, 3000);
  assert.equal(!refused.ok && refused.error.code, 'NOT_RELAYED');
  assert.deepEqual(readdirSync(join(journal.folder, 'control')), [], 'requests and answers are cleaned up');
  journal.dispose();
  const gone = await sendControl(journal.folder, 'stop_run', { runId: 'run-1' }, 300);
  assert.equal(!gone.ok && gone.error.code, 'PROCESS_UNRESPONSIVE');
  assert.ok(existsSync(journal.folder));
});

// The worker's output attribution over a real shared ring (read back with the host's reader);
// the port only records what would be posted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOutputRing, OUTPUT_KIND, OutputRingReader } from '../../../src/bridge/output-ring.ts';
import type { WorkerMessage } from '../protocol/protocol.ts';
import { WorkerOutput } from './output.ts';

function setup() {
  const posted: WorkerMessage[] = [];
  const output = new WorkerOutput({ post: (m) => void posted.push(m), listen: () => undefined });
  const ring = createOutputRing(64 * 1024);
  output.configure(16, ring);
  const reader = new OutputRingReader(ring);
  const read = () => {
    const records: string[] = [];
    reader.drain((kind, payload) => {
      const text = new TextDecoder().decode(payload.slice());
      records.push(kind === OUTPUT_KIND.mark ? `mark ${JSON.parse(text).runId}` : `${kind === OUTPUT_KIND.stdout ? 'out' : 'err'} ${text}`);
    }, Infinity);
    return records;
  };
  return { output, posted, read };
}

test('a run that prints nothing leaves nothing in the ring and rings no doorbell', () => {
  const { output, posted, read } = setup();
  for (let i = 0; i < 3; i++) {
    output.setRun({ id: `run-${i}`, runId: `py-${i}` });
    output.setRun(undefined);
  }
  assert.deepEqual(read(), []);
  assert.deepEqual(posted, []);
});

test('output is marked with its owner once, before its first bytes, and start-up output comes back to init', () => {
  const { output, posted, read } = setup();
  const bytes = (s: string) => new TextEncoder().encode(s);
  output.setRun({ id: 'run-1', runId: 'py-1' });
  output.setRun(undefined);
  output.setRun({ id: 'run-2', runId: 'py-2' });
  output.write('stdout', bytes('a'));
  output.write('stderr', bytes('b'));
  output.setRun(undefined);
  output.setRun({ id: 'run-3', runId: 'py-3' });
  output.setRun(undefined);
  output.write('stdout', bytes('late'));
  output.setRun({ id: 'run-4', runId: 'py-4' });
  output.write('stdout', bytes('c'));
  assert.deepEqual(read(), ['mark py-2', 'out a', 'err b', 'mark init', 'out late', 'mark py-4', 'out c']);
  assert.ok(posted.every((m) => m.type === 'output-ready'), 'with a ring, output is never posted as stream messages');
});

// A confined child started before anyone listens (as Python's child is, ahead of boot): what it
// said and how it ended wait for the handlers, and nothing is lost or reported twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadNiceness } from '../platform/proc/linux-proc.ts';
import { spawnConfinedChild } from './confined-child.ts';
import type { TransportExit } from './transport.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { until } from '../../test/helpers/until.ts';

/** A child entry in `dir` running `body` with `channel` (fd 3) and `frame(value)` (a frame of it) at hand. */
function childEntry(body: string, dir = tempDir('confined-child')): string {
  const file = join(dir, 'child.mjs');
  writeFileSync(
    file,
    `import { Socket } from 'node:net';
import { serialize } from 'node:v8';
const channel = new Socket({ fd: 3, readable: true, writable: true });
const frame = (v) => { const b = serialize(v); const h = Buffer.alloc(4); h.writeUInt32BE(b.length); return Buffer.concat([h, b]); };
${body}
`,
  );
  return file;
}

/** A child entry that says `count` frames on fd 3 at once, then exits with `code` (or stays, if undefined). */
function entry(count: number, code?: number): string {
  return childEntry(`for (let i = 0; i < ${count}; i++) channel.write(frame({ hello: i }));
${code === undefined ? "channel.on('close', () => process.exit(0));" : `channel.end(() => process.exit(${code}));`}`);
}

const options = (file: string) => ({ entry: file, heapMb: 64, rssLimitMb: 512, maxFrameBytes: 1024 });

test('messages and the exit of a child that spoke and ended before anyone listened reach the first handlers, once', async () => {
  const child = spawnConfinedChild(options(entry(2, 3)));
  await until('the child to end', () => child.ended);
  const got: unknown[] = [];
  const exits: TransportExit[] = [];
  child.onMessage((raw) => got.push(raw));
  child.onExit((e) => exits.push(e));
  // Frames may still be in the pipe when the exit is seen: they come to the handler as they arrive.
  await until('both messages', () => got.length >= 2);
  assert.deepEqual(got, [{ hello: 0 }, { hello: 1 }]);
  assert.equal(exits.length, 1);
  assert.match(exits[0]!.detail, /code 3/);
  // A handler set later gets nothing again.
  const again: unknown[] = [];
  child.onMessage((raw) => again.push(raw));
  child.onExit((e) => exits.push(e));
  assert.deepEqual(again, []);
  assert.equal(exits.length, 1);
});

test('a child that says too much before its host listens is stopped, and says why', async () => {
  const child = spawnConfinedChild(options(entry(100)));
  await until('the child to be stopped', () => child.ended);
  const exits: TransportExit[] = [];
  child.onExit((e) => exits.push(e));
  assert.equal(exits.length, 1);
  assert.match(exits[0]!.detail, /over 64 messages before its host listened/);
});

test('a confined child and the threads it starts run below the host (niceness 10), unless told otherwise', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const dir = tempDir('confined-child-nice');
  const worker = join(dir, 'worker.mjs');
  writeFileSync(worker, 'setInterval(() => {}, 1000);\n');
  const file = childEntry(
    `const { Worker } = await import('node:worker_threads');
new Worker(${JSON.stringify(worker)}).on('online', () => channel.write(frame({ online: true })));
channel.on('close', () => process.exit(0));`,
    dir,
  );
  const host = (await import('node:os')).getPriority();
  for (const [niceness, expected] of [[undefined, Math.max(10, host)], [0, host]] as const) {
    const child = spawnConfinedChild({ ...options(file), read: [worker], workers: true, ...(niceness === undefined ? {} : { niceness }) });
    try {
      const got: unknown[] = [];
      child.onMessage((m) => got.push(m));
      await until('the worker thread to start', () => got.length > 0);
      const nice = threadNiceness(child.pid!);
      assert.ok(nice.length >= 2, `the child's threads: ${nice.length}`);
      assert.deepEqual([...new Set(nice)], [expected], `every thread, its worker's among them (${nice.join(' ')})`);
    } finally {
      await child.terminate();
    }
  }
});

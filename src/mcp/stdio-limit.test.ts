import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idOf, LineLimit } from './stdio-limit.ts';

/** Feeds `chunks` through a LineLimit of `max` bytes; the lines passed on and the refusals written. */
async function through(chunks: string[], max: number): Promise<{ passed: string[]; refused: { id: unknown; error: { code: number; message: string } }[] }> {
  const refused: { id: unknown; error: { code: number; message: string } }[] = [];
  const limit = new LineLimit((answer) => void refused.push(JSON.parse(answer)), max);
  const passed: string[] = [];
  for (const c of chunks) limit.feed(Buffer.from(c), (b) => passed.push(b.toString('utf8')));
  return { passed, refused };
}

test('a chunk of whole lines passes as it came, uncopied', async () => {
  const chunk = Buffer.from('{"id":1}\n{"id":2}\n');
  const passed: Buffer[] = [];
  new LineLimit(() => assert.fail('refused'), 100).feed(chunk, (b) => void passed.push(b));
  assert.equal(passed.length, 1);
  assert.equal(passed[0]!.buffer, chunk.buffer, 'the same memory');
  assert.equal(passed[0]!.length, chunk.length);
});

test('lines up to the limit pass whole, however they are cut into chunks', async () => {
  const { passed, refused } = await through(['{"id":1}\n{"i', 'd":2', '}\n'], 8);
  assert.deepEqual(passed.join(''), '{"id":1}\n{"id":2}\n');
  assert.deepEqual(refused, []);
});

test('a longer line is dropped, never held whole, and refused with its size, the limit and its id; the next line passes', async () => {
  const big = `{"method":"tools/call","params":{"name":"${'x'.repeat(5000)}"},"jsonrpc":"2.0","id":7}`;
  const cut = big.match(/.{1,300}/gs)!;
  const { passed, refused } = await through([...cut, '\n{"id":8}\n'], 1000);
  assert.deepEqual(passed.join(''), '{"id":8}\n');
  assert.equal(refused.length, 1);
  assert.equal(refused[0]!.id, 7);
  assert.equal(refused[0]!.error.code, -32600);
  assert.match(refused[0]!.error.message, new RegExp(`the message is ${big.length} bytes; messages have at most 1000 bytes`));
});

test("the id of a dropped line is found at its start or end, else it is null", () => {
  assert.equal(idOf('{"jsonrpc":"2.0","id":"a-1","method":"x"', 'zzz"}}'), 'a-1');
  assert.equal(idOf('{"method":"x"', ',"jsonrpc":"2.0","id":42}'), 42);
  assert.equal(idOf('{"method":"x"', 'zzzz"}}'), null);
});

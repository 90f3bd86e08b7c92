// The terminal responder over a scripted terminal (two streams): it shows the server's request
// without control characters, asks each field with its type, default and choices, asks again
// after a value a field cannot take, and sends, declines or cancels as the person says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { ElicitationRequest } from '../../contracts/mcp-client-contract.ts';
import { parseField, terminalResponder } from './elicitation-prompt.ts';

const request: ElicitationRequest = {
  id: 'elicit-1',
  server: 'everything',
  message: 'Please \u001b[31mprovide\u001b[0m inputs\nfor these:',
  mode: 'form',
  schema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', description: 'Your full name' },
      agree: { type: 'boolean', title: 'Agree' },
      colour: { type: 'string', enum: ['red', 'green'] },
      count: { type: 'integer', minimum: 1, maximum: 5, default: 2 },
    },
    required: ['name', 'agree'],
  },
  expiresAt: Date.now() + 60_000,
};

/** Answers `lines` one by one as the responder asks; resolves with its answer and what it wrote. */
async function converse(lines: string[], signal = new AbortController().signal) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d) => {
    shown += d;
    // Each question ends with ": "; answer it with the next line.
    if (/: $/.test(shown) && lines.length) input.write(`${lines.shift()}\n`);
  });
  const answer = await terminalResponder(input, output)(request, signal);
  return { answer, shown };
}

test('a form is asked field by field and sent; defaults fill empty answers; bad values are asked again', async () => {
  const { answer, shown } = await converse(['', 'Ada', 'maybe', 'y', 'blue', 'red', '', 'y']);
  assert.deepEqual(answer, { action: 'accept', content: { name: 'Ada', agree: true, colour: 'red', count: 2 } });
  assert.match(shown, /\[mcp\] everything asks: Please +\[31mprovide +\[0m inputs for these:\n/);
  assert.doesNotMatch(shown, /\u001b/, 'no escape sequence reaches the terminal');
  assert.match(shown, /Name — Your full name \(string, required\): +This one is required\./);
  assert.match(shown, /Agree \(boolean, required\): +It takes yes or no\./);
  assert.match(shown, /colour \(red\/green, optional\): +It takes one of red, green\./);
  assert.match(shown, /count \(integer, default 2\): /);
});

test('decline and cancel are the person\'s to say; a withdrawn request stops asking', async () => {
  assert.deepEqual((await converse(['Ada', 'n', '', '', 'd'])).answer, { action: 'decline' });
  assert.deepEqual((await converse(['Ada', 'n', '', '', 'c'])).answer, { action: 'cancel' });
  const controller = new AbortController();
  const input = new PassThrough();
  const pending = terminalResponder(input, new PassThrough())(request, controller.signal);
  controller.abort('timeout');
  await assert.rejects(pending, /withdrawn/);
});

test('values are parsed by the field\'s type and bounds', () => {
  assert.deepEqual(parseField({ type: 'integer', minimum: 1 }, '0'), { error: 'at least 1' });
  assert.deepEqual(parseField({ type: 'integer' }, '2.5'), { error: 'a whole number' });
  assert.deepEqual(parseField({ type: 'number' }, '2.5'), { value: 2.5 });
  assert.deepEqual(parseField({ type: 'boolean' }, 'No'), { value: false });
  assert.deepEqual(parseField({ type: 'string', maxLength: 2 }, 'abc'), { error: 'at most 2 characters' });
  assert.deepEqual(parseField({ type: 'string', oneOf: [{ const: 'a', title: 'A' }, { const: 'b', title: 'B' }] }, 'b'), { value: 'b' });
  assert.deepEqual(parseField({ type: 'array', items: { type: 'string', enum: ['x', 'y', 'z'] } }, 'x, z'), { value: ['x', 'z'] });
  assert.deepEqual(parseField({ type: 'array', items: { anyOf: [{ const: 'x' }] } }, 'x, w'), { error: 'values among x, separated by commas' });
});

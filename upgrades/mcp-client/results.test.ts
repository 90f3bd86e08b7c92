import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ArmatureError } from '../../src/kernel/errors.ts';
import { declarationsFromTools, valueFromResult } from './results.ts';
import { describeTarget, redact, secretsOf } from './transport.ts';

const options = { server: 'demo', namespace: 'demo', timeoutMs: 60_000 };

test('server tools become namespaced declarations; odd ones are skipped with the reason', () => {
  const { declarations, skipped } = declarationsFromTools(
    [
      { name: 'get-sum', title: 'Sum', inputSchema: { type: 'object', properties: { a: { type: 'number' } } }, outputSchema: { type: 'object', properties: { sum: { type: 'number' } } }, annotations: { readOnlyHint: true } },
      { name: 'bare', inputSchema: { type: 'object' } },
      { name: 'has space', inputSchema: { type: 'object' } },
      { name: 'x'.repeat(130), inputSchema: { type: 'object' } },
      { name: 'broken', inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } as never },
    ],
    options,
  );
  assert.deepEqual(declarations[0], {
    name: 'demo.get-sum',
    namespace: 'demo',
    module: 'McpClient',
    description: 'Sum',
    inputSchema: { type: 'object', properties: { a: { type: 'number' } } },
    pythonCallable: true,
    timeoutMs: 60_000,
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } } },
    annotations: { readOnlyHint: true, title: 'Sum' },
  });
  assert.equal(declarations[1]!.description, 'bare (a tool of the MCP server demo)');
  assert.deepEqual(skipped.map((s) => s.name.slice(0, 10)), ['has space', 'xxxxxxxxxx', 'broken']);
  assert.match(skipped[0]!.reason, /its name cannot be used as "demo\.has space"/);
  assert.match(skipped[2]!.reason, /its input schema is not usable/);
});

test('results: structured content, text, other blocks, and isError as MCP_TOOL_ERROR', () => {
  assert.deepEqual(valueFromResult('t', { content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } }), { a: 1 });
  assert.equal(valueFromResult('t', { content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] }), 'one\ntwo');
  const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
  assert.deepEqual(valueFromResult('t', { content: [{ type: 'text', text: 'see' }, image] }), [{ type: 'text', text: 'see' }, image]);
  assert.throws(
    () => valueFromResult('fs.read', { isError: true, content: [{ type: 'text', text: 'Access denied' }] }),
    (e: unknown) => e instanceof ArmatureError && e.code === 'MCP_TOOL_ERROR' && e.message === 'fs.read: Access denied' && /fix the arguments/.test(e.hint!),
  );
});

test('targets and messages never show secrets', () => {
  const stdio = { command: 'node', args: ['srv.js', '--key', 'sk-abcdef123'], env: { API_KEY: 'sk-abcdef123', DEBUG: '1' } };
  assert.deepEqual(secretsOf(stdio), ['sk-abcdef123']);
  assert.equal(describeTarget(stdio), 'node srv.js --key ***');
  assert.equal(redact('failed with sk-abcdef123 and 1', secretsOf(stdio)), 'failed with *** and 1');
  assert.equal(describeTarget({ url: 'https://user:pw@example.com/mcp?token=abc', headers: { Authorization: 'Bearer xyz123456' } }), 'https://example.com/mcp');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserKeyName, browserKeys, environmentKeys, redactDeep, redactText } from './keys.ts';

test('environment keys come from the provider variables; setting one is refused with the variable to set', () => {
  const keys = environmentKeys({ OPENAI_API_KEY: ' sk-1 ', ARMATURE_API_KEY: '' });
  assert.equal(keys.get('openai'), 'sk-1');
  assert.equal(keys.get('openai-compatible'), undefined);
  assert.throws(() => keys.set('google', 'x'), /GOOGLE_GENERATIVE_AI_API_KEY|comes from the environment/);
});

test('browser keys live in the given storage only, and survive a storage that refuses', () => {
  const map = new Map<string, string>();
  const storage = { getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => void map.set(k, v), removeItem: (k: string) => void map.delete(k) };
  const keys = browserKeys(storage);
  keys.set('anthropic', 'sk-ant-123');
  assert.equal(map.get(browserKeyName('anthropic')), 'sk-ant-123');
  assert.equal(browserKeys(storage).get('anthropic'), 'sk-ant-123');
  keys.set('anthropic', '');
  assert.equal(keys.get('anthropic'), undefined);
  const refusing = browserKeys({ getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('denied'); }, removeItem: () => {} });
  refusing.set('openai', 'sk-mem');
  assert.equal(refusing.get('openai'), 'sk-mem');
});

test('redaction masks every occurrence, in nested values and object keys, and leaves short secrets alone', () => {
  const secret = 'sk-0123456789abcdef';
  assert.equal(redactText(`a ${secret} b ${secret}`, [secret]), 'a [redacted key] b [redacted key]');
  const v = { list: [1, `x${secret}`], [secret]: { deep: secret }, same: 'keep' };
  const out = redactDeep(v, [secret]);
  assert.ok(!JSON.stringify(out).includes(secret));
  assert.equal(out.same, 'keep');
  const untouched = { a: 'b' };
  assert.equal(redactDeep(untouched, [secret]), untouched);
  assert.equal(redactText('abc', ['abc']), 'abc');
});

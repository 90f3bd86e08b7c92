import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserKeyName, browserKeys, environmentKeys, redactDeep, redactText, StreamRedactor } from './keys.ts';

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

test('a key split across streamed pieces is masked whole; what cannot be a key flows at once; the end of a step flushes', () => {
  const key = 'sk-MARKER-abc123XYZ';
  const r = new StreamRedactor([key, 'short']);
  const shown = ['Your key: sk-MAR', 'KER-abc1', '23XYZ', ' — done. sk-', 'not a key'].map((p) => r.push(p));
  assert.deepEqual(shown, ['Your key: ', '', '[redacted key]', ' — done. ', 'sk-not a key']);
  assert.equal(r.push(' and s'), ' and ');
  assert.equal(r.flush(), 's');
  assert.equal(r.flush(), '');
  // Every split point of the key, and two keys back to back.
  for (let i = 1; i < key.length; i++) {
    const s = new StreamRedactor([key]);
    const out = [s.push(`a${key.slice(0, i)}`), s.push(`${key.slice(i)}${key}b`), s.flush()].join('');
    assert.equal(out, 'a[redacted key][redacted key]b', `split at ${i}`);
  }
  const none = new StreamRedactor([]);
  assert.equal(none.push('sk-MAR'), 'sk-MAR');
});

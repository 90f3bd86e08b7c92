import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APICallError, RetryError } from 'ai';
import { describeModelError } from './model-errors.ts';
import { observedFetch } from './model-fetch.ts';
import { unusedPort } from '../../test/helpers/scripted-model-server.ts';

const KEY = 'sk-live-abcdefghijklmnop';
const ctx = { model: { provider: 'openai' as const, model: 'gpt-x' }, keyStorage: 'environment' as const, secrets: [KEY] };
const apiError = (statusCode: number | undefined, body = '{"error":{"message":"nope"}}') =>
  new APICallError({ message: 'failed', url: 'https://api.example.test/v1/chat/completions', requestBodyValues: {}, statusCode, responseBody: body, isRetryable: statusCode === 429 });

test('a refused key names the variable to set (environment) or the panel (browser), masking the key', () => {
  const e = describeModelError(apiError(401, JSON.stringify({ error: { message: `bad key ${KEY}` } })), ctx);
  assert.equal(e.code, 'MODEL_AUTH_FAILED');
  assert.match(e.message, /refused the key \(HTTP 401 from https:\/\/api\.example\.test\/v1\/chat\/completions\): bad key \[redacted key\]/);
  assert.equal(e.hint, 'Set OPENAI_API_KEY to a valid openai key and run again.');
  assert.match(describeModelError(apiError(403), { ...ctx, keyStorage: 'browser' }).hint!, /agent panel's settings/);
});

test('429 after retries, 404 and 5xx say what happened and what to check', () => {
  const retried = new RetryError({ message: 'x', reason: 'maxRetriesExceeded', errors: [apiError(429), apiError(429), apiError(429)] });
  const rate = describeModelError(retried, ctx);
  assert.equal(rate.code, 'MODEL_RATE_LIMITED');
  assert.match(rate.message, /HTTP 429 .* after 3 attempts/);
  const missing = describeModelError(apiError(404), ctx);
  assert.equal(missing.code, 'MODEL_NOT_FOUND');
  assert.match(missing.message, /model "gpt-x"/);
  assert.equal(describeModelError(apiError(502), ctx).code, 'MODEL_REQUEST_FAILED');
  assert.equal(describeModelError(new Error(`boom ${KEY}`), ctx).message.includes(KEY), false);
});

test('observedFetch names an unreachable URL at once and reports failed responses with the retry decision', async () => {
  const failures: { status: number; attempt: number; willRetry: boolean }[] = [];
  const f = observedFetch({ maxRetries: 1, onFailure: (x) => failures.push(x) });
  const closed = `http://127.0.0.1:${await unusedPort()}/v1/chat/completions`;
  await assert.rejects(f.fetch(closed), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'MODEL_UNREACHABLE');
    assert.equal(e.message, `[agent] cannot reach the model at ${closed} (ECONNREFUSED)`);
    return true;
  });
  const server = createServer((_req, res) => {
    res.statusCode = 429;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  try {
    await (await f.fetch(url)).text();
    await (await f.fetch(url)).text();
    f.resetAttempts();
    await (await f.fetch(url)).text();
  } finally {
    server.close();
  }
  assert.deepEqual(failures.map((x) => [x.status, x.attempt, x.willRetry]), [[429, 1, true], [429, 2, false], [429, 1, true]]);
});

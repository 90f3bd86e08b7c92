import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attributeMasker, maskKeys } from './span-mask.ts';
import { otelMissing, OTEL_INSTALL, telemetryConfigured } from './otel.ts';

test('secret-looking keys are masked at any depth, in JSON text too; token counts and ordinary values stay', () => {
  const mask = attributeMasker({ OPENAI_API_KEY: 'sk-env-secret-123456789', HOME: '/home/me' });
  assert.equal(mask('http.request.header.authorization', 'Bearer abc'), '[masked]');
  assert.equal(mask('gen_ai.usage.input_tokens', 1900), 1900);
  assert.equal(mask('ai.usage.promptTokens', 12), 12);
  assert.deepEqual(JSON.parse(mask('ai.toolCall.args', '{"path":"a.txt","api_key":"x","nested":{"password":"p","ok":1}}') as string), { path: 'a.txt', api_key: '[masked]', nested: { password: '[masked]', ok: 1 } });
  assert.equal(mask('armature.note', 'the key sk-env-secret-123456789 leaked'), 'the key [masked] leaked');
  assert.deepEqual(mask('list', ['sk-env-secret-123456789', 3]), ['[masked]', 3]);
  assert.equal(mask('gen_ai.request.model', 'gpt-4o'), 'gpt-4o');
  assert.deepEqual(maskKeys([{ token: 1, name: 'n' }]), [{ token: '[masked]', name: 'n' }]);
});

test('the OpenTelemetry packages load only with an endpoint; one that is missing is named with the command that installs them', async () => {
  assert.equal(telemetryConfigured({}), false);
  assert.equal(telemetryConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }), true);
  assert.equal(telemetryConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }), false);
  const missing = '@opentelemetry/not-installed-here';
  await assert.rejects(import(missing).catch(otelMissing('@opentelemetry/exporter-trace-otlp-http')), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'PEER_MISSING');
    assert.match(e.message, /OTEL_EXPORTER_OTLP_ENDPOINT is set, but @opentelemetry\/exporter-trace-otlp-http is not installed: npm install @opentelemetry\/api@\^1\.9\.0 /);
    return true;
  });
  assert.match(OTEL_INSTALL, /@opentelemetry\/sdk-trace-base@\^2\.12\.1/);
});

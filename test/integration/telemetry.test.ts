// OpenTelemetry end to end: a booted system with OTEL_EXPORTER_OTLP_ENDPOINT set runs an agent
// (the scripted model server, a real Python run with call_tool) and exports its spans to a real
// OTLP/HTTP receiver here, which decodes them (JSON): the agent run, the AI SDK's model calls, the
// tool calls and the Python run, in one trace, nested under the run, with GenAI attributes — and no key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boot, type ArmatureSystem } from '../../src/kernel/boot/boot.ts';
import type { AgentApi } from '../../src/contracts/agent-contract.ts';
import { NUMBERS_FILE, SUM_GOAL, sumScript } from '../helpers/agent-task.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { until } from '../helpers/until.ts';

const KEY = 'sk-otel-secret-0123456789abcdef';
let receiver: Server;
let model: ScriptedModelServer;
const bodies: string[] = [];
const contentTypes: string[] = [];

interface OtlpValue { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number }
interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: { key: string; value: OtlpValue }[] }

/** Every span received, with its attributes as a plain object. */
function spans(): (OtlpSpan & { attrs: Record<string, unknown> })[] {
  return bodies.flatMap((b) =>
    (JSON.parse(b) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap((r) =>
      r.scopeSpans.flatMap((s) => s.spans.map((sp) => ({ ...sp, attrs: Object.fromEntries((sp.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? a.value.intValue ?? a.value.boolValue ?? a.value.doubleValue])) }))),
    ),
  );
}

before(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        bodies.push(body);
        contentTypes.push(String(req.headers['content-type']));
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  model = await startScriptedModelServer();
});

after(async () => {
  await model?.close();
  await new Promise((r) => receiver?.close(r));
});

test('an agent run, its model calls, tool calls and Python run reach the OTLP receiver as one trace of GenAI spans, without the key', async () => {
  const saved = { endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT, key: process.env.ARMATURE_API_KEY };
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  process.env.ARMATURE_API_KEY = KEY;
  let sys: ArmatureSystem | undefined;
  try {
    sys = await boot({ persona: 'default', dataDir: tempDir('telemetry'), journal: false });
    assert.equal((await sys.tools.executeTool('write_file', NUMBERS_FILE)).ok, true);
    model.model.setScript(sumScript());
    const agent = await sys.resolve<AgentApi>('Agent');
    const run = await agent.run({ goal: `${SUM_GOAL} (key ${KEY})`, model: { provider: 'openai-compatible', model: 'scripted', baseURL: model.baseURL } });
    assert.equal(run.reason, 'answered', JSON.stringify(run.error));
    assert.equal(model.requests[0]!.headers.authorization, `Bearer ${KEY}`, 'the model got the key');
    await sys.dispose();
    sys = undefined;
    await until('the spans', () => spans().some((s) => s.name.startsWith('invoke_agent')), 20_000);
  } finally {
    await sys?.dispose();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved.endpoint;
    if (saved.endpoint === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    process.env.ARMATURE_API_KEY = saved.key;
    if (saved.key === undefined) delete process.env.ARMATURE_API_KEY;
  }
  assert.ok(contentTypes.every((c) => c.startsWith('application/json')), contentTypes.join());
  const all = spans();
  const agentSpan = all.find((s) => s.name === 'invoke_agent default')!;
  assert.ok(agentSpan, all.map((s) => s.name).join(', '));
  assert.equal(agentSpan.attrs['gen_ai.operation.name'], 'invoke_agent');
  assert.match(String(agentSpan.attrs['gen_ai.agent.id']), /^run-/);
  assert.equal(agentSpan.attrs['gen_ai.request.model'], 'scripted');
  assert.equal(Number(agentSpan.attrs['gen_ai.usage.input_tokens']), 1900);
  assert.equal(agentSpan.attrs['armature.run.reason'], 'answered');
  const trace = all.filter((s) => s.traceId === agentSpan.traceId);
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  const under = (s: OtlpSpan, ancestor: OtlpSpan): boolean => {
    for (let p = s.parentSpanId && byId.get(s.parentSpanId); p; p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined) if (p.spanId === ancestor.spanId) return true;
    return false;
  };
  const names = trace.map((s) => s.name);
  // The AI SDK's own spans for the two model calls, inside the run.
  const doStream = trace.filter((s) => s.name === 'ai.streamText.doStream');
  assert.equal(doStream.length, 2, names.join(', '));
  assert.ok(doStream.every((s) => under(s, agentSpan)));
  assert.ok(doStream.some((s) => s.attrs['gen_ai.request.model'] === 'scripted' || s.attrs['ai.model.id'] === 'scripted'), JSON.stringify(doStream[0]!.attrs));
  // The tool call the model made, and the one Python made through call_tool, nested inside it.
  const python = trace.find((s) => s.name === 'execute_tool execute_python')!;
  assert.ok(python && under(python, agentSpan), names.join(', '));
  assert.equal(python.attrs['gen_ai.operation.name'], 'execute_tool');
  assert.equal(python.attrs['armature.tool.caller'], 'agent');
  // Python's call_tool is answered from the runtime's message handler, whose async context is the
  // run's (where the session's runtime was bound), not the execute_python call's: in the trace, under the run.
  const read = trace.find((s) => s.name === 'execute_tool read_file')!;
  assert.ok(read && under(read, agentSpan), `read_file in the run: ${names.join(', ')}`);
  assert.equal(read.attrs['armature.tool.caller'], 'python');
  const pythonRun = trace.find((s) => s.name === 'execute_python')!;
  assert.ok(pythonRun && under(pythonRun, agentSpan), `execute_python in the run: ${names.join(', ')}`);
  assert.equal(pythonRun.attrs['armature.python.ok'], true);
  // Nothing that left holds the key (the goal carried it; the model's Authorization header too).
  for (const b of bodies) assert.ok(!b.includes(KEY), 'the key left in a span');
});

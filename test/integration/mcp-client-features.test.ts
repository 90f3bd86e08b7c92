// The McpClient speaking the whole protocol to @modelcontextprotocol/server-everything (over stdio,
// as --mcp-config starts it), for a persona that offers roots, sampling (its model: the scripted
// OpenAI-compatible server) and elicitation (a responder answering for the person). Everything is
// exercised from Python, as an agent would: resources and prompts (a resource link followed),
// sampling, elicitation (answered, and refused with nobody to answer; answered on an attached
// dashboard through answer_elicitation, as the person only), roots, a long operation
// whose progress keeps it alive past the call timeout, logging onto the bus, and task-only tools
// left out with the reason.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { boot, type ArmatureSystem } from '../../src/kernel/boot/boot.ts';
import type { ArmatureEvents } from '../../src/kernel/events.ts';
import { defaultPlatform } from '../../src/platform/default/default-platform.ts';
import type { McpClientApi } from '../../upgrades/mcp-client/index.ts';
import { fileUri } from '../../upgrades/mcp-client/client-handlers.ts';
import { SERVER_BINS } from '../helpers/mcp-servers.ts';
import { DEFAULT_UPGRADES, withPersonas } from '../helpers/persona-overlay.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { until } from '../helpers/until.ts';
import { startServer } from '../../src/server/serve.ts';
import { remoteView } from '../../src/view/remote-view.ts';
import type { McpClientSnapshot } from '../../upgrades/mcp-client/snapshot.ts';

let sys: ArmatureSystem;
let mcp: McpClientApi;
let model: ScriptedModelServer;
const events: { [K in keyof ArmatureEvents]?: ArmatureEvents[K][] } = {};

/** The scripted model answers each sampling request with what it was asked. */
const echo = (body: { messages: { role: string; content?: unknown }[] }) => ({ text: `echo: ${String(body.messages.at(-1)?.content).slice(0, 200)}` });

before(async () => {
  model = await startScriptedModelServer(Array.from({ length: 10 }, () => echo));
  const persona = {
    id: 'mcp-tester',
    name: 'MCP tester',
    description: 'Offers MCP servers roots, sampling (at most 3 requests) and elicitation.',
    upgrades: DEFAULT_UPGRADES,
    tools: ['*'],
    skills: ['workspace', 'python'],
    model: { provider: 'openai-compatible', model: 'scripted', baseURL: model.baseURL },
    mcp: { roots: true, elicitation: true, sampling: { maxRequests: 3, maxTokens: 50 } },
  };
  const data = tempDir('mcp-client-features');
  sys = await boot({
    persona: 'mcp-tester',
    platform: withPersonas(await defaultPlatform({ dataDir: data }), [persona]),
    config: {
      PyodideRuntime: { autoStart: false },
      // A short call timeout: progress must keep a longer operation alive.
      McpClient: { servers: { everything: { command: process.execPath, args: [SERVER_BINS.everything] } }, callTimeoutMs: 1500, maxCallTimeoutMs: 30_000, elicitationTimeoutMs: 3000 },
    },
  });
  mcp = await sys.resolve<McpClientApi>('McpClient');
  for (const type of ['mcp-client:log', 'mcp-client:progress', 'mcp-client:sampled', 'mcp-client:elicitation-requested', 'mcp-client:elicitation-ended'] as const) {
    sys.bus.on(type, (p) => void ((events[type] ??= []) as unknown[]).push(p));
  }
  // The server registers the tools that need the client's capabilities once it is initialized.
  await until('the capability-bound tools', () => sys.tools.hasTool('everything.trigger-sampling-request'));
});

after(async () => {
  await sys?.dispose();
  await model?.close();
});

/** Runs Python; returns its value, failing the test with the traceback when it raised. */
async function py(code: string): Promise<unknown> {
  const r = await sys.tools.executeTool<{ value: unknown }>('execute_python', { code, timeout_ms: 60_000 }, { caller: 'test' });
  assert.ok(r.ok, JSON.stringify(r).slice(0, 2000));
  return r.value.value;
}

test('the server\'s resources and prompts are tools of its namespace; a resource link a tool returned is followed from Python', async () => {
  const status = mcp.getServer('everything');
  assert.deepEqual(status.offers, ['resources', 'prompts', 'logging', 'completions']);
  const value = (await py(`
from tools.everything import list_resources, read_resource, list_prompts, get_prompt, get_resource_links
listed = list_resources()
links = [c for c in get_resource_links(count=2) if c["type"] == "resource_link"]
followed = read_resource(links[0]["uri"])
prompt = get_prompt("args-prompt", {"city": "Lyon"})
{"resources": len(listed["resources"]), "templates": [t["uriTemplate"] for t in listed["resourceTemplates"]],
 "followed": followed["contents"][0]["uri"] == links[0]["uri"], "prompts": [p["name"] for p in list_prompts()["prompts"]],
 "prompt": prompt["messages"][0]["content"]["text"]}`)) as Record<string, unknown>;
  assert.ok((value.resources as number) > 0);
  assert.ok((value.templates as string[]).some((t) => t.startsWith('demo://resource/dynamic/')), JSON.stringify(value.templates));
  assert.equal(value.followed, true);
  assert.ok((value.prompts as string[]).includes('args-prompt'));
  assert.equal(value.prompt, 'What\'s weather in Lyon?');
});

test('sampling from Python: the persona\'s model answers, counted; past the persona\'s bound it is refused with the reason', async () => {
  const first = String(await py('from tools.everything import trigger_sampling_request\ntrigger_sampling_request(prompt="the sky", maxTokens=20)'));
  assert.match(first, /LLM sampling result:[\s\S]*"text": "echo: Resource trigger-sampling-request context: the sky"/);
  assert.match(first, /"model": "openai-compatible:scripted"/);
  const asked = model.requests.at(-1)!.body as { messages: { role: string; content: string }[]; max_tokens?: number; max_completion_tokens?: number };
  assert.deepEqual(asked.messages[0], { role: 'system', content: 'You are a helpful test server.' });
  assert.ok((asked.max_tokens ?? asked.max_completion_tokens)! <= 20, 'the server\'s own limit, under the persona\'s');
  await py('from tools.everything import trigger_sampling_request\nfor i in range(2): trigger_sampling_request(prompt=str(i))');
  const refused = await sys.tools.executeTool('execute_python', { code: 'from tools.everything import trigger_sampling_request\ntrigger_sampling_request(prompt="one too many")' });
  assert.equal(refused.ok, false);
  assert.match(JSON.stringify(refused), /sampling refused: this server has used its 3 sampling requests \(persona mcp-tester's mcp\.sampling\.maxRequests\)/);
  assert.deepEqual(events['mcp-client:sampled']!.map((e) => [e.ok, e.requests]), [[true, 1], [true, 2], [true, 3], [false, 4]]);
});

test('elicitation from Python reaches the responder and comes back; with nobody to answer it is refused; unanswered it is cancelled in time', async () => {
  const asked: string[] = [];
  const responder = mcp.addElicitationResponder(async (request) => {
    asked.push(request.message);
    assert.equal(request.server, 'everything');
    assert.ok(request.schema?.properties.name, JSON.stringify(request.schema));
    return { action: 'accept', content: { name: 'Ada Lovelace', check: true, email: 'ada@example.com', integer: 3 } };
  });
  const accepted = String(await py('from tools.everything import trigger_elicitation_request\ntrigger_elicitation_request()'));
  assert.match(accepted, /Ada Lovelace/, accepted.slice(0, 500));
  assert.deepEqual(asked, ['Please provide inputs for the following fields:']);
  responder.dispose();
  const nobody = await sys.tools.executeTool('execute_python', { code: 'from tools.everything import trigger_elicitation_request\ntrigger_elicitation_request()' });
  assert.equal(nobody.ok, false);
  assert.match(JSON.stringify(nobody), /elicitation refused: nobody can answer here/);
  const silent = mcp.addElicitationResponder((_request, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('withdrawn')))));
  const late = String(await py('from tools.everything import trigger_elicitation_request\ntrigger_elicitation_request()'));
  silent.dispose();
  assert.match(late, /cancel/i, late.slice(0, 300));
  assert.deepEqual(events['mcp-client:elicitation-ended']!.map((e) => e.outcome), ['accept', 'refused', 'timeout']);
  assert.equal(mcp.pendingElicitations().length, 0);
});

test('elicitation on an attached dashboard: the request waits in the McpClient snapshot, the person answers with answer_elicitation, an agent cannot', async () => {
  // The dashboard server registers itself as the person's side of the system's elicitation.
  const server = await startServer({ system: sys, port: 0, outDir: tempDir('mcp-elicitation-dist'), html: '<!doctype html><title>attached</title>' });
  const view = await remoteView({ baseUrl: server.origin, token: server.token });
  try {
    const run = sys.tools.executeTool<{ value: unknown }>('execute_python', { code: 'from tools.everything import trigger_elicitation_request\ntrigger_elicitation_request()', timeout_ms: 60_000 }, { caller: 'test' });
    await until('the request in the snapshot the page sees', () => (view.status<McpClientSnapshot>('McpClient')?.elicitations ?? []).length === 1, 3000);
    const [request] = view.status<McpClientSnapshot>('McpClient')!.elicitations;
    assert.equal(request!.server, 'everything');
    assert.equal(request!.message, 'Please provide inputs for the following fields:');
    assert.ok(request!.schema?.properties.name, JSON.stringify(request));
    assert.ok(view.tools().some((t) => t.name === 'answer_elicitation' && t.audience === 'person'));
    const byAgent = await sys.tools.executeTool('answer_elicitation', { id: request!.id, action: 'accept', content: { name: 'Mallory' } }, { caller: 'agent' });
    assert.equal(byAgent.ok, false);
    assert.equal(!byAgent.ok && byAgent.error.code, 'PERSON_ONLY');
    const answered = await view.callTool('answer_elicitation', { id: request!.id, action: 'accept', content: { name: 'Grace Hopper', check: true, email: 'grace@example.com', integer: 7 } });
    assert.deepEqual(answered.ok && answered.value, { id: request!.id, server: 'everything', action: 'accept' });
    const r = await run;
    assert.ok(r.ok, JSON.stringify(r).slice(0, 1000));
    assert.match(String(r.value.value), /Grace Hopper/);
    await until('the request gone from the snapshot', () => view.status<McpClientSnapshot>('McpClient')?.elicitations.length === 0);
    const again = await view.callTool('answer_elicitation', { id: request!.id, action: 'cancel' });
    assert.equal(!again.ok && again.error.code, 'ELICITATION_NOT_FOUND');
  } finally {
    view.close();
    await server.close();
  }
  // Once the dashboard is gone nobody answers here: refused again.
  const nobody = await sys.tools.executeTool('execute_python', { code: 'from tools.everything import trigger_elicitation_request\ntrigger_elicitation_request()' });
  assert.match(JSON.stringify(nobody), /elicitation refused: nobody can answer here/);
});

test('roots: the server is offered the workspace folder', async () => {
  const folder = (await sys.resolve<{ folder: string }>('Workspace')).folder;
  const listed = String(await py('from tools.everything import get_roots_list\nget_roots_list()'));
  assert.ok(listed.includes(fileUri(folder)), listed);
});

test('a 4 s operation reporting progress finishes although the call timeout is 1.5 s; progress is on the bus', async () => {
  const done = String(await py('from tools.everything import trigger_long_running_operation\ntrigger_long_running_operation(duration=4, steps=8)'));
  assert.match(done, /Long running operation completed\. Duration: 4 seconds, Steps: 8/);
  const progress = events['mcp-client:progress']!.filter((p) => p.tool === 'everything.trigger-long-running-operation');
  // The last one may come with the result, and the SDK drops progress that arrives after it.
  const steps = progress.map((p) => p.progress);
  assert.ok(steps.length >= 7 && steps.every((n, i) => n === i + 1), steps.join(' '));
  assert.equal(progress[0]!.total, 8);
});

test('log messages of the server arrive on the bus; a tool that runs only as a task is left out, saying why', async () => {
  await py('from tools.everything import toggle_simulated_logging\ntoggle_simulated_logging()');
  await until('a log message on the bus', () => !!events['mcp-client:log']?.some((l) => l.server === 'everything' && /-level message|level-message/.test(l.data)));
  await py('from tools.everything import toggle_simulated_logging\ntoggle_simulated_logging()');
  const skipped = mcp.getServer('everything').skipped.find((s) => s.name === 'simulate-research-query');
  assert.ok(skipped, JSON.stringify(mcp.getServer('everything').skipped));
  assert.match(skipped.reason, /runs only as an MCP task/);
  assert.equal(sys.tools.hasTool('everything.simulate-research-query'), false);
});

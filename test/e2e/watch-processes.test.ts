// #29 end to end, as the dashboard's wire sees it: a dashboard server attached to a Node system on
// a temp data folder, and real CLI processes on the same folder — `armature agent` against the
// scripted OpenAI-compatible server (a Python run, then a Python tool made: pending), `armature
// approve` in a third process, an agent killed mid-run, `armature mcp --http` serving an MCP
// client's Python runs. A remote view (the page's own code, here in Node) receives all of it live,
// each record tagged with its process.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { boot, type ArmatureSystem } from '../../src/kernel/boot/boot.ts';
import type { AnyEventRecord } from '../../src/kernel/event-bus.ts';
import type { ChangeRecord } from '../../src/contracts/change-contract.ts';
import { startServer, type RunningServer } from '../../src/server/serve.ts';
import { remoteView, type RemoteSystemView } from '../../src/view/remote-view.ts';
import { WORD_COUNT } from '../helpers/made-tool-fixtures.ts';
import { bin, runCli } from '../helpers/run-cli.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { until } from '../helpers/until.ts';

const data = tempDir('watch-processes');
let sys: ArmatureSystem;
let server: RunningServer;
let view: RemoteSystemView;
let model: ScriptedModelServer;
let hanging: Server;
const seen: AnyEventRecord[] = [];
const children: ChildProcess[] = [];

const cli = (...args: string[]) => runCli([...args, '--data', data], data);
/** Records of `type` from `process` (any other process when omitted). */
const from = (type: string, process?: string) => seen.filter((r) => r.type === type && (process ? r.process === process : r.process !== undefined));

before(async () => {
  sys = await boot({ persona: 'default', dataDir: data, journal: { command: 'start' } });
  server = await startServer({ system: sys, port: 0, outDir: tempDir('watch-dist'), html: '<!doctype html><title>dashboard</title>' });
  view = await remoteView({ baseUrl: server.origin, token: server.token });
  view.events.onAny((r) => void seen.push(r));
  model = await startScriptedModelServer();
  hanging = createServer(() => undefined);
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
});

after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  view?.close();
  await server?.close();
  await sys?.dispose();
  await model?.close();
  hanging?.closeAllConnections();
  await new Promise((r) => hanging?.close(r));
});

test('an agent in another process shows live: its streamed text, the execute_python call, its stdout and the pending tool it made', async () => {
  model.model.setScript([
    { text: 'I will check Python first.', toolCalls: [{ id: 'py', name: 'execute_python', args: { code: 'print("stdout from the agent process")\n6 * 7' } }] },
    { text: 'Now the tool.', toolCalls: [{ id: 'make', name: 'create_tool', args: WORD_COUNT }] },
    { text: 'Made; it waits for approval.' },
  ]);
  const r = await cli('agent', '--model', 'openai-compatible:scripted', '--base-url', model.baseURL, '--json', 'Make a word counter');
  assert.equal(r.code, 0, r.err);
  const started = from('agent:run-started')[0]!;
  assert.ok(started, 'the run started on the view');
  const agent = started.process!;
  assert.equal(view.processes().find((p) => p.id === agent)?.command, 'agent');
  const { runId } = started.payload as { runId: string };
  await until('the run to finish on the view', () => from('agent:run-finished', agent).length === 1);
  assert.equal(from('agent:text-delta', agent).map((e) => (e.payload as { delta: string }).delta).join(''), 'I will check Python first.Now the tool.Made; it waits for approval.');
  assert.deepEqual(from('agent:tool-called', agent).map((e) => (e.payload as { name: string }).name), ['execute_python', 'create_tool']);
  const stdout = from('python:stdout', agent).map((e) => (e.payload as { chunk: string }).chunk).join('');
  assert.match(stdout, /stdout from the agent process/);
  const pending = from('change:pending', agent).map((e) => (e.payload as { change: ChangeRecord }).change);
  assert.deepEqual(pending.map((c) => [c.kind, c.target, c.status, c.caller.run]), [['tool', 'made.word_count', 'pending', runId]]);
  // The process said goodbye when the command ended.
  await until('the agent process to end', () => seen.some((e) => e.type === 'process:ended' && (e.payload as { process: { id: string } }).process.id === agent));
  const ended = seen.find((e) => e.type === 'process:ended' && (e.payload as { process: { id: string } }).process.id === agent)!.payload as { reason: string };
  assert.equal(ended.reason, 'exited');
});

test('armature approve in a third process: the approval reaches the view within about a second, and the tool is active for the next process', async () => {
  const change = (from('change:pending')[0]!.payload as { change: ChangeRecord }).change;
  const before = seen.length;
  const t0 = Date.now();
  const approve = await cli('approve', change.id);
  assert.equal(approve.code, 0, approve.err);
  await until('the approval on the view', () => seen.slice(before).some((e) => e.type === 'change:activated' && (e.payload as { change: ChangeRecord }).change.id === change.id), 5000);
  const approver = seen.slice(before).find((e) => e.type === 'change:activated')!.process!;
  assert.equal(view.processes().find((p) => p.id === approver)?.command, 'approve');
  // Within ~1 s of the command's end (its process start is most of the time).
  assert.ok(Date.now() - t0 < 60_000);
  const listed = JSON.parse((await cli('changes', '--json')).out) as ChangeRecord[];
  assert.equal(listed.find((c) => c.id === change.id)?.status, 'active');
  const call = await cli('call', 'made.word_count', '{"text": "approved in another process"}');
  assert.equal(JSON.parse(call.out).value, 4);
});

test('an agent killed mid-run shows its process crashed, its run never finished', async () => {
  const agent = spawn(process.execPath, [bin, 'agent', '--model', 'openai-compatible:hang', '--base-url', `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/v1`, '--data', data, 'wait forever'], {
    cwd: data,
    env: { ...process.env, OPENAI_API_KEY: '', ARMATURE_API_KEY: '' },
    stdio: 'ignore',
  });
  children.push(agent);
  await until('the run on the view', () => from('agent:run-started').length === 2, 60_000);
  const started = from('agent:run-started')[1]!;
  agent.kill('SIGKILL');
  await until('the process to end', () => seen.some((e) => e.type === 'process:ended' && (e.payload as { process: { id: string } }).process.id === started.process), 10_000);
  const ended = seen.find((e) => e.type === 'process:ended' && (e.payload as { process: { id: string } }).process.id === started.process)!.payload as { reason: string };
  assert.equal(ended.reason, 'crashed');
  assert.equal(from('agent:run-finished', started.process).length, 0, 'the run never said it finished: its process did');
});

test('armature mcp --http on the same folder: its sessions\' Python runs appear live', async () => {
  const mcp = spawn(process.execPath, [bin, 'mcp', '--http', '--port', '0', '--data', data], { cwd: data, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(mcp);
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    mcp.once('exit', (code) => reject(new Error(`armature mcp --http exited with ${code}: ${out}`)));
    mcp.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  const client = new Client({ name: 'watch-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const result = await client.callTool({ name: 'execute_python', arguments: { code: 'for i in range(3):\n    print("from an MCP session", i)' } });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    await until('the MCP session\'s output on the view', () => /from an MCP session 2/.test(from('python:stdout').map((e) => (e.payload as { chunk: string }).chunk).join('')), 10_000);
    const line = from('python:stdout').find((e) => /from an MCP session/.test((e.payload as { chunk: string }).chunk))!;
    assert.equal(view.processes().find((p) => p.id === line.process)?.command, 'mcp');
  } finally {
    await client.close();
    mcp.kill('SIGTERM');
  }
  await until('the MCP process to end', () => view.processes().find((p) => p.command === 'mcp')?.endedAt !== undefined, 20_000);
});

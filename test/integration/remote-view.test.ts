// remoteView over a real dashboard server attached to a Node system, in Node: the state, live
// events of the system and of other processes on its data folder (a library boot and an
// `armature agent` waiting on its model), tool calls as the person, stop_run relayed to the
// agent's process, Last-Event-ID resume and the reset when it cannot resume.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { boot, type ArmatureSystem } from '../../src/kernel/boot/boot.ts';
import { startServer, type RunningServer } from '../../src/server/serve.ts';
import { remoteView, type RemoteSystemView } from '../../src/view/remote-view.ts';
import type { AnyEventRecord } from '../../src/kernel/event-bus.ts';
import { bin } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { until } from '../helpers/until.ts';

const dataDir = tempDir('remote-view');
const hooks = fileURLToPath(new URL('../../src/platform/source-hooks.mjs', import.meta.url));
const childScript = fileURLToPath(new URL('../fixtures/journal-child.ts', import.meta.url));
let sys: ArmatureSystem;
let server: RunningServer;
let view: RemoteSystemView;
let model: Server;
let modelUrl: string;
const seen: AnyEventRecord[] = [];
const children: ChildProcess[] = [];

before(async () => {
  sys = await boot({ persona: 'default', dataDir, journal: { command: 'start' } });
  server = await startServer({ system: sys, port: 0, outDir: tempDir('remote-view-dist'), html: '<!doctype html><title>attached</title>' });
  view = await remoteView({ baseUrl: server.origin, token: server.token });
  view.events.onAny((r) => void seen.push(r));
  // A model that never answers: an agent run waits on it until stopped.
  model = createServer(() => undefined);
  await new Promise<void>((r) => model.listen(0, '127.0.0.1', r));
  modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
});

after(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  view?.close();
  await server?.close();
  await sys?.dispose();
  model?.closeAllConnections();
  await new Promise((r) => model?.close(r));
});

test('the view has the system\'s persona, modules and tools, and its own events first in the history', () => {
  assert.deepEqual(view.persona, { id: 'default', name: sys.persona.name, safe: false });
  assert.equal(view.mode, 'attached');
  assert.equal(view.process?.id, sys.process?.id);
  assert.equal(view.process?.command, 'start');
  // Listed with the data folder's other processes, so the Processes card and Past runs name it.
  assert.deepEqual(view.processes().find((p) => p.id === sys.process?.id), sys.process);
  assert.deepEqual(view.modules().map((m) => [m.id, m.state]), sys.modules.map((m) => [m.id, m.state]));
  // The person's tools, person-only ones included (approve_change), as a page's own system lists them.
  assert.deepEqual(view.tools().map((t) => t.name), sys.tools.getToolDeclarations({ audience: 'person' }).map((t) => t.name));
  assert.ok(view.tools().some((t) => t.name === 'approve_change' && t.audience === 'person'));
  const booted = view.events.history(['system:booted']);
  assert.equal(booted.length, 1);
  assert.equal(booted[0]!.process, undefined, 'the system\'s own events carry no process');
});

test('a call runs as the person at the page, and its events stream back live', async () => {
  const result = await view.callTool<{ path: string }>('write_file', { path: 'notes/from-view.txt', content: 'hi' });
  assert.equal(result.ok, true, JSON.stringify(result));
  await until('the written event', () => seen.some((r) => r.type === 'workspace:written' && (r.payload as { path: string }).path === 'notes/from-view.txt'));
  const started = seen.find((r) => r.type === 'tool:started' && (r.payload as { name: string }).name === 'write_file');
  assert.equal((started?.payload as { caller: string } | undefined)?.caller, 'ui');
  const named = await view.callTool('list_files', {}, { callId: 'from-the-view-1' });
  assert.equal(named.ok, true);
  await until('the named call', () => seen.some((r) => r.type === 'tool:finished' && (r.payload as { callId: string }).callId === 'from-the-view-1'));
  // Events about the page stay in the page.
  const onServer: string[] = [];
  const sub = sys.bus.on('widget:action', (e) => void onServer.push(e.action));
  view.emitLocal('widget:action', { module: 'Workspace', action: 'refresh' });
  assert.ok(seen.some((r) => r.type === 'widget:action' && (r.payload as { action: string }).action === 'refresh'));
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(onServer, []);
  sub.dispose();
  const bad = await view.callTool('write_file', { path: '../outside', content: 'x' });
  assert.equal(!bad.ok && bad.error.code, 'INVALID_PATH');
  const unknown = await view.callTool('no_such_tool', {});
  assert.equal(unknown.ok, false);
});

test('another process on the folder appears with its events tagged, and its kill -9 shows it ended', async () => {
  const child = spawn(process.execPath, ['--import', hooks, childScript, dataDir, 'library'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const id = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d;
      const m = /ready (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
  });
  await until('the process on the view', () => view.processes().some((p) => p.id === id));
  await until('its ticks', () => seen.filter((r) => r.process === id && r.type === 'python:stdout').length > 3);
  assert.deepEqual(seen.find((r) => r.type === 'process:started' && (r.payload as { process: { id: string } }).process.id === id)?.payload, { process: view.processes().find((p) => p.id === id) });
  child.kill('SIGKILL');
  await until('it ended', () => seen.some((r) => r.type === 'process:ended' && (r.payload as { process: { id: string } }).process.id === id));
  const ended = seen.find((r) => r.type === 'process:ended' && (r.payload as { process: { id: string } }).process.id === id)!.payload as { reason: string };
  assert.equal(ended.reason, 'crashed');
  assert.equal(typeof view.processes().find((p) => p.id === id)?.endedAt, 'number');
});

test('stop_run from the view stops a run in another process (armature agent waiting on its model)', async () => {
  const agent = spawn(process.execPath, [bin, 'agent', '--model', 'openai-compatible:hang', '--base-url', modelUrl, '--data', dataDir, 'wait for a model that never answers'], {
    cwd: dataDir,
    env: { ...process.env, OPENAI_API_KEY: '', ARMATURE_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(agent);
  const exited = new Promise<number | null>((r) => agent.once('exit', (code) => r(code)));
  await until('the run on the view', () => seen.some((r) => r.type === 'agent:run-started' && r.process !== undefined), 60_000);
  const started = seen.find((r) => r.type === 'agent:run-started' && r.process !== undefined)!;
  const { runId } = started.payload as { runId: string };
  const stopped = await view.callTool('stop_run', { runId, process: started.process });
  assert.equal(stopped.ok, true, JSON.stringify(stopped));
  await until('the run to finish, aborted', () => seen.some((r) => r.type === 'agent:run-finished' && (r.payload as { runId: string }).runId === runId));
  assert.equal((seen.find((r) => r.type === 'agent:run-finished' && (r.payload as { runId: string }).runId === runId)!.payload as { reason: string }).reason, 'aborted');
  assert.equal(await exited, 1, 'the agent stopped without an answer');
  await until('its process to end', () => view.processes().find((p) => p.id === started.process)?.endedAt !== undefined);
  const unknown = await view.callTool('stop_run', { runId, process: 'no-such-process' });
  assert.equal(!unknown.ok && unknown.error.code, 'UNKNOWN_PROCESS');
});

/** The raw event stream: the first `wanted` frames' ids and event names after the given Last-Event-ID. */
function frames(lastEventId: string, wanted: number): Promise<{ event?: string; id?: string }[]> {
  return new Promise((resolve, reject) => {
    const url = new URL('/__armature/api/events', server.origin);
    const req = request(url, { headers: { authorization: `Bearer ${server.token}`, 'last-event-id': lastEventId } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d;
        const blocks = text.split('\n\n').filter((b) => /^(id|event): /m.test(b));
        if (blocks.length >= wanted) {
          req.destroy();
          resolve(blocks.slice(0, wanted).map((b) => ({ event: /^event: (.*)$/m.exec(b)?.[1], id: /^id: (.*)$/m.exec(b)?.[1] })));
        }
      });
    });
    req.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(e)));
    req.end();
  });
}

test('the stream resumes after Last-Event-ID, and says reset when it cannot', async () => {
  const state = (await (await fetch(new URL('/__armature/api/state', server.origin), { headers: { authorization: `Bearer ${server.token}` } })).json()) as { history: { id: string }[]; lastEventId: string };
  const ids = state.history.map((h) => h.id);
  assert.equal(ids.at(-1), state.lastEventId);
  const from = ids.at(-4)!;
  const resumed = await frames(from, 3);
  assert.deepEqual(resumed.map((f) => f.id), ids.slice(-3));
  const reset = await frames('another-epoch.5', 2);
  assert.equal(reset[0]!.event, 'reset');
  assert.equal(reset[1]!.id, ids[0]);
});

test('the state, the stream and calls are refused without the token, with a wrong one, from a foreign Origin or Host', async () => {
  const port = Number(new URL(server.origin).port);
  const ask = (path: string, headers: Record<string, string>, method = 'GET') =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/json', ...headers } }, (res) => {
        resolve(res.statusCode!);
        res.destroy();
      });
      req.on('error', reject);
      req.end(method === 'POST' ? JSON.stringify({ name: 'write_file', args: { path: 'refused.txt', content: 'no' } }) : undefined);
    });
  const good = { authorization: `Bearer ${server.token}` };
  for (const [path, method] of [['/__armature/api/state', 'GET'], ['/__armature/api/events', 'GET'], ['/__armature/api/call', 'POST']] as const) {
    assert.equal(await ask(path, {}, method), 401, `${method} ${path} without a token`);
    assert.equal(await ask(path, { authorization: 'Bearer wrong-wrong-wrong-wrong' }, method), 401, `${method} ${path} with a wrong token`);
    assert.equal(await ask(path, { ...good, origin: 'http://127.0.0.1:1' }, method), 403, `${method} ${path} from a foreign Origin`);
    assert.equal(await ask(path, { ...good, host: `rebound.example:${port}` }, method), 421, `${method} ${path} with a foreign Host`);
  }
  const written = await sys.tools.executeTool('read_file', { path: 'refused.txt' });
  assert.equal(written.ok, false, 'no refused call ran');
  // A call that is not JSON (a form post) is refused too.
  assert.equal(await ask('/__armature/api/call', { ...good, 'content-type': 'application/x-www-form-urlencoded' }, 'POST'), 415);
});

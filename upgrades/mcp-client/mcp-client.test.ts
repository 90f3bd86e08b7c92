// The McpClient against the reference MCP servers from npm, started for real over stdio and HTTP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { boot, type ArmatureSystem } from '../../src/kernel/boot/boot.ts';
import type { McpServers, McpServersInput } from '../../src/kernel/mcp-servers.ts';
import type { ToolFailure } from '../../src/kernel/tool-contract.ts';
import { referenceServers, SERVER_BINS, startHttpEverything, type HttpEverything } from '../../test/helpers/mcp-servers.ts';
import { memoryPlatform } from '../../test/helpers/memory-platform.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { MCP_CLIENT_EVENTS } from './events.ts';
import type { McpClientApi } from './mcp-client.ts';
import { CONTENT_TOOLS } from './remote-content.ts';

const dir = tempDir('mcp-client');
let sys: ArmatureSystem;
let mcp: McpClientApi;
let http: HttpEverything;

const start = (servers: McpServersInput, data = tempDir('mcp-data'), extra: Record<string, unknown> = {}) =>
  boot({ dataDir: data, config: { PyodideRuntime: { autoStart: false }, McpClient: { servers, ...extra } } });
const failure = (r: { ok: boolean }) => r as ToolFailure;

before(async () => {
  http = await startHttpEverything();
  sys = await start({
    ...referenceServers(dir),
    web: { url: http.url },
    // Two servers of one kind: instances of the namespace "notes".
    work: { command: process.execPath, args: [SERVER_BINS.memory], env: { MEMORY_FILE_PATH: join(dir, 'work.jsonl') }, namespace: 'notes' },
    home: { command: process.execPath, args: [SERVER_BINS.memory], env: { MEMORY_FILE_PATH: join(dir, 'home.jsonl') }, namespace: 'notes' },
  });
  mcp = await sys.resolve<McpClientApi>('McpClient');
});

after(async () => {
  await sys?.dispose();
  await http?.close();
});

test('every server is a module part, ready, with its tools registered under its namespace', () => {
  const parts = sys.modules.filter((m) => m.parent === 'McpClient');
  assert.deepEqual(parts.map((m) => [m.id, m.state]), ['memory', 'filesystem', 'everything', 'web', 'work', 'home'].map((n) => [`mcp:${n}`, 'loaded']));
  assert.equal(sys.modules.findIndex((m) => m.id === 'mcp:memory'), sys.modules.findIndex((m) => m.id === 'McpClient') + 1, 'parts follow their upgrade');
  const names = sys.tools.getToolDeclarations().map((d) => d.name);
  for (const n of ['memory.create_entities', 'memory.read_graph', 'filesystem.read_text_file', 'filesystem.write_file', 'everything.get-sum', 'web.get-sum', 'notes.create_entities']) assert.ok(names.includes(n), n);
  assert.equal(names.filter((n) => n.startsWith('memory.') && !(CONTENT_TOOLS as readonly string[]).includes(n.slice('memory.'.length))).length, 9);
  const create = sys.tools.getToolDeclarations().find((d) => d.name === 'memory.create_entities')!;
  assert.equal(create.namespace, 'memory');
  assert.equal(create.module, 'McpClient');
  assert.equal(create.outputSchema?.type, 'object', 'the server’s output schema is kept');
  assert.equal(create.annotations?.readOnlyHint, false);
  const statuses = mcp.listServers();
  assert.deepEqual(statuses.find((s) => s.name === 'memory')!.server, { name: 'memory-server', version: '0.6.3' });
  assert.deepEqual(statuses.filter((s) => s.instance).map((s) => [s.name, s.instance]), [['work', 'work'], ['home', 'home']]);
  assert.equal(statuses.find((s) => s.name === 'web')!.transport, 'http');
});

test('calls go through the ToolRunner: structured values, text, the server’s errors, local validation', async () => {
  const created = await sys.tools.executeTool('memory.create_entities', { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] });
  assert.deepEqual(created.ok && created.value, { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] });
  const sum = await sys.tools.executeTool('everything.get-sum', { a: 2, b: 40 });
  assert.deepEqual(sum.ok && sum.value, 'The sum of 2 and 40 is 42.');
  const viaHttp = await sys.tools.executeTool('web.get-sum', { a: 1, b: 1 });
  assert.deepEqual(viaHttp.ok && viaHttp.value, 'The sum of 1 and 1 is 2.');
  // The persona offers roots: the filesystem server keeps to the workspace folder, not the folder it was started with.
  const folder = (await sys.resolve<{ folder: string }>('Workspace')).folder;
  const written = await sys.tools.executeTool('filesystem.write_file', { path: join(folder, 'hello.txt'), content: 'hi' });
  assert.equal(written.ok, true, JSON.stringify(written));
  assert.equal((await sys.tools.executeTool('filesystem.write_file', { path: join(dir, 'hello.txt'), content: 'hi' })).ok, false, 'its start folder is no longer its to write');
  const read = await sys.tools.executeTool('filesystem.read_text_file', { path: join(folder, 'hello.txt') });
  assert.deepEqual(read.ok && read.value, { content: 'hi' });
  const outside = failure(await sys.tools.executeTool('filesystem.read_text_file', { path: '/etc/hostname' }));
  assert.equal(outside.error.code, 'MCP_TOOL_ERROR');
  assert.match(outside.error.message, /^filesystem\.read_text_file: .*Access denied - path outside allowed directories/);
  const invalid = failure(await sys.tools.executeTool('everything.get-sum', { a: 'two' }));
  assert.equal(invalid.error.code, 'INVALID_ARGUMENTS', 'checked against the server’s schema before it is called');
  const stats = sys.tools.getStats().find((s) => s.name === 'everything.get-sum')!;
  assert.ok(stats.calls >= 2 && stats.errors >= 1);
});

test('servers of one kind are instances: instance_id picks one, each keeps its own data', async () => {
  const ambiguous = failure(await sys.tools.executeTool('notes.read_graph', {}));
  assert.equal(ambiguous.error.code, 'AMBIGUOUS_INSTANCE');
  assert.match(ambiguous.hint!, /^Pass instance_id as one of: (work, home|home, work)\.$/);
  const add = await sys.tools.executeTool('notes.create_entities', { entities: [{ name: 'Report', entityType: 'doc', observations: [] }] }, { instance: 'work' });
  assert.equal(add.ok, true);
  const work = await sys.tools.executeTool<{ entities: unknown[] }>('notes.read_graph', {}, { instance: 'work' });
  const home = await sys.tools.executeTool<{ entities: unknown[] }>('notes.read_graph', {}, { instance: 'home' });
  assert.deepEqual([work.ok && work.value.entities.length, home.ok && home.value.entities.length], [1, 0]);
});

test('a server killed mid-session is a failed module, its tools answer why, the rest works, a restart brings it back', async () => {
  const failed = new Promise<{ id: string; message: string }>((resolve) => {
    const sub = sys.bus.on('module:failed', (p) => {
      if (p.parent !== 'McpClient') return;
      sub.dispose();
      resolve({ id: p.id, message: p.error.message });
    });
  });
  process.kill(mcp.getServer('memory').pid!, 'SIGKILL');
  const { id, message } = await failed;
  assert.equal(id, 'mcp:memory');
  assert.ok(message.startsWith(`the MCP server memory (${mcp.getServer('memory').target}) stopped: its process exited; it wrote to stderr: `), message);
  assert.equal(sys.modules.find((m) => m.id === 'mcp:memory')!.state, 'failed');
  const dead = failure(await sys.tools.executeTool('memory.read_graph', {}));
  assert.equal(dead.error.code, 'MCP_SERVER_UNAVAILABLE');
  assert.match(dead.error.message, /^memory\.read_graph cannot run: the MCP server memory \(.*\) stopped: its process exited; it wrote to stderr: /);
  assert.match(dead.hint!, /restart_mcp_server \{"name": "memory"\}/);
  assert.equal((await sys.tools.executeTool('everything.get-sum', { a: 1, b: 2 })).ok, true, 'the other servers keep working');
  const restarted = await sys.tools.executeTool<{ state: string; restarts: number }>('restart_mcp_server', { name: 'memory' });
  assert.deepEqual(restarted.ok && [restarted.value.state, restarted.value.restarts], ['ready', 1]);
  assert.equal(sys.modules.find((m) => m.id === 'mcp:memory')!.state, 'loaded');
  const graph = await sys.tools.executeTool<{ entities: { name: string }[] }>('memory.read_graph', {});
  assert.deepEqual(graph.ok && graph.value.entities.map((e) => e.name), ['Ada'], 'its data survived in its own file');
  const unknown = failure(await sys.tools.executeTool('restart_mcp_server', { name: 'memroy' }));
  assert.equal(unknown.error.code, 'UNKNOWN_MCP_SERVER');
  assert.match(unknown.error.message, /servers: memory, filesystem, everything, web, work, home/);
});

test('an HTTP server that goes away is failed as unreachable, and comes back on restart', async () => {
  const port = http.port;
  await http.close();
  const gone = failure(await sys.tools.executeTool('web.get-sum', { a: 1, b: 1 }));
  assert.equal(gone.error.code, 'MCP_SERVER_UNAVAILABLE');
  assert.match(gone.error.message, /cannot be reached/);
  assert.equal(sys.modules.find((m) => m.id === 'mcp:web')!.error?.code, 'MCP_SERVER_UNREACHABLE');
  http = await startHttpEverything({ port });
  assert.equal((await mcp.restart('web')).state, 'ready');
  const back = await sys.tools.executeTool('web.get-sum', { a: 3, b: 4 });
  assert.deepEqual(back.ok && back.value, 'The sum of 3 and 4 is 7.');
});

test('a cancelled call stops waiting at once and the server keeps serving', async () => {
  const controller = new AbortController();
  const long = sys.tools.executeTool('everything.trigger-long-running-operation', { duration: 30, steps: 30 }, { signal: controller.signal });
  setTimeout(() => controller.abort(), 200);
  const r = failure(await long);
  assert.equal(r.error.code, 'CANCELLED');
  assert.ok(r.durationMs < 30_000, `answered before the 30 s operation could end (${r.durationMs} ms)`);
  assert.equal((await sys.tools.executeTool('everything.echo', { message: 'still here' })).ok, true);
});

test('progress keeps a call alive past callTimeoutMs, but not past maxCallTimeoutMs', async () => {
  const capped = await start({ everything: { command: process.execPath, args: [SERVER_BINS.everything] } }, tempDir('mcp-capped'), { callTimeoutMs: 1000, maxCallTimeoutMs: 2500 });
  try {
    // Progress every 0.5 s: the 1 s idle clock never runs out, the 2.5 s bound does.
    const r = failure(await capped.tools.executeTool('everything.trigger-long-running-operation', { duration: 6, steps: 12 }));
    assert.equal(r.error.code, 'TIMEOUT', JSON.stringify(r));
    assert.match(r.error.message, /did not finish within 2500 ms/);
  } finally {
    await capped.dispose();
  }
});

test('servers that cannot start, time out or collide are failed modules with readable errors; secrets are redacted', async () => {
  const data = tempDir('mcp-failing');
  const s = await start(
    {
      missing: { command: 'armature-no-such-server' },
      silent: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], startTimeoutMs: 500 },
      crashing: { command: process.execPath, args: [SERVER_BINS.filesystem, join(data, 'does-not-exist')] },
      leaky: { command: process.execPath, args: ['-e', 'console.error("token is " + process.env.API_TOKEN); process.exit(3)'], env: { API_TOKEN: 'sk-very-secret-123' } },
      workspace: { command: process.execPath, args: [SERVER_BINS.memory] },
    },
    data,
  );
  try {
    const byId = new Map(s.modules.filter((m) => m.parent).map((m) => [m.id, m]));
    assert.ok([...byId.values()].every((m) => m.state === 'failed'));
    assert.equal(s.modules.find((m) => m.id === 'McpClient')!.state, 'loaded', 'the client itself still loads');
    assert.match(byId.get('mcp:missing')!.error!.message, /^the MCP server missing \(armature-no-such-server\) could not start: spawn armature-no-such-server ENOENT/);
    assert.equal(byId.get('mcp:silent')!.error!.code, 'MCP_START_TIMEOUT');
    assert.match(byId.get('mcp:silent')!.error!.message, /did not answer within 500 ms/);
    assert.match(byId.get('mcp:crashing')!.error!.message, /could not start: .*; it wrote to stderr: .*does-not-exist/s);
    assert.match(byId.get('mcp:leaky')!.error!.message, /token is \*\*\*/);
    assert.doesNotMatch(JSON.stringify(s.modules) + JSON.stringify(s.bus.history()), /sk-very-secret-123/);
    assert.equal(byId.get('mcp:workspace')!.error!.code, 'MCP_NAMESPACE_TAKEN');
    assert.equal((await s.tools.executeTool('everything.echo', { message: 'x' })).ok, false, 'nothing else was registered');
    assert.equal((await s.tools.executeTool('read_file', { path: 'none' })).ok, false);
    assert.equal(failure(await s.tools.executeTool('read_file', { path: 'none' })).error.code, 'FILE_NOT_FOUND', 'the rest of the system works');
  } finally {
    await s.dispose();
  }
});

test('a server that fails to start still has its last known tools, which answer with the reason', async () => {
  const data = tempDir('mcp-cache');
  const good = await start({ memory: referenceServers(dir).memory! }, data);
  await good.dispose();
  // Same command line, but it can no longer start (its working folder is gone).
  const spec = { ...referenceServers(dir).memory!, cwd: join(data, 'gone') } as McpServers[string];
  const s = await start({ memory: spec }, data, { startTimeoutMs: 5000 });
  try {
    assert.equal(s.modules.find((m) => m.id === 'mcp:memory')!.state, 'failed');
    const r = failure(await s.tools.executeTool('memory.read_graph', {}));
    assert.equal(r.error.code, 'MCP_SERVER_UNAVAILABLE');
    assert.equal(s.tools.getToolDeclarations().filter((d) => d.namespace === 'memory').length, 9);
  } finally {
    await s.dispose();
  }
});

test('a persona lists mcpServers and allows one namespaced tool; the rest of the server is refused', async () => {
  const upgrades = [
    { id: 'ToolRunner', entry: 'upgrades/tool-runner/index.ts', blueprint: '0x000012', category: 'core' },
    { id: 'McpClient', entry: 'upgrades/mcp-client/index.ts', dependencies: ['ToolRunner'], blueprint: '0x000060', category: 'tools', optionalDependencies: ['Workspace', 'Agent'], events: [...MCP_CLIENT_EVENTS] },
    // Registered (the McpClient may use them), not loaded by this persona.
    { id: 'Workspace', entry: 'upgrades/workspace/index.ts', dependencies: ['ToolRunner'], blueprint: '0x000014', category: 'storage' },
    { id: 'Agent', entry: 'upgrades/agent/index.ts', dependencies: ['ToolRunner', 'Workspace'], blueprint: '0x000050', category: 'agent' },
  ];
  const persona = {
    id: 'default',
    name: 'Graph reader',
    description: 'Reads the knowledge graph only.',
    upgrades: ['ToolRunner', 'McpClient'],
    tools: ['memory.read_graph', 'memory.search_nodes', 'list_mcp_servers'],
    mcpServers: { memory: referenceServers(dir).memory },
  };
  const s = await boot({
    platform: memoryPlatform({
      'modules/upgrades.json': JSON.stringify({ upgrades }),
      'modules/tools-read.json': JSON.stringify([{ name: 'list_mcp_servers', description: 'List.', module: 'McpClient', inputSchema: { type: 'object' } }]),
      'modules/tools-write.json': JSON.stringify([
        { name: 'restart_mcp_server', description: 'Restart.', module: 'McpClient', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
        { name: 'answer_elicitation', description: 'Answer.', module: 'McpClient', audience: 'person', inputSchema: { type: 'object', properties: { id: { type: 'string' }, action: { type: 'string' } }, required: ['id', 'action'] } },
      ]),
      'modules/personas/default.json': JSON.stringify(persona),
    }),
  });
  try {
    assert.equal(s.modules.find((m) => m.id === 'mcp:memory')?.state, 'loaded');
    assert.deepEqual(s.tools.getToolDeclarations().map((d) => d.name).sort(), ['list_mcp_servers', 'memory.read_graph', 'memory.search_nodes']);
    assert.equal((await s.tools.executeTool('memory.read_graph', {})).ok, true);
    const denied = failure(await s.tools.executeTool('memory.create_entities', { entities: [] }));
    assert.equal(denied.error.code, 'TOOL_NOT_ALLOWED');
    assert.match(denied.hint!, /Add "memory\.create_entities" or "memory\.\*" to "tools"/);
  } finally {
    await s.dispose();
  }
});

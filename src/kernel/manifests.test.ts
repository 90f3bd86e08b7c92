import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManifestError } from './errors.ts';
import { findPersona, parseMcpConfig, readManifests } from './manifests.ts';
import { memoryProject } from '../../test/helpers/memory-platform.ts';
import { nodeProjectFiles, projectRoot } from '../platform/node.ts';
import { layeredProjectFiles } from '../platform/platform.ts';

const upgrades = {
  upgrades: [
    { id: 'ToolRunner', entry: 'upgrades/tool-runner/index.ts', blueprint: '0x000012', category: 'core' },
    { id: 'Workspace', entry: 'upgrades/workspace/index.ts', dependencies: ['ToolRunner'], blueprint: '0x000014', category: 'storage' },
  ],
};
const tool = { name: 'read_file', description: 'Read', module: 'Workspace', inputSchema: { type: 'object' } };
const persona = { id: 'default', name: 'D', description: 'd', upgrades: ['ToolRunner', 'Workspace'], tools: ['*'] };

function files(over: Record<string, unknown> = {}) {
  const base: Record<string, unknown> = {
    'modules/upgrades.json': upgrades,
    'modules/tools-read.json': [tool],
    'modules/tools-write.json': [],
    'modules/personas/default.json': persona,
    ...over,
  };
  return memoryProject(Object.fromEntries(Object.entries(base).filter(([, v]) => v !== undefined).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])));
}

async function manifestError(over: Record<string, unknown>): Promise<ManifestError> {
  const e = await readManifests(files(over)).catch((x) => x);
  assert.ok(e instanceof ManifestError, `expected a ManifestError, got ${e}`);
  assert.equal(e.code, 'MANIFEST_INVALID');
  return e;
}

test('valid manifests are read, defaults applied', async () => {
  const m = await readManifests(files());
  assert.deepEqual([...m.upgrades.keys()], ['ToolRunner', 'Workspace']);
  assert.deepEqual(m.upgrades.get('ToolRunner')!.dependencies, []);
  assert.equal(m.tools.get('read_file')!.pythonCallable, true);
  assert.equal(m.tools.get('read_file')!.file, 'modules/tools-read.json');
  assert.deepEqual(m.personas.get('default')!.skills, []);
});

test('invalid JSON names the file', async () => {
  const e = await manifestError({ 'modules/upgrades.json': '{ "upgrades": [' });
  assert.match(e.message, /^\[manifest\] modules\/upgrades\.json: not valid JSON/);
});

test('a schema error names the file, the JSON path and what was expected', async () => {
  const bad = structuredClone(upgrades);
  (bad.upgrades[1] as Record<string, unknown>).entry = 'workspace.js';
  (bad.upgrades[1] as Record<string, unknown>).category = 'misc';
  const e = await manifestError({ 'modules/upgrades.json': bad });
  assert.match(e.message, /modules\/upgrades\.json: at \$\.upgrades\[1\]\.entry: a path of the form "upgrades\/<folder>\/index\.ts"/);
  assert.match(e.message, /at \$\.upgrades\[1\]\.category: Invalid option: expected one of/);
});

test('unknown keys in a tool declaration are rejected with their path', async () => {
  const e = await manifestError({ 'modules/tools-write.json': [{ ...tool, name: 'write_file', inputSchem: {} }] });
  assert.match(e.message, /modules\/tools-write\.json: at \$\[0\]/);
});

test('cross references: unknown dependency, tool module, persona upgrade and tool are named with suggestions', async () => {
  const dep = structuredClone(upgrades);
  dep.upgrades[1]!.dependencies = ['ToolRuner'];
  assert.match((await manifestError({ 'modules/upgrades.json': dep })).message, /Workspace depends on ToolRuner, which is not registered \(did you mean "ToolRunner"\?\)/);
  assert.match(
    (await manifestError({ 'modules/tools-read.json': [{ ...tool, module: 'Workspaces' }] })).message,
    /tools-read\.json: at \$\[0\]\.module: tool read_file names module Workspaces, which is not in modules\/upgrades\.json \(did you mean "Workspace"\?\)/,
  );
  assert.match(
    (await manifestError({ 'modules/personas/default.json': { ...persona, upgrades: ['ToolRunner', 'Workspac'] } })).message,
    /personas\/default\.json: at \$\.upgrades\[1\]: unknown upgrade Workspac \(did you mean "Workspace"\?\)/,
  );
  assert.match(
    (await manifestError({ 'modules/personas/default.json': { ...persona, tools: ['read_fil'] } })).message,
    /at \$\.tools\[0\]: unknown tool read_fil \(did you mean "read_file"\?\)/,
  );
});

test('a tool declared twice names both files', async () => {
  const e = await manifestError({ 'modules/tools-write.json': [tool] });
  assert.match(e.message, /tools-write\.json: at \$\[0\]\.name: tool read_file is already declared in modules\/tools-read\.json/);
});

test('persona id must match its file name, and a default persona must exist', async () => {
  assert.match((await manifestError({ 'modules/personas/default.json': { ...persona, id: 'other' } })).message, /at \$\.id: expected "default"/);
  const noDefault = files({ 'modules/personas/default.json': undefined, 'modules/personas/x.json': { ...persona, id: 'x' } });
  const e = await readManifests(noDefault).catch((x) => x);
  assert.match(String(e.message), /default\.json: the default persona is missing/);
});

test('an unknown persona lists the ones that exist', async () => {
  const m = await readManifests(files());
  assert.throws(() => findPersona(m, 'defualt'), /no persona "defualt" \(did you mean "default"\?\)\. Personas: default/);
});

test('annotations come from the manifest a tool is in; a tool’s own annotations win', async () => {
  const m = await readManifests(
    files({ 'modules/tools-write.json': [{ ...tool, name: 'write_file' }, { ...tool, name: 'make_dir', annotations: { destructiveHint: false, idempotentHint: true } }] }),
  );
  assert.deepEqual(m.tools.get('read_file')!.annotations, { readOnlyHint: true });
  assert.deepEqual(m.tools.get('write_file')!.annotations, { readOnlyHint: false, destructiveHint: true });
  assert.deepEqual(m.tools.get('make_dir')!.annotations, { readOnlyHint: false, destructiveHint: false, idempotentHint: true });
});

test('personas may allow namespaced tools and list MCP servers; bad entries are named', async () => {
  const ok = await readManifests(
    files({ 'modules/personas/default.json': { ...persona, tools: ['read_file', 'memory.*', 'files.read_text_file'], mcpServers: { memory: { command: 'node', args: ['m.js'] }, files: { url: 'http://127.0.0.1:3001/mcp' } } } }),
  );
  const p = ok.personas.get('default')!;
  assert.deepEqual(p.tools, ['read_file', 'memory.*', 'files.read_text_file']);
  assert.deepEqual(p.mcpServers!.memory, { command: 'node', args: ['m.js'], env: {} });
  assert.deepEqual(p.mcpServers!.files, { url: 'http://127.0.0.1:3001/mcp', headers: {} });
  const e = await manifestError({ 'modules/personas/default.json': { ...persona, tools: ['memory.**'], mcpServers: { 'bad name': { command: 'x' }, web: { url: 'ftp://x' }, both: { comand: 'x' } } } });
  assert.match(e.message, /at \$\.tools\[0\]: a tool name in snake_case \("read_file"\), "\*", "<namespace>\.\*"/);
  assert.match(e.message, /at \$\.mcpServers\["bad name"\]: a server name: letters, digits, _ and -/);
  assert.match(e.message, /at \$\.mcpServers\.web\.url: an http\(s\) URL/);
  assert.match(e.message, /at \$\.mcpServers\.both: a server is either \{ "command", "args"\?, "env"\? \} \(stdio\) or \{ "url", "headers"\? \} \(HTTP\)/);
});

test('an --mcp-config file is read in the format other MCP clients use', () => {
  const servers = parseMcpConfig('mcp.json', JSON.stringify({ mcpServers: { memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: 'm.jsonl' } } }, globalShortcut: 'x' }));
  assert.deepEqual(servers.memory, { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], env: { MEMORY_FILE_PATH: 'm.jsonl' } });
  assert.throws(() => parseMcpConfig('mcp.json', '{"servers": {}}'), (e: unknown) => e instanceof ManifestError && /mcp\.json: at \$\.mcpServers: Invalid input/.test(e.message));
  assert.throws(() => parseMcpConfig('mcp.json', '{'), /mcp\.json: not valid JSON/);
});

test("the agent's persona fields: a model, maxSteps and toolMode, each checked with its path", async () => {
  const model = { provider: 'openai-compatible', model: 'qwen2.5', baseURL: 'http://127.0.0.1:11434/v1' };
  const m = await readManifests(files({ 'modules/personas/default.json': { ...persona, model, maxSteps: 12, toolMode: 'direct' } }));
  assert.deepEqual(findPersona(m, 'default').model, model);
  const url = await manifestError({ 'modules/personas/default.json': { ...persona, model: { ...model, baseURL: 'localhost:11434' } } });
  assert.match(url.message, /at \$\.model\.baseURL: an http\(s\) URL, e\.g\. "http:\/\/127\.0\.0\.1:11434\/v1"/);
  const mode = await manifestError({ 'modules/personas/default.json': { ...persona, toolMode: 'python' } });
  assert.match(mode.message, /at \$\.toolMode:/);
  const steps = await manifestError({ 'modules/personas/default.json': { ...persona, maxSteps: 0 } });
  assert.match(steps.message, /at \$\.maxSteps:/);
});

test('the self-modification policy: auto, ask or off per kind, each optional; anything else is named with its path', async () => {
  const m = await readManifests(files({ 'modules/personas/default.json': { ...persona, selfModification: { tools: 'auto', persona: 'off' } } }));
  assert.deepEqual(findPersona(m, 'default').selfModification, { tools: 'auto', persona: 'off' });
  const bad = await manifestError({ 'modules/personas/default.json': { ...persona, selfModification: { tools: 'always' } } });
  assert.match(bad.message, /at \$\.selfModification\.tools: one of "auto", "ask", "off"/);
  const unknown = await manifestError({ 'modules/personas/default.json': { ...persona, selfModification: { skills: 'auto' } } });
  assert.match(unknown.message, /at \$\.selfModification/);
  const shipped = await readManifests(nodeProjectFiles(projectRoot));
  assert.deepEqual(findPersona(shipped, 'default').selfModification, { tools: 'ask', upgrades: 'ask', blueprints: 'ask', persona: 'ask' }, 'the default persona asks, explicitly');
  assert.ok(!findPersona(shipped, 'reader').upgrades.includes('MadeTools'));
});

test('a persona network policy is "none" or origins; anything else names the field and the expected form', async () => {
  const open = await readManifests(files({ 'modules/personas/default.json': { ...persona, network: ['https://api.example.com', 'http://127.0.0.1:8080'] } }));
  assert.deepEqual(open.personas.get('default')!.network, ['https://api.example.com', 'http://127.0.0.1:8080']);
  const closed = await readManifests(files({ 'modules/personas/default.json': { ...persona, network: 'none' } }));
  assert.equal(closed.personas.get('default')!.network, 'none');
  assert.equal((await readManifests(files())).personas.get('default')!.network, undefined, 'absent means none');
  for (const bad of [['https://api.example.com/v1'], 'all', ['ftp://x.example']]) {
    const e = await manifestError({ 'modules/personas/default.json': { ...persona, network: bad } });
    assert.match(e.message, /\$\.network/);
  }
});

test('upgrades declare their own typed events: kebab names, never under a kernel prefix, never twice', async () => {
  const withEvents = (a: string[], b: string[] = []) => ({
    'modules/upgrades.json': { upgrades: [{ ...upgrades.upgrades[0], events: a }, { ...upgrades.upgrades[1], events: b }] },
  });
  const m = await readManifests(files(withEvents(['tool-runner:tuned'])));
  assert.deepEqual(m.upgrades.get('ToolRunner')!.events, ['tool-runner:tuned']);
  assert.deepEqual(m.upgrades.get('Workspace')!.events, []);
  assert.match((await manifestError(withEvents(['tool:tuned']))).message, /upgrades\[0\]\.events\[0\]: tool:tuned uses the kernel's prefix tool: declare it under the upgrade's own \(e\.g\. "tool-runner:\.\.\."\)/);
  assert.match((await manifestError(withEvents(['shared:x'], ['shared:x']))).message, /upgrades\[1\]\.events\[0\]: event shared:x is already declared by ToolRunner/);
  assert.match((await manifestError(withEvents(['NotKebab']))).message, /an event name "<prefix>:<event>" in kebab-case/);
});

test("an upgrade's early start is an early-start.ts in its entry's folder", async () => {
  const withEarly = (earlyStart: string) => ({ 'modules/upgrades.json': { upgrades: [upgrades.upgrades[0], { ...upgrades.upgrades[1], earlyStart }] } });
  const m = await readManifests(files(withEarly('upgrades/workspace/early-start.ts')));
  assert.equal(m.upgrades.get('Workspace')!.earlyStart, 'upgrades/workspace/early-start.ts');
  assert.equal(m.upgrades.get('ToolRunner')!.earlyStart, undefined);
  assert.match((await manifestError(withEarly('upgrades/workspace/warm.ts'))).message, /upgrades\[1\]\.earlyStart: a path of the form "upgrades\/<folder>\/early-start\.ts"/);
  assert.match((await manifestError(withEarly('upgrades/tool-runner/early-start.ts'))).message, /upgrades\[1\]\.earlyStart: an early start in the folder of the upgrade's entry/);
});

test('a persona may deny tools its allow-list would grant', async () => {
  const m = await readManifests(files({ 'modules/personas/default.json': { ...persona, denyTools: ['delete_file', 'memory.*'] } }));
  assert.deepEqual(m.personas.get('default')!.denyTools, ['delete_file', 'memory.*']);
  assert.match((await manifestError({ 'modules/personas/default.json': { ...persona, denyTools: ['Bad Name'] } })).message, /denyTools\[0\]/);
});

/** The manifests of `files()` (the package) with `rootFiles` as a user's root beside them. */
function layered(rootFiles: Record<string, unknown>) {
  const root = memoryProject(Object.fromEntries(Object.entries(rootFiles).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])));
  return layeredProjectFiles([
    { kind: 'package', location: 'the package', files: files() },
    { kind: 'root', location: '/home/me/tally', files: root, moduleBase: 'file:///home/me/tally/' },
  ]);
}

const rootUpgrade = { id: 'Tally', entry: 'upgrades/tally/index.mjs', dependencies: ['ToolRunner'], blueprint: '0x100001', category: 'tools' };
const rootTool = { name: 'tally_add', description: 'Add', module: 'Tally', inputSchema: { type: 'object' } };
const rootPersona = { id: 'tally', name: 'T', description: 't', upgrades: ['ToolRunner', 'Tally'], tools: ['tally_add', 'read_file'] };

test("a root's manifests are read beside the package's: its upgrades (JavaScript, with their base URL), tools and personas", async () => {
  const m = await readManifests(layered({ 'modules/upgrades.json': { upgrades: [rootUpgrade] }, 'modules/tools-write.json': [rootTool], 'modules/personas/tally.json': rootPersona }));
  assert.deepEqual([...m.upgrades.keys()], ['ToolRunner', 'Workspace', 'Tally']);
  assert.equal(m.upgrades.get('Tally')!.base, 'file:///home/me/tally/');
  assert.equal(m.upgrades.get('ToolRunner')!.base, undefined);
  assert.deepEqual([m.tools.get('tally_add')!.file, m.tools.get('tally_add')!.annotations], ['/home/me/tally/modules/tools-write.json', { readOnlyHint: false, destructiveHint: true }]);
  assert.deepEqual([...m.personas.keys()], ['default', 'tally']);
  // Every file of a root is optional: a root of personas alone is a root.
  const personasOnly = await readManifests(layered({ 'modules/personas/mine.json': { ...persona, id: 'mine', upgrades: ['ToolRunner'] } }));
  assert.deepEqual([...personasOnly.personas.keys()], ['default', 'mine']);
});

test("a root cannot take the package's ids: an upgrade, a tool or a persona of the same name is refused, naming the file", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ 'modules/upgrades.json': { upgrades: [{ ...rootUpgrade, id: 'Workspace' }] } }, /^\[manifest\] \/home\/me\/tally\/modules\/upgrades\.json: at \$\.upgrades\[0\]\.id: upgrade Workspace is one of the package's own: a root adds to the package, it cannot replace what it ships; rename yours/],
    [{ 'modules/upgrades.json': { upgrades: [rootUpgrade] }, 'modules/tools-read.json': [{ ...rootTool, name: 'read_file' }] }, /tools-read\.json: at \$\[0\]\.name: tool read_file is one of the package's own/],
    [{ 'modules/personas/default.json': persona }, /\/home\/me\/tally\/modules\/personas\/default\.json: at \$\.id: persona default is one of the package's own/],
    [{ 'modules/upgrades.json': { upgrades: [{ ...rootUpgrade, entry: 'tally.js' }] } }, /at \$\.upgrades\[0\]\.entry: a path of the form "upgrades\/<folder>\/index\.js"/],
  ];
  for (const [rootFiles, message] of cases) {
    const e = await readManifests(layered(rootFiles)).catch((x: unknown) => x);
    assert.ok(e instanceof ManifestError, String(e));
    assert.match(e.message, message);
  }
});

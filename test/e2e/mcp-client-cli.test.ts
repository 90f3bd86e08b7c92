// The reference MCP servers through `--mcp-config`, as a newcomer would pass them to each command:
// their tools listed, called from the CLI and from Python, converted to every provider's format
// within its published rules, and the prompt economy with all three loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { referenceServers } from '../helpers/mcp-servers.ts';
import { providerProblems } from '../helpers/provider-rules.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const bin = fileURLToPath(new URL('../../bin/armature.js', import.meta.url));
const dir = tempDir('mcp-cli');
const data = join(dir, 'data');
const config = join(dir, 'mcp.json');
writeFileSync(config, JSON.stringify({ mcpServers: referenceServers(dir) }, null, 2));
const cli = (...args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args, '--data', data], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

test('boot lists each server as a module under McpClient; a broken one fails the boot with its error', () => {
  const ok = cli('boot', '--mcp-config', config);
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.out, /^McpClient\s+loaded\s+1\.0\.0\s+[\d.]+\n {2}mcp:memory\s+loaded\s+0\.6\.3\s+[\d.]+\n {2}mcp:filesystem\s+loaded\s+0\.2\.0\s+[\d.]+\n {2}mcp:everything\s+loaded\s+2\.0\.0\s+[\d.]+$/m);
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, JSON.stringify({ mcpServers: { ...referenceServers(dir), ghost: { command: 'armature-no-such-server' } } }));
  const bad = cli('boot', '--mcp-config', broken);
  assert.equal(bad.code, 1);
  assert.match(bad.out, /^ {2}mcp:ghost\s+FAILED/m);
  assert.match(bad.out, /^mcp:ghost failed: the MCP server ghost \(armature-no-such-server\) could not start: spawn armature-no-such-server ENOENT/m);
  const json = JSON.parse(cli('boot', '--json', '--mcp-config', broken).out);
  assert.deepEqual(json.modules.filter((m: { parent?: string }) => m.parent).map((m: { id: string; state: string }) => `${m.id}:${m.state}`), ['mcp:memory:loaded', 'mcp:filesystem:loaded', 'mcp:everything:loaded', 'mcp:ghost:failed']);
});

test('tools and call: the servers’ tools under their namespaces, called from the CLI', () => {
  const tools = JSON.parse(cli('tools', '--json', '--mcp-config', config).out) as { name: string }[];
  const names = tools.map((t) => t.name);
  for (const n of ['memory.create_entities', 'filesystem.read_text_file', 'everything.get-sum', 'read_file', 'execute_python']) assert.ok(names.includes(n), n);
  const created = cli('call', 'memory.create_entities', JSON.stringify({ entities: [{ name: 'Grace', entityType: 'person', observations: ['wrote a compiler'] }] }), '--mcp-config', config);
  assert.equal(created.code, 0, created.err);
  assert.deepEqual(JSON.parse(created.out).value.entities[0].name, 'Grace');
  const denied = cli('call', 'filesystem.read_text_file', '{"path": "/etc/hostname"}', '--mcp-config', config);
  assert.equal(denied.code, 1);
  assert.equal(JSON.parse(denied.out).error.code, 'MCP_TOOL_ERROR');
});

test('run: Python imports a server’s tools as functions with real signatures and docstrings', () => {
  const code = [
    'import inspect',
    'from tools.memory import create_entities, read_graph',
    'from tools.everything import get_sum',
    'create_entities([{"name": "Alan", "entityType": "person", "observations": []}])',
    'print(inspect.signature(create_entities))',
    'print(create_entities.__doc__.splitlines()[0])',
    'print(get_sum(2, 3))',
    'sorted(e["name"] for e in read_graph()["entities"])',
  ].join('\n');
  const r = cli('run', '-c', code, '--mcp-config', config);
  assert.equal(r.code, 0, r.err);
  assert.equal(
    r.out,
    '(entities: list[dict[str, typing.Any]], *, instance_id: str | None = None) -> Any\nCreate multiple new entities in the knowledge graph\nThe sum of 2 and 3 is 5.\n=> ["Alan","Grace"]\n',
  );
});

test('prompt --stats with the three servers: the fragment is at most 5% of the schemas it replaces', () => {
  const r = cli('prompt', '--stats', '--mcp-config', config);
  assert.equal(r.code, 0, r.err);
  const m = /prompt: (\d+) characters; the same tools as full JSON schemas: (\d+) characters \(([\d.]+)%\)\./.exec(r.err)!;
  assert.ok(m, r.err);
  assert.ok(Number(m[1]) / Number(m[2]) <= 0.05, r.err);
  assert.match(r.out, /^memory: /m);
  assert.match(r.out, /^filesystem: /m);
  assert.match(r.out, /^everything: /m);
});

// Every format is checked in process by test/integration/tools-format.test.ts; here, the command.
test('tools --format prints a provider’s declarations with the alias map, within its published rules', () => {
  // The same tools as the plain listing: every allowed tool, the MCP servers' included.
  const expected = (JSON.parse(cli('tools', '--json', '--mcp-config', config).out) as unknown[]).length;
  assert.ok(expected > 40, `the built-in tools and the three servers' tools, got ${expected}`);
  for (const [format, strict] of [['openai', true], ['anthropic', true], ['gemini', false]] as const) {
    const r = cli('tools', '--format', format, ...(strict ? ['--strict'] : []), '--mcp-config', config);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out) as { format: string; strict: boolean; tools: Record<string, unknown>[]; aliases: Record<string, string>; warnings: string[] };
    assert.equal(out.tools.length, expected);
    for (const decl of out.tools) assert.deepEqual(providerProblems(format, strict, decl), [], `${format}${strict ? ' strict' : ''}: ${JSON.stringify(decl).slice(0, 400)}`);
    if (format === 'openai' || format === 'anthropic') assert.equal(out.aliases['memory__create_entities'], 'memory.create_entities');
    if (format === 'anthropic' && strict) assert.match(out.warnings.join('\n'), /at most 20 strict tools per request/);
  }
  const bad = cli('tools', '--format', 'gemini', '--strict');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--strict applies to openai, openai-responses, anthropic; gemini has no strict mode/);
  assert.match(cli('tools', '--format', 'cohere').err, /--format takes one of openai, openai-responses, anthropic, gemini, mcp, got "cohere"/);
});

test('bad --mcp-config files and personas without McpClient are explained, exit 2', () => {
  assert.match(cli('boot', '--mcp-config', join(dir, 'missing.json')).err, /cannot read --mcp-config .*missing\.json: no such file/);
  const typo = join(dir, 'typo.json');
  writeFileSync(typo, JSON.stringify({ mcpServers: { memory: { comand: 'npx' } } }));
  const t = cli('tools', '--mcp-config', typo);
  assert.equal(t.code, 2);
  assert.match(t.err, /typo\.json: at \$\.mcpServers\.memory: a server is either \{ "command", "args"\?, "env"\? \} \(stdio\) or \{ "url", "headers"\? \} \(HTTP\)/);
  const reader = cli('tools', '--persona', 'reader', '--mcp-config', config);
  assert.equal(reader.code, 2);
  assert.match(reader.err, /persona reader does not load McpClient, which runs the servers of --mcp-config/);
});

test('run: server-everything through --mcp-config, from Python — resources, prompts, the workspace as its root; sampling and elicitation refused, each saying why', () => {
  const code = [
    'from tools.everything import read_resource, get_prompt, get_resource_links, get_roots_list, trigger_sampling_request, trigger_elicitation_request',
    'link = [c for c in get_resource_links(count=1) if c["type"] == "resource_link"][0]',
    'print("read", read_resource(link["uri"])["contents"][0]["uri"] == link["uri"])',
    'print("prompt", get_prompt("args-prompt", {"city": "Oslo"})["messages"][0]["content"]["text"])',
    'print("roots", "/workspace" in get_roots_list())',
    'for f in (lambda: trigger_sampling_request(prompt="hi"), trigger_elicitation_request):',
    '    try:',
    '        f()',
    '    except Exception as e:',
    '        print("refused", str(e)[:400].replace("\\n", " "))',
  ].join('\n');
  const r = cli('run', '--mcp-config', config, '-c', code);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^read True$/m);
  assert.match(r.out, /^prompt What's weather in Oslo\?$/m);
  assert.match(r.out, /^roots True$/m, 'the workspace folder (data/workspace) is the client\'s root');
  // The default persona allows sampling, but has no model configured here; no terminal answers elicitation.
  assert.match(r.out, /^refused .*sampling refused: .*no model is configured/m);
  assert.match(r.out, /^refused .*elicitation refused: nobody can answer here/m);
});

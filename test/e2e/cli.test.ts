// The CLI as a newcomer runs it: `armature boot|tools|call`, through the real bin script.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/temp-dir.ts';

const bin = fileURLToPath(new URL('../../bin/armature.js', import.meta.url));
const cwd = tempDir('cli');
const cli = (...args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

test('boot prints modules with state and load time; --json is machine-readable', () => {
  const human = cli('boot');
  assert.equal(human.code, 0, human.err);
  assert.match(human.out, /Persona default \(Default agent\): (\d+) of \1 modules loaded/);
  assert.match(human.out, /ToolRunner\s+loaded\s+1\.0\.0\s+\d+\.\d/);
  const json = JSON.parse(cli('boot', '--json').out);
  assert.equal(json.persona, 'default');
  assert.ok(json.modules.every((m: { state: string; durationMs: number }) => m.state === 'loaded' && m.durationMs >= 0));
  // --data defaults to .armature in the current directory.
  assert.ok(existsSync(join(cwd, '.armature', 'workspace')));
});

test('tools lists what the persona allows', () => {
  const all = JSON.parse(cli('tools', '--json').out).map((t: { name: string }) => t.name);
  assert.ok(all.includes('write_file'));
  const reader = JSON.parse(cli('tools', '--persona', 'reader', '--json').out).map((t: { name: string }) => t.name);
  assert.ok(!reader.includes('write_file') && reader.includes('read_file'));
});

test('call runs a tool: exit 0 when ok, 1 otherwise, with the structured result as JSON', () => {
  const data = tempDir('cli-data');
  const w = cli('call', 'write_file', '{"path":"hello.txt","content":"hi there"}', '--data', data);
  assert.equal(w.code, 0, w.err);
  assert.equal(JSON.parse(w.out).ok, true);
  const r = cli('call', 'read_file', '{"path":"hello.txt"}', '--data', data);
  assert.equal(JSON.parse(r.out).value.content, 'hi there');
  const bad = cli('call', 'read_file', '{"path":"../etc/passwd"}', '--data', data);
  assert.equal(bad.code, 1);
  assert.equal(JSON.parse(bad.out).error.code, 'INVALID_PATH');
  const denied = cli('call', 'write_file', '{"path":"a","content":"b"}', '--persona', 'reader', '--data', data);
  assert.equal(denied.code, 1);
  assert.equal(JSON.parse(denied.out).error.code, 'TOOL_NOT_ALLOWED');
});

test('bad usage is explained on stderr with exit code 2', () => {
  const badJson = cli('call', 'read_file', '{path:');
  assert.equal(badJson.code, 2);
  assert.match(badJson.err, /the arguments for read_file are not valid JSON/);
  const unknown = cli('frobnicate');
  assert.equal(unknown.code, 2);
  // A few lines that name the commands, not the whole usage.
  assert.equal(unknown.err, 'armature: unknown command "frobnicate"\ncommands: start, init, boot, tools, call, run, prompt, mcp, agent, runs, changes, approve, reject\narmature --help shows every command and option\n');
  assert.match(cli('tols').err, /^armature: unknown command "tols"; did you mean "tools"\?\n/);
  const persona = cli('boot', '--persona', 'nobody');
  assert.equal(persona.code, 1);
  assert.match(persona.err, /no persona "nobody"/);
  assert.equal(cli('--help').code, 0);
  const option = cli('boot', '--verbose');
  assert.equal(option.code, 2);
  assert.equal(option.err, 'armature: unknown option "--verbose"\narmature --help shows every command and option\n');
  assert.match(cli('boot', '--jsn').err, /^armature: unknown option "--jsn"; did you mean "--json"\?\n/);
  assert.match(cli('boot', '-x').err, /^armature: unknown option "-x"\n/);
  assert.doesNotMatch(option.err, /positional argument/);
});

test('an option given to a command it does not apply to is refused, not ignored', () => {
  for (const [args, message] of [
    [['call', 'read_file', '{"path":"a"}', '--timeout', '5'], '--timeout applies to run, not to call'],
    [['boot', '-c', 'print(1)'], '-c applies to run, not to boot'],
    [['tools', '--stats'], '--stats applies to prompt, not to tools'],
    [['run', '-c', '1', '--max-steps', '3'], '--max-steps applies to agent, not to run'],
    [['boot', '--port', '9000'], '--port applies to start and mcp --http, not to boot'],
    [['tools', '--http'], '--http applies to mcp, not to tools'],
    [['boot', '--format', 'openai'], '--format applies to tools, not to boot'],
    [['start', '--init-timeout', '5000'], '--init-timeout applies to every command but start and init, not to start'],
    [['init', 'somewhere', '--init-timeout', '5000'], '--init-timeout applies to every command but start and init, not to init'],
  ] as const) {
    const r = cli(...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.equal(r.err, `armature: ${message}: leave it out\n`);
    assert.equal(r.out, '');
  }
});

test('run streams Python output live, prints the value, and exits 0 or 1', () => {
  const data = tempDir('cli-run');
  const ok = cli('run', '-c', 'import sys\nprint("to stdout")\nprint("to stderr", file=sys.stderr)\nfrom tools.workspace import write_file\nwrite_file("from-cli.txt", "hi")\n{"answer": 6 * 7}', '--data', data);
  assert.equal(ok.code, 0, ok.err);
  assert.equal(ok.out, 'to stdout\n=> {"answer":42}\n');
  assert.equal(ok.err, 'to stderr\n');
  const back = cli('call', 'read_file', '{"path":"from-cli.txt"}', '--data', data);
  assert.equal(JSON.parse(back.out).value.content, 'hi');
  const bad = cli('run', '-c', 'def f():\n    raise ValueError("nope")\nf()', '--data', data);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /File "<python:\d+>", line 3, in <module>\n    f\(\)\n[\s\S]*File "<python:\d+>", line 2, in f\n    raise ValueError\("nope"\)\nValueError: nope/);
  const json = cli('run', '-c', 'print("quiet")\n1 + 1', '--json', '--data', data);
  assert.equal(json.code, 0);
  const parsed = JSON.parse(json.out);
  assert.deepEqual([parsed.ok, parsed.value.value, parsed.value.stdout], [true, 2, 'quiet\n']);
  const timeout = cli('run', '-c', 'while True: pass', '--timeout', '300', '--data', data);
  assert.equal(timeout.code, 1);
  assert.match(timeout.err, /hint: The run was interrupted after 300 ms; globals survived/);
});

test('installing a package by name leaves nothing in the working directory; downloads go under the data dir', () => {
  const dir = tempDir('cli-install');
  const data = join(dir, 'data');
  const r = spawnSync(process.execPath, [bin, 'call', 'install_python_package', '{"package": "micropip"}', '--data', data], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  // Offline the download fails; the point is where the attempt writes.
  assert.equal(r.status, 1, r.stderr);
  assert.match(JSON.parse(r.stdout).error.message, /could not install micropip/);
  assert.deepEqual(readdirSync(dir), ['data']);
  // Python runs in a confined child here, which keeps its downloads in a folder of its own.
  assert.ok(existsSync(join(data, 'cache', 'pyodide-packages-confined')));
});

test('run reads a file; bad usage is explained', () => {
  const dir = tempDir('cli-file');
  writeFileSync(join(dir, 'job.py'), 'print(sum(range(10)))\n');
  const r = cli('run', join(dir, 'job.py'), '--data', dir);
  assert.equal(r.out, '45\n');
  assert.match(cli('run', join(dir, 'missing.py')).err, /cannot read .*missing\.py: no such file\n/);
  // Code where a file was expected: the message shows how to pass it.
  assert.match(cli('run', 'print(6 * 7)').err, /cannot read print\(6 \* 7\): no such file; to run Python given here instead, pass it with -c: armature run -c "print\(6 \* 7\)"/);
  assert.match(cli('run').err, /run needs either a FILE\.py or -c CODE/);
  assert.match(cli('run', '-c', '1', '--timeout', 'soon').err, /--timeout takes a whole number of milliseconds, got "soon"/);
  const limit = cli('boot', '--init-timeout', '0');
  assert.equal(limit.code, 2);
  assert.match(limit.err, /^armature: --init-timeout takes a whole number of milliseconds from 1 to 2147483647, got "0"\n$/);
});

test('prompt prints the system-prompt fragment; --stats compares it with the JSON schemas', () => {
  const r = cli('prompt', '--stats');
  assert.equal(r.code, 0);
  assert.match(r.out, /^workspace: (from tools\.workspace import )?delete_file, list_files, read_file, write_file$/m);
  assert.match(r.out, /retry — at most twice/);
  assert.match(r.err, /prompt: \d+ characters; the same tools as full JSON schemas: \d+ characters \([\d.]+%\)\./);
  const reader = cli('prompt', '--persona', 'reader');
  assert.equal(reader.code, 2);
  assert.match(reader.err, /persona reader does not load PythonTool, which writes the prompt: add "PythonTool" to "upgrades"/);
});

test('a command other than boot says which modules failed, so their missing tools have a reason', () => {
  // A data folder that is a file: the workspace cannot start, nor what needs it.
  const dir = tempDir('cli-failed-module');
  const data = join(dir, 'not-a-folder');
  writeFileSync(data, 'a file');
  const r = cli('call', 'list_files', '{}', '--data', data);
  assert.equal(r.code, 1);
  // The call itself says why the tool is missing.
  const answer = JSON.parse(r.out);
  assert.equal(answer.error.code, 'TOOL_UNAVAILABLE');
  assert.match(answer.error.message, /^\[executeTool\] list_files is unavailable: its module Workspace failed to load \(MODULE_INIT_FAILED: .*ENOTDIR/);
  assert.match(r.err, /^armature: module Workspace failed \(and with it Changes, [^)]*\), so their tools are missing: .*ENOTDIR.*not-a-folder/m);
  assert.match(r.err, /armature boot lists every module/);
  // stdout stays machine-readable; the reason goes to stderr.
  const tools = cli('tools', '--json', '--data', data);
  assert.ok(!JSON.parse(tools.out).some((t: { name: string }) => t.name === 'list_files'));
  assert.match(tools.err, /module Workspace failed/);
  // boot lists them itself, once.
  assert.doesNotMatch(cli('boot', '--data', data).err, /armature: module/);
  // A command whose upgrade failed says so (exit 1), not that the persona lacks it (exit 2).
  const changes = cli('changes', '--data', data);
  assert.equal(changes.code, 1);
  assert.match(changes.err, /^armature: Changes, which keeps the changes, failed to load \(because Workspace failed\): .*not-a-folder/m);
  const reader = cli('changes', '--persona', 'reader', '--data', data);
  assert.equal(reader.code, 2, reader.err);
  assert.match(reader.err, /persona reader does not load Changes, which keeps the changes/);
});

test('a reader that stops early (armature run ... | head -1) ends the output quietly, with the exit code of the run', async () => {
  const code = 'import time\nfor i in range(40):\n    print(i, flush=True)\n    time.sleep(0.02)';
  const child = spawn(process.execPath, [bin, 'run', '-c', code, '--data', tempDir('cli-epipe')], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d));
  // The first line read, the reader goes, as head does; Python goes on printing.
  child.stdout.once('data', () => child.stdout.destroy());
  const exit = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.doesNotMatch(err, /EPIPE|\n\s+at /, 'no stack trace');
  assert.equal(exit, 0, err);
});

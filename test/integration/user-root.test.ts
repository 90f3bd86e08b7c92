// A root of the user's own beside the package's: `armature init` writes one, `boot({ root })` and
// `armature --root DIR` (or ARMATURE_ROOT) read its personas, manifests, blueprints and upgrades.
// The installed package's side (the starter's own test, the built CLI) is in test/e2e/package.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { boot } from '../../src/kernel/boot/boot.ts';
import { ManifestError } from '../../src/kernel/errors.ts';
import { starterFiles } from '../../src/cli/starter-files.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';

/** A root holding the starter's files, changed by `edit` (path -> text, or null to remove). */
function root(edit: Record<string, string | null> = {}): string {
  const dir = tempDir('root');
  for (const [path, text] of Object.entries({ ...starterFiles('mine'), ...edit })) {
    if (text === null) continue;
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

test('boot({ root }) loads a persona and an upgrade of the root; its tools answer directly and from Python', async () => {
  const sys = await boot({ root: root(), persona: 'tally', dataDir: tempDir('root-data') });
  try {
    assert.deepEqual(sys.modules.map((m) => [m.id, m.state]), ['ToolRunner', 'Workspace', 'PyodideRuntime', 'PythonTool', 'Tally'].map((id) => [id, 'loaded']));
    assert.deepEqual((await sys.tools.executeTool('tally_add', { name: 'apples', by: 2 })).ok && true, true);
    const py = await sys.tools.executeTool<{ value: unknown }>('execute_python', { code: 'from tools.tally import tally_add, tally_counts\ntally_add(name="apples")\ntally_counts()' });
    assert.equal(py.ok, true, JSON.stringify(py));
    assert.deepEqual(py.ok && py.value.value, { counts: { apples: 3 }, total: 3 });
    // The package's personas are still there, beside the root's.
    assert.ok(sys.manifests.personas.has('default') && sys.manifests.personas.has('tally'));
  } finally {
    await sys.dispose();
  }
});

test("a root's blueprints are listed with the package's; one that takes a package blueprint's id is refused, naming both", async () => {
  const reader = await boot({ root: root(), persona: 'reader', dataDir: tempDir('root-reader') });
  try {
    const listed = await reader.tools.executeTool<{ blueprints: { id: string }[] }>('list_blueprints', {});
    assert.ok(listed.ok && listed.value.blueprints.some((b) => b.id === '0x100001'), JSON.stringify(listed));
  } finally {
    await reader.dispose();
  }
  const clash = root({ 'blueprints/0x100001-tally.md': starterFiles('x')['blueprints/0x100001-tally.md']!.replace('id: 0x100001', 'id: 0x000012') });
  const sys = await boot({ root: clash, persona: 'reader', dataDir: tempDir('root-clash') });
  try {
    const failed = sys.modules.find((m) => m.id === 'Blueprints')!;
    assert.equal(failed.state, 'failed');
    assert.match(failed.error!.message, /blueprints\/0x100001-tally\.md: id 0x000012 is already used by blueprints\/0x000012-tool-runner\.md/);
  } finally {
    await sys.dispose();
  }
});

test("a root that names one of the package's upgrades is refused at boot with the file and the fix", async () => {
  const registry = JSON.parse(starterFiles('x')['modules/upgrades.json']!) as { upgrades: { id: string }[] };
  registry.upgrades[0]!.id = 'Workspace';
  await assert.rejects(boot({ root: root({ 'modules/upgrades.json': JSON.stringify(registry) }), dataDir: tempDir('root-bad') }), (e: unknown) => {
    assert.ok(e instanceof ManifestError);
    assert.match(e.message, /modules\/upgrades\.json: at \$\.upgrades\[0\]\.id: upgrade Workspace is one of the package's own: .*rename yours/);
    return true;
  });
});

test('the python persona boots the kernel, the workspace and Python alone', async () => {
  const sys = await boot({ persona: 'python', dataDir: tempDir('python-persona') });
  try {
    assert.deepEqual(sys.modules.map((m) => [m.id, m.state]), ['ToolRunner', 'Workspace', 'PyodideRuntime', 'PythonTool'].map((id) => [id, 'loaded']));
  } finally {
    await sys.dispose();
  }
});

test('armature init writes the starter, refuses to overwrite, and the CLI boots it with --root and ARMATURE_ROOT', async () => {
  const cwd = tempDir('init');
  const init = await runCli(['init', 'mine'], cwd);
  assert.equal(init.code, 0, init.err);
  const dir = join(cwd, 'mine');
  for (const path of [...Object.keys(starterFiles('mine')), 'package.json']) assert.ok(existsSync(join(dir, path)), `init did not write ${path}`);
  assert.equal(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).scripts.test, 'node --test');
  const again = await runCli(['init', 'mine'], cwd);
  assert.equal(again.code, 1);
  assert.match(again.err, /init would overwrite README\.md, blueprints\/0x100001-tally\.md, modules\/personas\/tally\.json, .* nothing was written/);

  const booted = await runCli(['--root', dir, 'boot', '--persona', 'tally', '--json', '--data', join(cwd, 'data')], cwd);
  assert.equal(booted.code, 0, booted.err);
  assert.deepEqual(JSON.parse(booted.out).modules.map((m: { id: string; state: string }) => [m.id, m.state]).at(-1), ['Tally', 'loaded']);
  const called = await runCli(['call', 'tally_add', '{"name": "pears"}', '--persona', 'tally', '--data', join(cwd, 'data')], cwd, { ARMATURE_ROOT: dir });
  assert.equal(called.code, 0, called.err);
  assert.deepEqual(JSON.parse(called.out).value, { name: 'pears', count: 1 });
  const missing = await runCli(['--root', join(cwd, 'nope'), 'tools'], cwd);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /--root ".*nope" is not a folder/);
});

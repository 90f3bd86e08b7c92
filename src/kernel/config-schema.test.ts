// Upgrades' options checked at boot against their schemas: the upgrade, the key, the value and
// what it takes. The compile-time side (boot({ config }) typed per upgrade) is in
// test/types/public-types.ts, which the type checker compiles with the suite.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { boot } from './boot/boot.ts';
import type { BootConfig } from './config-schema.ts';

/** Boots `persona` with `config` (any shape: these are the mistakes the types refuse) and returns the failed modules' messages. */
async function failures(persona: string, config: unknown): Promise<Record<string, string>> {
  const sys = await boot({ persona, config: config as BootConfig, dataDir: tempDir('config') });
  try {
    return Object.fromEntries(sys.modules.filter((m) => m.state === 'failed' && !m.rootCause).map((m) => [m.id, m.error!.message]));
  } finally {
    await sys.dispose();
  }
}

test('a misspelt option fails its upgrade, naming the upgrade, the key, the nearest option and every option it takes', async () => {
  const failed = await failures('python', { PyodideRuntime: { isolaton: 'process', autoStart: false } });
  assert.deepEqual(Object.keys(failed), ['PyodideRuntime']);
  assert.match(failed.PyodideRuntime!, /^\[init\] PyodideRuntime failed to initialize: \[config\] PyodideRuntime: unknown option "isolaton" \(did you mean "isolation"\?\); PyodideRuntime takes autoStart, isolation, network, /);
});

test('a value an option cannot take is named with what it takes: the allowed values, the kind, the range', async () => {
  const failed = await failures('python', {
    PyodideRuntime: { isolation: 'procs', autoStart: false },
    Workspace: { maxFileBytes: -1, maxTotalBytes: '5MB' },
  });
  assert.match(failed.PyodideRuntime!, /\[config\] PyodideRuntime: option isolation "procs" is not one of "process", "thread"$/);
  assert.match(failed.Workspace!, /\[config\] Workspace: option maxFileBytes -1 is not usable: it must be a number of 0 or more; option maxTotalBytes "5MB" is not usable: it must be a number$/);
  const python = await failures('python', { PyodideRuntime: { autoStart: false }, PythonTool: { readyTimeoutMs: 0 } });
  assert.match(python.PythonTool!, /\[config\] PythonTool: option readyTimeoutMs 0 is not usable: it must be a time limit of 1 to 2147483647 ms$/);
});

test('an upgrade without options refuses any; a good config boots everything', async () => {
  const failed = await failures('reader', { Blueprints: { dir: 'x' } });
  assert.match(failed.Blueprints!, /\[config\] Blueprints: unknown option "dir"; Blueprints takes no options$/);
  assert.deepEqual(await failures('reader', { Workspace: { maxFileBytes: 1024 }, ToolRunner: { defaultTimeoutMs: 5000 } }), {});
});

test('options for an upgrade no manifest registers reject the boot, with the nearest id', async () => {
  await assert.rejects(boot({ persona: 'reader', config: { PyodideRuntim: { autoStart: false } } as BootConfig, dataDir: tempDir('config-id') }), (e: Error & { code?: string; hint?: string }) => {
    assert.equal(e.code, 'INVALID_CONFIG');
    assert.equal(e.message, '[config] no upgrade "PyodideRuntim" (did you mean "PyodideRuntime"?): its options would go nowhere');
    assert.match(e.hint!, /Key config by an upgrade id: ToolRunner, Workspace, /);
    return true;
  });
});

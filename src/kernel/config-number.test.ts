import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boot } from '../index.ts';
import { tempDir } from '../../test/helpers/temp-dir.ts';
import { configNumber } from './config-number.ts';

test('a number option is read, defaulted when absent, and refused with its name, value and fix when unusable', () => {
  assert.equal(configNumber({ a: 5 }, 'X', 'a', 1), 5);
  assert.equal(configNumber({}, 'X', 'a', 1), 1);
  assert.equal(configNumber({}, 'X', 'a'), undefined);
  assert.equal(configNumber({ share: 0 }, 'X', 'share', 0.5), 0);
  const refused = (config: Record<string, unknown>, key: string, message: RegExp) =>
    assert.throws(() => configNumber(config, 'MadeUpgrades', key, 2000), (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'INVALID_CONFIG');
      assert.match(e.message, message);
      assert.equal(e.hint, `Set MadeUpgrades.${key} to a number (default 2000), or leave it out.`);
      return true;
    });
  refused({ drainTimeoutMs: '5000' }, 'drainTimeoutMs', /^\[MadeUpgrades\] config drainTimeoutMs "5000" is not usable: it must be a number of 0 or more$/);
  refused({ n: -1 }, 'n', /config n -1 is not usable/);
  refused({ n: Number.NaN }, 'n', /config n NaN is not usable/);
  // A timer cannot hold more: it would fire at once.
  refused({ drainTimeoutMs: 2 ** 31 }, 'drainTimeoutMs', /config drainTimeoutMs 2147483648 is out of range: it must be 1 to 2147483647 ms/);
  refused({ drainTimeoutMs: 0 }, 'drainTimeoutMs', /config drainTimeoutMs 0 is out of range/);
});

test('an upgrade booted with an unusable option fails to load saying why; the rest of the system boots', async () => {
  const sys = await boot({ dataDir: tempDir('config-number'), config: { MadeTools: { callTimeoutMs: 2 ** 31 } } });
  try {
    const report = sys.modules.find((m) => m.id === 'MadeTools');
    assert.equal(report?.state, 'failed');
    assert.match(report?.error?.message ?? '', /\[config\] MadeTools: option callTimeoutMs 2147483648 is not usable: it must be a time limit of 1 to 2147483647 ms/);
    const w = await sys.tools.executeTool('write_file', { path: 'kept.txt', content: 'x' });
    assert.equal(w.ok, true, 'other modules keep working');
  } finally {
    await sys.dispose();
  }
});

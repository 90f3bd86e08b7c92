// `npm test` without Chromium: fails at once with one line saying how to install it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

test('without Chromium, the test command stops at once with one line on how to install it', () => {
  const script = fileURLToPath(new URL('../../scripts/test.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [script], { encoding: 'utf8', env: { ...process.env, CHROME_PATH: '/nonexistent/chromium' }, timeout: 30_000 });
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /^Chromium not found at \/nonexistent\/chromium: install it with 'sudo apt-get install -y chromium' or set CHROME_PATH/);
});

// The type checker is part of the suite: type-level tests (`@ts-expect-error` on event names and
// payloads) only mean something if the compiler runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const check = (...flags: string[]) => spawnSync(process.execPath, [tsc, '--noEmit', '-p', root, ...flags], { encoding: 'utf8', cwd: root });

test('tsc --noEmit reports no type errors', () => {
  const r = check();
  assert.equal(r.status, 0, `type errors:\n${r.stdout}${r.stderr}`);
});

test('the sources also type-check under module nodenext, where CommonJS-typed packages (mitt) import differently', () => {
  const r = check('--module', 'nodenext', '--moduleResolution', 'nodenext');
  assert.equal(r.status, 0, `type errors under nodenext:\n${r.stdout}${r.stderr}`);
});

// The linter is part of the suite: Biome, with the rules that catch defects here (floating and
// misused promises, unused imports and values, explicit `any` outside tests, unsafe optional
// chaining, type-only imports written as such) — biome.json says which and why others are off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');

test('biome lint reports nothing (errors and warnings)', () => {
  const r = spawnSync(process.execPath, [biome, 'lint', '--error-on-warnings', '--max-diagnostics=50', '--colors=off', '.'], { encoding: 'utf8', cwd: root });
  assert.equal(r.status, 0, `lint findings (npm run lint shows them; biome lint --write fixes the safe ones):\n${r.stdout}${r.stderr}`);
});

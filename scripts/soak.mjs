#!/usr/bin/env node
// `npm run soak`: the reliability suite (test/reliability/) run long — 100,000 fuzzed tool calls,
// 20,000 from Python, every fault trial 20 times, 500 crash rounds of the workspace store and 50 of
// the change store (half killed at a write boundary, half at a random moment). `npm test` runs the
// short form.
//   ARMATURE_SEED=<n> npm run soak   replays (or varies) the seeded calls.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const files = readdirSync(new URL('../test/reliability/', import.meta.url))
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/reliability/${f}`);
const child = spawn(process.execPath, [fileURLToPath(new URL('./test.mjs', import.meta.url)), '--node', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, ARMATURE_SOAK: '1' },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

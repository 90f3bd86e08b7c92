// The type checker is part of the suite: type-level tests (`@ts-expect-error` on event names and
// payloads) only mean something if the compiler runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { leftToBrowser, leftToNode } from './platform/platform-files.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = fileURLToPath(new URL('../node_modules/typescript/bin/tsc', import.meta.url));
const check = (...flags: string[]) => spawnSync(process.execPath, [tsc, '--noEmit', '-p', root, ...flags], { encoding: 'utf8', cwd: root });

/** The diagnostics of one platform's settings, without those in files the other platform's check judges. */
function platformDiagnostics(config: string, leftToOther: (file: string) => boolean): { kept: string[]; left: number } {
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--pretty', 'false', '-p', `${root}/${config}`], { encoding: 'utf8', cwd: root });
  const lines = `${r.stdout}${r.stderr}`.split('\n').filter((l) => /: error TS\d+:/.test(l));
  const kept = lines.filter((l) => !leftToOther(l.slice(0, l.indexOf('('))));
  return { kept, left: lines.length - kept.length };
}

test('tsc --noEmit reports no type errors', () => {
  const r = check();
  assert.equal(r.status, 0, `type errors:\n${r.stdout}${r.stderr}`);
});

test('the sources also type-check under module nodenext, where CommonJS-typed packages (mitt) import differently', () => {
  const r = check('--module', 'nodenext', '--moduleResolution', 'nodenext');
  assert.equal(r.status, 0, `type errors under nodenext:\n${r.stdout}${r.stderr}`);
});

test('browser code type-checks without Node\'s types: no Node API outside the files that run only in Node (or branch on the platform)', () => {
  const { kept } = platformDiagnostics('tsconfig.browser.json', leftToNode);
  assert.deepEqual(kept, [], `browser code uses what only Node has (see test/platform/platform-files.ts):\n${kept.join('\n')}`);
});

test('Node code type-checks without the DOM\'s types: no browser API outside the files that run only in a browser (or branch on the platform)', () => {
  const { kept } = platformDiagnostics('tsconfig.node.json', leftToBrowser);
  assert.deepEqual(kept, [], `Node code uses what only a browser has (see test/platform/platform-files.ts):\n${kept.join('\n')}`);
});

// Crash consistency of the Node workspace store: a writer process rewriting files is killed with
// SIGKILL at random moments; after every kill each file is whole (old or new, never torn) and every
// write the writer saw resolve is on disk. `npm run soak` runs many more rounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { openDirectoryStore } from '../../src/platform/directory-store.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { check, FILES } from './fixtures/crash-content.ts';
import { random, SEED, SOAK } from './seeded.ts';

const ROUNDS = SOAK ? 500 : 50;

/** Temporary files of the store anywhere under `dir`: its own folder's contents, and the older layout's marked names. */
function leftovers(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((p) => /^\.armature[\\/]\.tmp[\\/]./.test(p) || /\.armature-tmp-\d+-/.test(p));
}

test(`a writer killed with SIGKILL at ${ROUNDS} random moments: every file whole, every resolved write kept`, { timeout: SOAK ? 3_600_000 : 180_000 }, async () => {
  // Plain JavaScript starts in tens of milliseconds: the writer is bundled once, not compiled per round.
  const work = tempDir('crash');
  const writer = join(work, 'writer.mjs');
  const built = await esbuild.build({ entryPoints: [fileURLToPath(new URL('./fixtures/crash-writer.ts', import.meta.url))], bundle: true, write: false, format: 'esm', platform: 'node', target: 'node20', logLevel: 'silent' });
  writeFileSync(writer, built.outputFiles[0]!.text);
  const dir = join(work, 'store');
  const r = random(SEED);
  const acked = new Map<string, number>();
  let killedMidWrite = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const child = spawn(process.execPath, [writer, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (s: string) => {
      out += s;
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await new Promise((res) => setTimeout(res, 20 + r.int(250)));
    child.kill('SIGKILL');
    await exited;
    for (const line of out.split('\n')) {
      const [path, v] = line.split(' ');
      if (path && v) acked.set(path, Math.max(acked.get(path) ?? 0, Number(v)));
    }
    const files = await (await openDirectoryStore(dir)).load();
    // Opening cleans what the killed writer left half-written.
    const left = leftovers(dir);
    assert.deepEqual(left, [], `round ${round}: temporary files left after open: ${left.join(', ')}`);
    for (const f of files) {
      const c = check(f.data);
      assert.ok('version' in c, `round ${round}: ${f.path} is torn (${'torn' in c ? c.torn : ''})`);
      const v = (c as { version: number }).version;
      const seen = acked.get(f.path) ?? 0;
      // The write in flight when the kill came may or may not have landed; nothing older than acknowledged may remain.
      assert.ok(v === seen || v === seen + 1, `round ${round}: ${f.path} holds version ${v}, the writer had finished ${seen}`);
      if (v === seen + 1) killedMidWrite++;
      acked.set(f.path, v);
    }
    for (const path of FILES) if ((acked.get(path) ?? 0) > 0) assert.ok(files.some((f) => f.path === path), `round ${round}: ${path} disappeared`);
  }
  assert.ok([...acked.values()].every((v) => v > 0), 'every file was written');
  process.stderr.write(`crash consistency: ${ROUNDS} rounds, ${[...acked.values()].reduce((a, b) => a + b, 0)} versions, ${killedMidWrite} kills between a write landing and its acknowledgement\n`);
});

// An agent-made upgrade's own code cannot slow the system down for good: in Node, everything real
// (the upgrades in confined child processes, the workspace on disk), two probe upgrades run side by
// side. A handler that loops is stopped within its limit while the other upgrade keeps hearing
// events; an init that loops fails its boot within its limit and the boot goes on; either way the
// version is held back — later boots do not start it (its init never runs again) — until it
// changes: retry_upgrade, a new version, or a rollback (another change, even to the same hash).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { boot, type ArmatureSystem } from '../../src/index.ts';
import type { AnyEventRecord } from '../../src/kernel/event-bus.ts';
import { createNodePlatform } from '../../src/platform/node.ts';
import type { MadeUpgradesApi } from '../../upgrades/made-upgrades/index.ts';
import type { WorkspaceApi } from '../../upgrades/workspace/contract.ts';
import { probeBlueprint, probeUpgrade } from '../helpers/made-upgrade-fixtures.ts';
import { makerPersona, withPersonas } from '../helpers/persona-overlay.ts';
import { runCli } from '../helpers/run-cli.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { until } from '../helpers/until.ts';
import { value } from '../helpers/tool-value.ts';

const data = tempDir('made-upgrades-limits');
const BUILDER = { ...makerPersona(['*'], 'builder'), selfModification: { tools: 'auto', upgrades: 'auto', blueprints: 'auto', persona: 'auto' } };
const HANDLER_LIMIT_MS = 1500;
const bootBuilder = () =>
  boot({ persona: 'builder', platform: withPersonas(createNodePlatform({ dataDir: data }), [BUILDER]), historySize: 20_000, config: { MadeUpgrades: { handlerTimeoutMs: HANDLER_LIMIT_MS } } });

let sys: ArmatureSystem | undefined;
after(() => sys?.dispose());

const call = (name: string, args: unknown) => sys!.tools.executeTool(name, args, { caller: 'cli' });
const part = (id: string) => sys!.modules.find((m) => m.id === `upgrade:${id}`);
/** How many times the probe's init began (it counts them in its own storage). */
const starts = async (id: string) => Number((await sys!.resolve<WorkspaceApi>('Workspace')).area('upgrade-data').readText(`${id}/starts.txt`) ?? 0);

/** Resolves with the first event of `type` that `match` accepts, seen from now on (the test's bound on a hang: 60 s). */
function nextEvent(type: string, match: (payload: Record<string, unknown>) => boolean = () => true): Promise<AnyEventRecord> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (sub.dispose(), reject(new Error(`no ${type} event came`))), 60_000);
    const sub = sys!.bus.onAny((r) => {
      if (r.type !== type || !match(r.payload as Record<string, unknown>)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(r);
    });
  });
}

test('a handler that loops is stopped within its limit, the other upgrade keeps receiving events, and the version is held back', async () => {
  sys = await bootBuilder();
  for (const id of ['loopy', 'steady']) {
    value(await call('create_blueprint', probeBlueprint(id)));
    const made = value(await call('create_upgrade', probeUpgrade(id, `0xA0000${id === 'loopy' ? 1 : 2}`))) as { status: string };
    assert.equal(made.status, 'active', JSON.stringify(made));
  }
  value(await call('update_persona', { add_upgrades: ['loopy', 'steady'], add_tools: ['loopy.*', 'steady.*'] }));
  const made = await sys.resolve<MadeUpgradesApi>('MadeUpgrades');
  assert.deepEqual(made.live().map((u) => [u.id, u.running]), [['loopy', true], ['steady', true]]);
  assert.equal(made.resources().workers, 2);

  const stopped = nextEvent('module:failed', (p) => p.id === 'upgrade:loopy');
  const heardByOther = nextEvent('steady:heard', (p) => p.path === 'hang/loopy/handler.txt');
  value(await call('write_file', { path: 'hang/loopy/handler.txt', content: 'x' }));
  await heardByOther;
  const failed = (await stopped).payload as { error: { code: string; message: string } };
  assert.equal(failed.error.code, 'UPGRADE_STOPPED');
  assert.match(failed.error.message, new RegExp(`loopy v1 stopped: \\[made-upgrades\\] loopy v1: .*its handler of "workspace:written" did not finish within ${HANDLER_LIMIT_MS} ms; the worker was stopped; it will not be started again until it changes \\(update_upgrade, rollback_upgrade\\) or retry_upgrade \\{"id": "loopy"\\} tries it once more`));
  await until('its worker is gone', () => made.resources().workers === 1);
  assert.equal(sys.tools.hasTool('loopy.ping'), false);

  // Events go on to the other upgrade.
  const later = nextEvent('steady:heard', (p) => p.path === 'notes/after.md');
  value(await call('write_file', { path: 'notes/after.md', content: 'y' }));
  await later;
  assert.equal(value(await call('steady.ping', {})), 'pong');

  // A new boot leaves it out without starting it; retry_upgrade starts it again.
  await sys.dispose();
  const before = await (async () => ((sys = await bootBuilder()), starts('loopy')))();
  assert.equal(part('loopy')?.state, 'failed');
  assert.equal(part('loopy')?.error?.code, 'UPGRADE_HELD_BACK', JSON.stringify(part('loopy')));
  assert.match(part('loopy')!.error!.message, /loopy v1 was not started: on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC .*its handler of "workspace:written" did not finish within 1500 ms/);
  assert.equal(part('steady')?.state, 'loaded');
  const retried = value(await call('retry_upgrade', { id: 'loopy' })) as { running: boolean; released: boolean; version: number };
  assert.deepEqual([retried.running, retried.released, retried.version], [true, true, 1]);
  assert.equal(await starts('loopy'), before + 1);
  assert.equal(value(await call('loopy.ping', {})), 'pong');
});

test('an init that loops fails its boot within its limit while the boot goes on; later boots do not run it; a new version or a rollback brings it back', async () => {
  value(await call('write_file', { path: 'hang/loopy/init.txt', content: 'loop' }));
  await sys!.dispose();
  sys = await bootBuilder();
  const timedOut = part('loopy');
  assert.equal(timedOut?.state, 'failed');
  assert.match(timedOut!.error!.message, /init\(ctx\) did not finish within 2000 ms; it will not be started again until it changes/);
  assert.equal(part('steady')?.state, 'loaded', 'the boot went on');
  const begun = await starts('loopy');

  // The next boots do not start it at all: its init never runs again.
  for (let i = 0; i < 3; i++) {
    await sys.dispose();
    sys = await bootBuilder();
    assert.equal(part('loopy')?.error?.code, 'UPGRADE_HELD_BACK');
    assert.equal(part('steady')?.state, 'loaded');
  }
  assert.equal(await starts('loopy'), begun, 'held back: its init did not run at any of the three boots');
  assert.equal((await sys.resolve<MadeUpgradesApi>('MadeUpgrades')).resources().workers, 1);

  // A new version is another hash: it starts.
  const fixed = probeUpgrade('loopy', '0xA00001');
  const v2 = value(await call('update_upgrade', { id: 'loopy', code: fixed.code.replace("if (files.some((f) => f.path === 'hang/loopy/init.txt')) for (;;) {}", ''), reason: 'no loop' })) as { status: string; version: number };
  assert.deepEqual([v2.status, v2.version], ['active', 2]);
  assert.equal(value(await call('loopy.ping', {})), 'pong');

  // A rollback to version 1 is a change of its own: with the cause gone it starts, and is no longer held back.
  value(await call('delete_file', { path: 'hang/loopy/init.txt' }));
  const back = value(await call('rollback_upgrade', { id: 'loopy', version: 1 })) as { status: string };
  assert.equal(back.status, 'active', JSON.stringify(back));
  await sys.dispose();
  sys = await bootBuilder();
  assert.equal(part('loopy')?.state, 'loaded', JSON.stringify(part('loopy')));
});

test('through the CLI: an init that loops costs the one command that finds it its limit; the next three commands do not start it', async (t) => {
  const dir = tempDir('made-upgrades-limits-cli');
  const cli = (...args: string[]) => runCli([...args, '--data', dir], dir);
  const ok = async (...args: string[]) => {
    const r = await cli(...args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.out}${r.err}`);
  };
  await ok('call', 'create_blueprint', JSON.stringify(probeBlueprint('loopy')));
  await ok('call', 'create_upgrade', JSON.stringify(probeUpgrade('loopy', '0xA00001')));
  await ok('call', 'update_persona', JSON.stringify({ add_upgrades: ['loopy'], add_tools: ['loopy.*'] }));
  await ok('call', 'write_file', JSON.stringify({ path: 'hang/loopy/init.txt', content: 'loop' }));
  const startsFile = join(dir, 'workspace', '.armature', 'upgrade-data', 'loopy', 'starts.txt');
  const started = () => Number(readFileSync(startsFile, 'utf8'));
  const before = started();

  const t0 = performance.now();
  // The global limit from the command line reaches agent-made upgrades too.
  const found = await cli('boot', '--json', '--init-timeout', '1500');
  const ms = [performance.now() - t0];
  assert.equal(found.code, 1, 'a module failed');
  const loopy = (JSON.parse(found.out) as { modules: { id: string; state: string; error?: { message: string } }[] }).modules.find((m) => m.id === 'upgrade:loopy')!;
  assert.equal(loopy.state, 'failed');
  assert.match(loopy.error!.message, /init\(ctx\) did not finish within 1500 ms; it will not be started again until it changes \(update_upgrade, rollback_upgrade\) or retry_upgrade \{"id": "loopy"\} tries it once more/);
  assert.equal(started(), before + 1, 'its init began once');

  for (const args of [['boot'], ['call', 'list_files', '{}'], ['tools']]) {
    const t1 = performance.now();
    const r = await cli(...args);
    ms.push(performance.now() - t1);
    assert.match(r.out + r.err, /upgrade:loopy[^\n]*(FAILED|failed)/, args.join(' '));
    assert.match(r.out + r.err, /loopy v1 was not started: on [^\n]* UTC init\(ctx\) did not finish within 1500 ms/, args.join(' '));
  }
  assert.equal(started(), before + 1, 'the next three commands did not start it: its init never ran again');
  // What each command took (the shared machine's load decides the numbers; the counts above are the proof).
  t.diagnostic(`ms per command: ${ms.map((m) => m.toFixed(0)).join(', ')} (the first found the loop)`);
});

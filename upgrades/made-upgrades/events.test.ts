// MadeUpgrades' own events are typed without the kernel's file: its augmentation of ArmatureEvents
// is what the compiler checks here (test/typecheck.test.ts runs tsc over this file too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus } from '../../src/kernel/event-bus.ts';
import { readManifests } from '../../src/kernel/manifests.ts';
import { nodeProjectFiles, projectRoot } from '../../src/platform/node.ts';
import { MADE_UPGRADES_EVENTS } from './events.ts';
import { metadata } from './index.ts';
import { initialStatus } from './status.ts';

test('made-upgrades:status is a typed event: right payloads compile, wrong ones do not', () => {
  const bus = createEventBus();
  const seen: string[] = [];
  bus.on('made-upgrades:status', (p) => seen.push(`${p.id} ${p.status?.state ?? 'gone'}`));
  bus.emit('made-upgrades:status', { id: 'notes-index', status: initialStatus() });
  bus.emit('made-upgrades:status', { id: 'notes-index', status: null });
  // @ts-expect-error — the status is an UpgradeStatus, not a string
  bus.emit('made-upgrades:status', { id: 'notes-index', status: 'fine' });
  // @ts-expect-error — no such event of MadeUpgrades
  bus.emit('made-upgrades:exploded', { id: 'x' });
  // The compiler's checks above are the point; at run time the bus delivers whatever was emitted.
  assert.deepEqual(seen, ['notes-index idle', 'notes-index gone', 'notes-index gone']);
});

test('the metadata and the manifest list the same events', async () => {
  const m = await readManifests(nodeProjectFiles(projectRoot));
  assert.deepEqual([...(metadata.events ?? [])], [...MADE_UPGRADES_EVENTS]);
  assert.deepEqual(m.upgrades.get('MadeUpgrades')!.events, [...MADE_UPGRADES_EVENTS]);
});

// The project's own manifests, upgrades and blueprints must agree with each other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readManifests } from '../../src/kernel/manifests.ts';
import { importUpgrade } from '../../src/kernel/boot/loader.ts';
import type { EarlyStartModule, UpgradeModule } from '../../src/kernel/upgrade.ts';
import { nodeProjectFiles, projectRoot } from '../../src/platform/node.ts';
import { loadBlueprints } from '../../upgrades/blueprints/registry.ts';

const project = nodeProjectFiles(projectRoot);

test('every upgrade names a blueprint that exists, and its entry (and early start) agrees with the registry', async () => {
  const [m, blueprints] = await Promise.all([readManifests(project), loadBlueprints(project)]);
  const ids = new Set(blueprints.map((b) => b.id));
  for (const u of m.upgrades.values()) {
    assert.ok(ids.has(u.blueprint), `${u.id} names blueprint ${u.blueprint}, which is not in blueprints/`);
    const mod = (await importUpgrade(u.entry)) as UpgradeModule;
    assert.equal(mod.metadata.id, u.id);
    assert.equal(mod.metadata.blueprint, u.blueprint, `${u.entry} metadata.blueprint`);
    if (u.earlyStart) assert.equal(typeof ((await importUpgrade(u.earlyStart)) as EarlyStartModule).earlyStart, 'function', `${u.earlyStart} exports earlyStart`);
    const bp = blueprints.find((b) => b.id === u.blueprint)!;
    assert.equal(bp.target, u.id, `${bp.file} targets ${bp.target}, but ${u.id} says it is built from it`);
  }
});

test('every blueprint targets an upgrade that exists (or the kernel), and its prerequisites and artifacts exist', async () => {
  const [m, blueprints] = await Promise.all([readManifests(project), loadBlueprints(project)]);
  assert.ok(blueprints.length >= 10, `expected the kernel and upgrade blueprints, found ${blueprints.length}`);
  const ids = new Set(blueprints.map((b) => b.id));
  for (const b of blueprints) {
    assert.ok(b.target === 'kernel' || m.upgrades.has(b.target), `${b.file} targets ${b.target}, which is not an upgrade`);
    for (const p of b.prerequisites) assert.ok(ids.has(p), `${b.file} lists prerequisite ${p}, which is not a blueprint`);
    for (const a of b.artifacts) assert.ok(existsSync(join(projectRoot, a)), `${b.file} lists artifact ${a}, which does not exist`);
  }
});

test("no persona loads an upgrade whose prerequisites' upgrades it lacks", async () => {
  const [m, blueprints] = await Promise.all([readManifests(project), loadBlueprints(project)]);
  const byId = new Map(blueprints.map((b) => [b.id, b]));
  for (const persona of m.personas.values()) {
    const loads = new Set(persona.upgrades);
    for (const id of persona.upgrades) {
      const u = m.upgrades.get(id)!;
      for (const dep of u.dependencies) assert.ok(loads.has(dep), `persona ${persona.id} loads ${id} but not its dependency ${dep}`);
      for (const pre of byId.get(u.blueprint)!.prerequisites) {
        const target = byId.get(pre)!.target;
        assert.ok(target === 'kernel' || loads.has(target), `persona ${persona.id} loads ${id}, whose blueprint needs ${pre} (${target}), which the persona does not load`);
      }
    }
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBlueprint } from './front-matter.ts';
import { createBlueprintRegistry, loadBlueprints } from './registry.ts';
import { memoryProject } from '../../test/helpers/memory-platform.ts';

const bp = (id: string, extra = '') => `---\nid: ${id}\ntitle: T ${id}\ntarget: Workspace\nprerequisites: [0x000010]\nartifacts: [a.ts]\n${extra}---\n# Body ${id}\n`;

test('front matter is parsed with ids kept as strings', () => {
  const b = parseBlueprint('blueprints/x.md', bp('0x000031'));
  assert.deepEqual([b.id, b.title, b.target, b.prerequisites, b.artifacts, b.body], ['0x000031', 'T 0x000031', 'Workspace', ['0x000010'], ['a.ts'], '# Body 0x000031']);
});

test('invalid front matter names the file and the field', () => {
  assert.throws(() => parseBlueprint('blueprints/x.md', '# no front matter'), /blueprints\/x\.md: must start with YAML front matter/);
  assert.throws(() => parseBlueprint('blueprints/x.md', bp('0x31')), /blueprints\/x\.md: at \$\.id: a blueprint id/);
  assert.throws(() => parseBlueprint('blueprints/x.md', bp('0x000031', 'owner: me\n')), /Unrecognized key: "owner"/);
  assert.throws(() => parseBlueprint('blueprints/x.md', '---\nid: [\n---\n'), /front matter is not valid YAML/);
});

test('the registry lists by id, reads one, suggests close ids, and rejects duplicates', async () => {
  const project = memoryProject({ 'blueprints/b.md': bp('0x000031'), 'blueprints/a.md': bp('0x000030'), 'blueprints/c.md': bp('0x00003A'), 'blueprints/README.md': 'no front matter' });
  const reg = createBlueprintRegistry(await loadBlueprints(project));
  assert.deepEqual(reg.list().map((b) => b.id), ['0x000030', '0x000031', '0x00003A']);
  assert.equal('body' in reg.list()[0]!, false);
  assert.equal(reg.get('0x000031').body, '# Body 0x000031');
  assert.equal(reg.get('0x00003a').id, '0x00003A');
  assert.throws(() => reg.get('0x000032'), /no blueprint "0x000032"; did you mean 0x000030 or 0x000031 or 0x00003A/);
  const dup = memoryProject({ 'blueprints/a.md': bp('0x000031'), 'blueprints/b.md': bp('0x000031') });
  await assert.rejects(loadBlueprints(dup), /blueprints\/b\.md: id 0x000031 is already used by blueprints\/a\.md/);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Persona } from '../../src/kernel/manifest-schemas.ts';
import { applyOverlay, nextOverlay } from './overlay.ts';

test('each update_persona makes the whole next overlay; the last word on a tool wins', () => {
  const v1 = nextOverlay('default', undefined, { add_upgrades: ['notes-index'], add_tools: ['notes_index.*'] });
  assert.deepEqual(v1, { persona: 'default', add_upgrades: ['notes-index'], add_tools: ['notes_index.*'], remove_tools: [] });
  const v2 = nextOverlay('default', v1, { add_upgrades: ['notes-index', 'notes-report'], remove_tools: ['notes_index.*', 'delete_file'] });
  assert.deepEqual(v2, { persona: 'default', add_upgrades: ['notes-index', 'notes-report'], add_tools: [], remove_tools: ['notes_index.*', 'delete_file'] });
  const v3 = nextOverlay('default', v2, { add_tools: ['notes_index.*'] });
  assert.deepEqual([v3.add_tools, v3.remove_tools], [['notes_index.*'], ['delete_file']]);
});

test('the persona in force is the file\'s with the overlay applied, in place; without one, the file\'s again', () => {
  const base: Persona = { id: 'default', name: 'D', description: 'd', upgrades: ['ToolRunner'], tools: ['read_file'], skills: [] };
  const live: Persona = structuredClone(base);
  const tools = live.tools;
  applyOverlay(live, base, { persona: 'default', add_upgrades: [], add_tools: ['made.*'], remove_tools: ['read_file'] });
  assert.equal(live.tools, tools, 'the same array: readers holding it see the change');
  assert.deepEqual([live.tools, live.denyTools], [['read_file', 'made.*'], ['read_file']]);
  applyOverlay(live, base, undefined);
  assert.deepEqual([live.tools, live.denyTools], [['read_file'], undefined]);
});

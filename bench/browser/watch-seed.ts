// Seeds the dashboard's store (IndexedDB, prefix `armature`) with `?changes=N` changes, through
// the real change path: a system booted with the workspace in memory makes them as a person
// (create_blueprint / update_blueprint: 100 targets, N/100 versions each), then its files are
// copied into the store the dashboard opens. Leaves `window.__bench = { ok, changes, ms }`.
import { boot } from '../../src/index.ts';
import { createBrowserPlatform } from '../../src/platform/browser/browser.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';

const n = Number(new URLSearchParams(location.search).get('changes') ?? '10000');
const TARGETS = Math.min(100, n);
const body = (i: number, v: number) => `# Note ${i}\n\n## 1. Objective\n\nKeep note ${i}, version ${v}.\n\n## 2. Design\n\n- One line per version: ${v}.\n\n## 4. Verification\n\n- [ ] it reads back (test: read-${i})\n`;

const t0 = performance.now();
const platform = createBrowserPlatform();
const memory = memoryStore();
const sys = await boot({ platform: { ...platform, openStore: async (name) => (name === 'workspace' ? memory : platform.openStore(name)) }, config: { PyodideRuntime: { autoStart: false } } });
const ids: string[] = [];
let made = 0;
for (let i = 0; i < TARGETS && made < n; i++, made++) {
  const r = await sys.tools.executeTool<{ id: string }>('create_blueprint', { title: `Note ${i}`, target: `note-${i}`, body: body(i, 1), reason: `note ${i}` }, { caller: 'ui' });
  if (!r.ok) throw new Error(JSON.stringify(r));
  ids.push(r.value.id);
}
for (let v = 2; made < n; v++) {
  for (let i = 0; i < TARGETS && made < n; i++, made++) {
    const r = await sys.tools.executeTool('update_blueprint', { id: ids[i], body: body(i, v), reason: `version ${v} of note ${i}` }, { caller: 'ui' });
    if (!r.ok) throw new Error(JSON.stringify(r));
  }
}
await sys.dispose();
const store = await platform.openStore('workspace');
for (const f of memory.files.values()) await store.put(f);
await store.close();
(globalThis as { __bench?: unknown }).__bench = { ok: true, changes: made, ms: performance.now() - t0 };

// Seeds the dashboard's store (IndexedDB, prefix `armature`) with `?changes=N` changes made by the
// real change path: a system booted over stores in memory — the workspace, and the change path's
// shared store (its journal lines and version blobs) — makes them as a person (create_blueprint /
// update_blueprint: 100 targets, N/100 versions each). Then what those stores hold is written into
// the databases the dashboard opens, each in one transaction, in the records the IndexedDB stores
// themselves read back: `files` keyed by path; journal lines in order under increasing keys, blobs
// by name. One strict-durability transaction per change took over 15 minutes for 10,000; what the
// dashboard then reads is the same. Leaves `window.__bench = { ok, changes, ms, makeMs, writeMs }`, or `{ ok: false, error }`.
import { boot } from '../../src/index.ts';
import { createBrowserPlatform } from '../../src/platform/browser/browser.ts';
import { done, request } from '../../src/platform/browser/browser-idb.ts';
import { memoryShared, type MemoryShared } from '../../src/platform/memory-shared-store.ts';
import type { StoredFile } from '../../src/platform/platform.ts';
import { memoryStore } from '../../test/helpers/memory-platform.ts';

const n = Number(new URLSearchParams(location.search).get('changes') ?? '10000');
const TARGETS = Math.min(100, n);
const PREFIX = 'armature';
const body = (i: number, v: number) => `# Note ${i}\n\n## 1. Objective\n\nKeep note ${i}, version ${v}.\n\n## 2. Design\n\n- One line per version: ${v}.\n\n## 4. Verification\n\n- [ ] it reads back (test: read-${i})\n`;

/** Opens the IndexedDB database `name` as the platform made it (its object stores exist already). */
async function openDb(name: string): Promise<IDBDatabase> {
  return request(indexedDB.open(name, 1));
}

/** Writes every file into the file store's database, in one transaction. */
async function writeFiles(dbName: string, files: Iterable<StoredFile>): Promise<void> {
  const db = await openDb(dbName);
  const t = db.transaction('files', 'readwrite', { durability: 'strict' });
  for (const f of files) t.objectStore('files').put({ path: f.path, data: f.data, mtime: f.mtime });
  await done(t);
  db.close();
}

/** Appends the journal's lines (in order) and stores its blobs, in one transaction. */
async function writeShared(dbName: string, shared: MemoryShared): Promise<void> {
  const db = await openDb(dbName);
  const t = db.transaction(['journal', 'blobs'], 'readwrite', { durability: 'strict' });
  for (const line of shared.lines) t.objectStore('journal').add(line);
  for (const [name, data] of shared.blobs) t.objectStore('blobs').put(data.slice(), name);
  await done(t);
  db.close();
}

/** Seeds the store; resolves to what `window.__bench` reports. */
async function seed(): Promise<{ ok: true; changes: number; ms: number; makeMs: number; writeMs: number }> {
  const t0 = performance.now();
  const platform = createBrowserPlatform({ dbPrefix: PREFIX });
  const memory = memoryStore();
  const shared = new Map<string, MemoryShared>();
  const sharedOf = (name: string) => {
    if (!shared.has(name)) shared.set(name, memoryShared());
    return shared.get(name)!;
  };
  const sys = await boot({
    platform: { ...platform, openStore: async (name) => (name === 'workspace' ? memory : platform.openStore(name)), openShared: async (name) => sharedOf(name).open() },
    config: { PyodideRuntime: { autoStart: false } },
  });
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
  const t1 = performance.now();
  // The platform makes each database (and its object stores) as the dashboard will find them; the
  // records then go in whole.
  await (await platform.openStore('workspace')).close();
  await writeFiles(`${PREFIX}:workspace`, memory.files.values());
  for (const [name, backing] of shared) {
    await (await platform.openShared(name)).close();
    await writeShared(`${PREFIX}:shared:${name}`, backing);
  }
  const t2 = performance.now();
  return { ok: true, changes: made, ms: t2 - t0, makeMs: t1 - t0, writeMs: t2 - t1 };
}

// A failure is reported, not left for the bench to wait out.
(globalThis as { __bench?: unknown }).__bench = await seed().catch((e: unknown) => ({ ok: false, error: String((e as Error)?.stack ?? e) }));

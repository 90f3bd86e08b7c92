// What every workspace store must do alike — the Node directory store and IndexedDB — run through
// the Workspace over a real store and a reopen of it: names it cannot keep distinct are refused
// with the reason, names that look like its own temporary files survive, a file never sits where a
// folder is (or inside a file), and the size quota is enforced with a clear error. Framework-free:
// the Node suite registers these with node:test, the Chromium suite with mocha.
import { createEventBus } from '../../src/kernel/event-bus.ts';
import type { FileStore } from '../../src/platform/platform.ts';
import { createWorkspace, type WorkspaceApi } from '../../upgrades/workspace/workspace.ts';

/** Opens the store under test: the same name gives the same data, as after a reload. */
export type OpenStore = (name: string) => Promise<FileStore>;

/** One case: throws (with what went wrong) when the store does not conform. */
export interface StoreCase {
  name: string;
  run(open: OpenStore): Promise<void>;
}

function check(ok: unknown, message: string): asserts ok {
  if (!ok) throw new Error(message);
}

async function workspace(open: OpenStore, name: string, maxTotalBytes?: number): Promise<{ ws: WorkspaceApi; store: FileStore }> {
  const store = await open(name);
  return { ws: await createWorkspace({ store, bus: createEventBus(), ...(maxTotalBytes ? { maxTotalBytes } : {}) }), store };
}

/** Reopens `name` (a new store over the same data, as a reload does) and lists its files. */
async function reopened(open: OpenStore, name: string, first: FileStore): Promise<WorkspaceApi> {
  await first.close();
  return (await workspace(open, name)).ws;
}

async function refused(work: () => Promise<unknown> | unknown, code: string, reason: RegExp): Promise<void> {
  let error: { code?: string; message?: string } | undefined;
  try {
    await work();
  } catch (e) {
    error = e as { code?: string; message?: string };
  }
  check(error, `expected ${code}, but it was accepted`);
  check(error.code === code, `expected ${code}, got ${error.code}: ${error.message}`);
  check(reason.test(error.message ?? ''), `the message ${JSON.stringify(error.message)} does not say ${reason}`);
}

const unique = () => `conformance-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

/** The cases, each on a store of its own. */
export const STORE_CASES: StoreCase[] = [
  {
    name: 'names holding the store\'s temporary-file mark survive a reload, contents intact',
    async run(open) {
      const name = unique();
      const { ws, store } = await workspace(open, name);
      const paths = ['a.armature-tmp-1-x', 'notes/b.armature-tmp-99-zz.txt', '.armature-tmp-', 'tmp/.armature-tmp-123-abc'];
      for (const p of paths) await ws.write(p, `content of ${p}`);
      const again = await reopened(open, name, store);
      check(JSON.stringify(again.list().map((f) => f.path)) === JSON.stringify([...paths].sort()), `after a reload: ${again.list().map((f) => f.path).join(', ')}`);
      for (const p of paths) check(again.readText(p) === `content of ${p}`, `${p} changed`);
    },
  },
  {
    name: 'paths differing only by lone surrogates are refused with the reason, and nothing is stored',
    async run(open) {
      const name = unique();
      const { ws, store } = await workspace(open, name);
      for (const p of ['sur\uD800', 'sur\uDC00', 'dir\uD83D/x', 'x\uDE00y']) {
        await refused(() => ws.write(p, 'x'), 'INVALID_PATH', /lone surrogate/);
      }
      // A whole pair is one character, and fine.
      await ws.write('emoji-\uD83D\uDE00.txt', 'ok');
      const again = await reopened(open, name, store);
      check(JSON.stringify(again.list().map((f) => f.path)) === JSON.stringify(['emoji-\uD83D\uDE00.txt']), `stored: ${again.list().map((f) => f.path).join(', ')}`);
    },
  },
  {
    name: 'a name longer than a file system keeps (255 UTF-8 bytes) is refused with the reason',
    async run(open) {
      const name = unique();
      const { ws, store } = await workspace(open, name);
      await refused(() => ws.write(`dir/${'é'.repeat(128)}`, 'x'), 'INVALID_PATH', /256 bytes.*255/);
      await ws.write(`dir/${'é'.repeat(127)}`, 'fits');
      const again = await reopened(open, name, store);
      check(again.readText(`dir/${'é'.repeat(127)}`) === 'fits', 'the longest name that fits survived');
    },
  },
  {
    name: 'a file where a folder is, or inside a file, is refused; nothing is left behind',
    async run(open) {
      const name = unique();
      const { ws, store } = await workspace(open, name);
      await ws.write('dir/file.txt', 'in a folder');
      await ws.write('plain', 'a file');
      await refused(() => ws.write('dir', 'x'), 'PATH_CONFLICT', /dir is a folder/);
      await refused(() => ws.write('plain/inner.txt', 'x'), 'PATH_CONFLICT', /plain is a file/);
      await refused(() => ws.write('plain/deeper/x', 'x'), 'PATH_CONFLICT', /plain is a file/);
      // Once the folder is empty, the name is free.
      await ws.delete('dir/file.txt');
      await ws.write('dir', 'now a file');
      const again = await reopened(open, name, store);
      check(JSON.stringify(again.list().map((f) => f.path)) === JSON.stringify(['dir', 'plain']), `stored: ${again.list().map((f) => f.path).join(', ')}`);
    },
  },
  {
    name: 'the size quota refuses a write past it, naming the quota, what is used and how to raise it',
    async run(open) {
      const name = unique();
      const { ws, store } = await workspace(open, name, 100);
      await ws.write('a', 'x'.repeat(60));
      await refused(() => ws.write('b', 'y'.repeat(60)), 'WORKSPACE_FULL', /quota of 100 bytes.*60 bytes (are )?in use/);
      // Replacing a file counts its new size only.
      await ws.write('a', 'z'.repeat(90));
      check(ws.totalBytes() === 90, `total ${ws.totalBytes()}`);
      const again = await reopened(open, name, store);
      check(again.readText('a') === 'z'.repeat(90) && again.stat('b') === undefined, 'after a reload: a replaced, b never written');
    },
  },
];

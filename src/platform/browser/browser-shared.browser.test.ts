// The browser's shared store in the real Chromium (IndexedDB, Web Locks, BroadcastChannel): two
// handles play two tabs on one database.
import { expect } from 'chai';
import { openIndexedDbShared } from './browser-shared.ts';

describe('IndexedDB shared store', () => {
  const db = `armature-test-shared-${Math.random().toString(36).slice(2)}`;
  after(() => indexedDB.deleteDatabase(db));

  it('lines and blobs one tab writes reach the other, which hears of them; a lock excludes the other tab', async () => {
    const a = await openIndexedDbShared(db);
    const b = await openIndexedDbShared(db);
    let heard = 0;
    b.watch(() => heard++);
    await a.putBlob('v.json', new TextEncoder().encode('content'));
    await a.append('one');
    await a.append('two');
    for (let i = 0; i < 100 && !heard; i++) await new Promise((r) => setTimeout(r, 20));
    expect(heard).to.be.greaterThan(0);
    const read = await b.read(0);
    expect(read.lines.map((l) => l.text)).to.deep.equal(['one', 'two']);
    expect(new TextDecoder().decode(b.blob('v.json'))).to.equal('content', 'the blob came with the lines that name it');
    expect((await b.read(read.cursor)).lines).to.deep.equal([]);
    await a.append('three');
    expect((await b.read(read.cursor)).lines.map((l) => l.text)).to.deep.equal(['three']);

    const order: string[] = [];
    let release!: () => void;
    const held = a.lock('t', () => new Promise<void>((r) => ((release = r), order.push('a took it'))));
    await new Promise((r) => setTimeout(r, 20));
    const waiting = b.lock('t', async () => void order.push('b took it'));
    await new Promise((r) => setTimeout(r, 50));
    order.push('a releases');
    release();
    await held;
    await waiting;
    expect(order).to.deep.equal(['a took it', 'a releases', 'b took it']);
    await a.close();
    await b.close();
  });
});
